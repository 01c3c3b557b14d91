"""Open coding through the API: studies created open, codes on submit and in every labelling
answer, and the codes and saturation endpoints for every role."""

import json

import pytest
from rest_framework.test import APIClient

from labeler.common.roles import Role
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import Assignment, Board, Code, CodeUse, Study
from taxonomy.models import Codebook
from tests.labeler.calls import assert_error, client_for, next_item
from tests.labeler.factories import (
    LabellingStudyFactory,
    StudyItemFactory,
    StudyMemberFactory,
)
from tests.labeler.role_calls import caller, statuses
from tests.mining.factories import BugReportFactory

pytestmark = pytest.mark.django_db

# Two annotators on the first report, the first alone on the second: the second wrote
# "Memory leak", which the board counts as the first's "memory leak".
ANN_FIRST = {"root-cause": ["memory leak", "cache"], "symptom": ["oom"]}
ANN2_FIRST = {"root-cause": ["Memory leak", "lock"], "symptom": ["slow"]}
ANN_SECOND = {"root-cause": ["memory leak"], "symptom": ["oom"]}


def coded(study, user, codes):
    held = assignment_next(study=study, user=user)
    return assignment_submit(assignment_id=held.pk, user=user, labels={}, codes=codes)


def open_annotator(make_user, open_study, username):
    user = make_user(Role.ANNOTATOR, username=username)
    StudyMemberFactory(study=open_study, user=user, role="annotator")
    return user


@pytest.fixture
def open_second_annotator(make_user, open_study):
    return open_annotator(make_user, open_study, "ann2")


@pytest.fixture
def open_items(open_study, annotator, open_second_annotator):
    first = coded(open_study, annotator, ANN_FIRST)
    coded(open_study, open_second_annotator, ANN2_FIRST)
    second = coded(open_study, annotator, ANN_SECOND)
    # As tests.labeler.role_calls's `call` names them.
    return {"disputed": first.item, "final": second.item}


@pytest.fixture
def open_call(request, make_user, open_study, open_items):
    """tests.labeler.role_calls's `call` on the open study (ann3: an annotator who coded none)."""
    other = open_annotator(make_user, open_study, "ann3")
    return caller(request, open_study, open_items, other_annotator=other)


def names(response):
    return [(code["dimension"], code["name"], code.get("uses")) for code in response["results"]]


EVERY_CODE = [
    ("root-cause", "memory leak", 3),
    ("symptom", "oom", 2),
    ("root-cause", "cache", 1),
    ("root-cause", "lock", 1),
    ("symptom", "slow", 1),
]
ANNS_OWN = [
    ("root-cause", "memory leak", None),
    ("symptom", "oom", None),
    ("root-cause", "cache", None),
]


@statuses(
    annotator=200,
    other_annotator=200,
    lead=200,
    researcher=200,
    outsider=404,
    anonymous=401,
    staff=200,
)
def test_codes_in_use_for_every_role(open_call, role, expected):
    response = open_call(role, "get", "/api/studies/{slug}/codes/")
    assert response.status_code == expected
    if expected != 200:
        assert set(response.json()) == {"message", "fields"}
        return
    body = response.json()
    if role in ("lead", "staff"):
        assert (body["only_yours"], names(body)) == (False, EVERY_CODE)
    elif role == "researcher":
        assert body["only_yours"] is False
        assert names(body) == [(key, name, None) for key, name, _ in EVERY_CODE]
    elif role == "annotator":
        assert (body["only_yours"], names(body)) == (True, ANNS_OWN)
    else:  # another annotator, who wrote nothing, sees nothing of the others'
        assert body == {"only_yours": True, "results": []}


def test_an_annotator_sees_only_their_codes_as_they_wrote_them(
    open_study, open_items, open_second_annotator
):
    body = client_for(open_second_annotator).get("/api/studies/open/codes/").json()
    assert names(body) == [
        ("root-cause", "Memory leak", None),
        ("root-cause", "lock", None),
        ("symptom", "slow", None),
    ]
    # Renamed on the board since: the annotator keeps seeing what they wrote.
    Code.objects.filter(name="lock").update(name="lock contention")
    body = client_for(open_second_annotator).get("/api/studies/open/codes/?q=LOCK").json()
    assert names(body) == [("root-cause", "lock", None)]


@statuses(
    annotator=200,
    other_annotator=200,
    lead=200,
    researcher=200,
    outsider=404,
    anonymous=401,
    staff=200,
)
def test_a_study_that_shares_codes_shows_every_code_to_its_annotators(
    open_call, open_study, role, expected
):
    Study.objects.filter(pk=open_study.pk).update(codes_shared=True)
    response = open_call(role, "get", "/api/studies/{slug}/codes/?dimension=root-cause&q=%20%20LEA")
    assert response.status_code == expected
    if expected == 200:
        body = response.json()
        uses = 3 if role in ("lead", "staff") else None
        assert (body["only_yours"], names(body)) == (False, [("root-cause", "memory leak", uses)])


def test_a_lead_who_labels_in_the_study_sees_only_their_own_codes(open_study, open_items, lead):
    StudyMemberFactory(study=open_study, user=lead, role="annotator")
    body = client_for(lead).get("/api/studies/open/codes/").json()
    assert body == {"only_yours": True, "results": []}


def test_the_codes_query_is_checked(open_study, open_items, lead):
    client = client_for(lead)
    assert_error(client.get("/api/studies/open/codes/?dimension=symptoms"), "dimension", "symptom")
    assert_error(client.get("/api/studies/open/codes/?query=x"), "query", "did you mean 'q'")
    assert_error(client.get("/api/studies/open/codes/?limit=0"), "limit")
    body = client.get("/api/studies/open/codes/?limit=2&dimension=root-cause").json()
    assert names(body) == EVERY_CODE[:1] + EVERY_CODE[2:3]


def test_a_closed_study_has_no_codes_nor_saturation(lead):
    closed = LabellingStudyFactory(slug="closed")
    StudyMemberFactory(study=closed, user=lead, role="lead")
    for endpoint in ("codes", "saturation"):
        response = client_for(lead).get(f"/api/studies/closed/{endpoint}/")
        assert response.status_code == 400
        assert "closed-coding study" in response.json()["message"]


@statuses(
    annotator=403,
    other_annotator=403,
    lead=200,
    researcher=200,
    outsider=404,
    anonymous=401,
    staff=200,
)
def test_saturation_for_every_role(open_call, role, expected):
    response = open_call(role, "get", "/api/studies/{slug}/saturation/")
    assert response.status_code == expected
    if expected != 200:
        assert set(response.json()) == {"message", "fields"}
        return
    body = response.json()
    # Report 1: memory leak, cache, oom (ann), lock, slow (ann2); report 2 adds nothing.
    first, second = ("A1", "A2") if role == "researcher" else ("ann", "ann2")
    assert body == {
        "dimension": None,
        "resolved": "codes as the board resolves them now: after renames and merges",
        "reports": 2,
        "codes": 5,
        "team": [5, 5],
        "annotators": [
            {"annotator": first, "reports": 2, "curve": [3, 3]},
            {"annotator": second, "reports": 1, "curve": [3]},
        ],
    }


def test_saturation_of_one_dimension_follows_the_board(open_call, open_study):
    lock, cache = Code.objects.get(name="lock"), Code.objects.get(name="cache")
    Code.objects.filter(pk=lock.pk).update(merged_into=cache)
    CodeUse.objects.filter(code=lock).update(code=cache)
    body = open_call("lead", "get", "/api/studies/{slug}/saturation/?dimension=root-cause").json()
    assert (body["dimension"], body["team"]) == ("root-cause", [2, 2])
    assert [a["curve"] for a in body["annotators"]] == [[2, 2], [2]]
    response = open_call("lead", "get", "/api/studies/{slug}/saturation/?dimension=cause")
    assert_error(response, "dimension", "did you mean 'root-cause'")


def test_submit_takes_codes_and_every_labelling_answer_gives_them(open_study, annotator):
    client = client_for(annotator)
    held = next_item(client, slug="open").json()
    assert held["codes"] == {}
    url = f"/api/assignments/{held['assignment']}/submit/"

    saved = client.post(url, {"labels": {}, "codes": ANN_FIRST, "note": "memo"}, format="json")

    assert saved.status_code == 200
    assert (saved.json()["codes"], saved.json()["labels"], saved.json()["note"]) == (
        ANN_FIRST,
        {},
        "memo",
    )
    previous = client.get("/api/studies/open/previous/").json()
    assert previous["codes"] == ANN_FIRST
    assert client.get(f"/api/assignments/{held['assignment']}/").json()["codes"] == ANN_FIRST
    listed = client.get("/api/assignments/?study=open").json()["results"]
    assert [a["codes"] for a in listed] == [ANN_FIRST]
    history = client.get(f"/api/items/{held['item']}/history/").json()
    assert [v["codes"] for v in history] == [ANN_FIRST]


def test_a_stale_submit_shows_the_stored_codes(open_study, annotator):
    client = client_for(annotator)
    held = next_item(client, slug="open").json()
    url = f"/api/assignments/{held['assignment']}/submit/"
    client.post(url, {"labels": {}, "codes": ANN_FIRST, "version": 0}, format="json")
    response = client.post(url, {"labels": {}, "codes": ANN_SECOND, "version": 0}, format="json")
    assert response.status_code == 409
    assert response.json()["current"]["codes"] == ANN_FIRST


def test_bad_codes_are_a_400_naming_the_code(open_study, annotator):
    client = client_for(annotator)
    held = next_item(client, slug="open").json()
    url = f"/api/assignments/{held['assignment']}/submit/"
    codes = {"root-cause": ["leak", "cache", "LEAK"], "symptom": ["oom"]}
    response = client.post(url, {"labels": {}, "codes": codes}, format="json")
    assert_error(response, "codes.root-cause[2]", "'LEAK' is given twice")
    assert not CodeUse.objects.exists()
    response = client.post(url, {"labels": {}, "codes": {"symptom": ["oom"]}}, format="json")
    assert_error(response, "labels.root-cause", "choose a category or write a code")


@pytest.mark.parametrize(
    ("code", "words"),
    [("leak \ud800", ["lone surrogate (\\ud800) at character 6"]), ("le\x00ak", ["NUL"])],
)
def test_a_code_no_database_can_hold_is_a_400_naming_it(open_study, annotator, code, words):
    client = client_for(annotator)
    held = next_item(client, slug="open").json()
    url = f"/api/assignments/{held['assignment']}/submit/"
    body = json.dumps({"labels": {}, "codes": {"root-cause": ["cache", code]}})

    response = client.post(url, body, content_type="application/json")

    assert_error(response, "codes.root-cause[1]", *words)
    assert not CodeUse.objects.exists()
    assert Assignment.objects.get(pk=held["assignment"]).status == "held"


def test_a_closed_study_refuses_codes_in_a_submit(annotator):
    closed = LabellingStudyFactory(slug="closed")
    StudyItemFactory(study=closed)
    StudyMemberFactory(study=closed, user=annotator, role="annotator")
    client = client_for(annotator)
    held = next_item(client, slug="closed").json()
    body = {"labels": {"root-cause": "threading"}, "codes": {"root-cause": ["lock"]}}
    response = client.post(f"/api/assignments/{held['assignment']}/submit/", body, format="json")
    assert_error(response, "codes", "closed-coding study")
    assert Assignment.objects.get(pk=held["assignment"]).status == "held"


def test_an_open_study_is_created_from_scratch_and_read_back(lead):
    BugReportFactory.create_batch(3)
    body = {
        "slug": "open-perf",
        "name": "Open perf",
        "kind": "open",
        "codes_shared": True,
        "dimension_names": ["root cause", "symptom"],
        "seed": 1,
    }
    response = client_for(lead).post("/api/studies/", body, format="json")

    assert response.status_code == 201, response.json()
    study = response.json()["study"]
    assert (study["kind"], study["codes_shared"], study["dimensions"]) == (
        "open",
        True,
        ["root-cause", "symptom"],
    )
    assert study["codebook"] == {"key": "open-perf", "version": "open"}
    assert Codebook.objects.get(key="open-perf").frozen
    assert Board.objects.filter(study__slug="open-perf", kind="open").count() == 1
    read = client_for(lead).get("/api/studies/open-perf/").json()
    assert (read["kind"], read["codes_shared"]) == ("open", True)
    # The same body previews the draw.
    assert client_for(lead).post("/api/studies/preview/", body, format="json").status_code == 200


def test_a_study_create_names_what_does_not_go_together(lead):
    BugReportFactory.create_batch(2)
    client = client_for(lead)
    body = {"slug": "s", "name": "S", "seed": 1}
    assert_error(client.post("/api/studies/", body, format="json"), "codebook", "required")
    response = client.post("/api/studies/", {**body, "kind": "open"}, format="json")
    assert_error(response, "codebook", "names the dimensions it codes")
    response = client.post(
        "/api/studies/", {**body, "kind": "open", "dimension_names": ["a", "A"]}, format="json"
    )
    assert_error(response, "dimension_names[1]", "the same dimension as 'a'")
    response = client.post(
        "/api/studies/", {**body, "kind": "open", "codebook_version": "1"}, format="json"
    )
    assert_error(response, "codebook_version", "which codebook")
    assert not Study.objects.filter(slug="s").exists()


def test_a_closed_study_reads_as_closed(lead):
    LabellingStudyFactory(slug="closed")
    StudyMemberFactory(study=Study.objects.get(slug="closed"), user=lead, role="lead")
    read = APIClient()
    read.force_authenticate(lead)
    assert read.get("/api/studies/closed/").json()["kind"] == "closed"
