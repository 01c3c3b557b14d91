"""The adjudication API for every role, and what each endpoint answers."""

import pytest
from rest_framework.test import APIClient

from labeler.models import Assignment, FinalLabel, Study, StudyItem
from taxonomy.services import codebook_freeze
from tests.labeler.factories import StudyItemFactory, StudyMemberFactory
from tests.labeler.role_calls import LEAK, statuses

pytestmark = pytest.mark.django_db

DECISION = {
    "decisions": {
        "root-cause": {
            "value": "memory/leak",
            "rationale": "the fix frees the cache",
            "reason": "codebook_ambiguity",
        }
    }
}


@statuses(
    annotator=403,
    other_annotator=403,
    lead=200,
    researcher=403,
    outsider=404,
    anonymous=401,
    staff=200,
)
def test_disagreement_queue(call, items, role, expected):
    response = call(role, "get", "/api/studies/{slug}/disagreements/")
    assert response.status_code == expected
    if expected == 200:
        body = response.json()
        assert body["count"] == 1
        (row,) = body["results"]
        assert (row["item"], row["disputed"], row["share"]) == (
            items["disputed"].pk,
            ["root-cause"],
            0.5,
        )
        assert row["report"] == str(items["disputed"].report)
        assert [d["consensus"] for d in row["dimensions"]] == ["split", "unanimous"]
    else:
        assert set(response.json()) == {"message", "fields"}


def test_the_queue_lists_unanimous_items_apart_and_checks_its_query(call, items):
    response = call("lead", "get", "/api/studies/{slug}/disagreements/?show=unanimous")
    assert [row["item"] for row in response.json()["results"]] == [items["final"].pk]
    assert response.json()["results"][0]["final"] is True

    response = call("lead", "get", "/api/studies/{slug}/disagreements/?dimension=root-kause")
    assert response.status_code == 400
    assert "did you mean 'root-cause'" in response.json()["fields"]["dimension"][0]
    response = call("lead", "get", "/api/studies/{slug}/disagreements/?order=split")
    assert response.status_code == 400
    assert "did you mean 'ordering'" in response.json()["fields"]["order"][0]
    response = call("lead", "get", "/api/studies/{slug}/disagreements/?ordering=-split&page=1")
    assert response.status_code == 200


def test_a_lead_who_labels_in_the_study_does_not_adjudicate(call, study, lead):
    StudyMemberFactory(study=study, user=lead, role="annotator")
    response = call("lead", "get", "/api/items/{disputed}/adjudication/")
    assert response.status_code == 403
    assert "do not label" in response.json()["message"]


@statuses(
    annotator=403,
    other_annotator=403,
    lead=200,
    researcher=403,
    outsider=404,
    anonymous=401,
    staff=200,
)
def test_side_by_side(call, items, role, expected):
    response = call(role, "get", "/api/items/{disputed}/adjudication/")
    assert response.status_code == expected
    if expected == 200:
        body = response.json()
        assert body["report"]["id"] == items["disputed"].report_id
        assert [a["annotator"] for a in body["annotators"]] == ["A1", "A2"]
        assert body["disputed"] == ["root-cause"]


@statuses(
    annotator=403,
    other_annotator=403,
    lead=200,
    researcher=403,
    outsider=404,
    anonymous=401,
    staff=200,
)
def test_real_names_only_for_leads(call, role, expected):
    response = call(role, "get", "/api/items/{disputed}/adjudication/?names=real")
    assert response.status_code == expected
    if expected == 200:
        assert [a["annotator"] for a in response.json()["annotators"]] == ["ann", "ann2"]


@statuses(
    annotator=403,
    other_annotator=403,
    lead=200,
    researcher=403,
    outsider=404,
    anonymous=401,
    staff=200,
)
def test_adjudicate(call, items, role, expected):
    response = call(role, "post", "/api/items/{disputed}/adjudicate/", DECISION)
    assert response.status_code == expected
    decided = FinalLabel.objects.filter(item=items["disputed"], method="adjudicated")
    assert decided.exists() == (expected == 200)
    if expected == 200:
        body = response.json()
        assert body["final"] is True
        root = body["dimensions"][0]
        assert root["final"]["method"] == "adjudicated"
        assert root["final"]["rationale"] == "the fix frees the cache"


def test_adjudicate_refuses_bad_input_naming_the_field(call, items):
    body = {"decisions": {"root-cause": {**DECISION["decisions"]["root-cause"], "value": "x"}}}
    response = call("lead", "post", "/api/items/{disputed}/adjudicate/", body)
    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["decisions.root-cause.value"]

    body = {"decisions": {"root-cause": {"value": "threading", "rationale": "x", "why": "?"}}}
    response = call("lead", "post", "/api/items/{disputed}/adjudicate/", body)
    assert response.status_code == 400
    assert set(response.json()["fields"]) == {
        "decisions.root-cause.why",
        "decisions.root-cause.reason",
    }
    assert not FinalLabel.objects.filter(method="adjudicated").exists()


def test_adjudicating_a_final_item_is_a_conflict(call):
    response = call("lead", "post", "/api/items/{final}/adjudicate/", DECISION)
    assert response.status_code == 409
    assert "is final" in response.json()["message"]
    assert response.json()["fields"] == {}


@statuses(
    annotator=403,
    other_annotator=403,
    lead=200,
    researcher=403,
    outsider=404,
    anonymous=401,
    staff=200,
)
def test_reopen(call, items, role, expected):
    body = {"rationale": "spot check", "dimensions": ["root-cause"]}
    response = call(role, "post", "/api/items/{final}/reopen/", body)
    assert response.status_code == expected
    final_now = StudyItem.objects.get(pk=items["final"].pk).adjudicated_at is not None
    assert final_now == (expected != 200)
    if expected == 200:
        assert response.json()["final"] is False
        assert response.json()["history"][-1]["kind"] == "reopened"


def test_a_revision_of_a_final_item_answers_409_and_one_after_reopening_200(call, items, annotator):
    assignment = Assignment.objects.get(item=items["final"], annotator=annotator)
    path = f"/api/assignments/{assignment.pk}/submit/"
    client = APIClient()
    client.force_authenticate(annotator)

    response = client.post(path, {"labels": {"root-cause": "threading"}}, format="json")
    assert response.status_code == 409
    body = response.json()
    assert body["fields"] == {}
    assert "root-cause: unanimous; impact: unanimous" in body["message"]

    call("lead", "post", "/api/items/{final}/reopen/", {"rationale": "look again"})
    response = client.post(path, {"labels": {"root-cause": "threading"}}, format="json")
    assert response.status_code == 200


@statuses(
    annotator=200,
    other_annotator=403,
    lead=200,
    researcher=200,
    outsider=404,
    anonymous=401,
    staff=200,
)
def test_decisions_of_a_final_item(call, role, expected):
    response = call(role, "get", "/api/items/{final}/decisions/")
    assert response.status_code == expected
    if expected == 200:
        body = response.json()
        assert body["final"] is True
        assert [(d["dimension"], d["method"]) for d in body["labels"]] == [
            ("root-cause", "unanimous"),
            ("impact", "unanimous"),
        ]


@statuses(
    annotator=403,
    other_annotator=403,
    lead=200,
    researcher=403,
    outsider=404,
    anonymous=401,
    staff=200,
)
def test_decisions_of_an_item_not_final_yet(call, role, expected):
    response = call(role, "get", "/api/items/{disputed}/decisions/")
    assert response.status_code == expected
    if expected == 200:
        assert response.json()["disagreed"] == ["root-cause"]
    else:
        assert set(response.json()) == {"message", "fields"}


def test_annotators_see_the_final_label_and_rationale_after_adjudication(call, items):
    call("lead", "post", "/api/items/{disputed}/adjudicate/", DECISION)
    response = call("annotator", "get", "/api/items/{disputed}/decisions/")
    assert response.status_code == 200
    root = response.json()["labels"][0]
    assert (root["values"], root["rationale"], root["reason"]) == (
        ["memory/leak"],
        "the fix frees the cache",
        "codebook_ambiguity",
    )


@statuses(
    annotator=200,
    other_annotator=200,
    lead=200,
    researcher=200,
    outsider=404,
    anonymous=401,
    staff=200,
)
def test_final_labels_list(call, items, role, expected):
    response = call(role, "get", "/api/studies/{slug}/final-labels/")
    assert response.status_code == expected
    if expected == 200:
        seen = {(row["item"], row["dimension"]) for row in response.json()["results"]}
        final = {(items["final"].pk, "root-cause"), (items["final"].pk, "impact")}
        expected_seen = {
            "annotator": final,
            "other_annotator": set(),
            "lead": final | {(items["disputed"].pk, "impact")},
            "researcher": final,
            "staff": final | {(items["disputed"].pk, "impact")},
        }[role]
        assert seen == expected_seen
        assert all("annotator" not in row for row in response.json()["results"])


def test_final_labels_filters(call, items):
    path = "/api/studies/{slug}/final-labels/?dimension=impact&method=unanimous"
    rows = call("lead", "get", path).json()["results"]
    assert {row["item"] for row in rows} == {items["final"].pk, items["disputed"].pk}
    rows = call("lead", "get", f"/api/studies/{{slug}}/final-labels/?item={items['final'].pk}")
    assert {row["dimension"] for row in rows.json()["results"]} == {"root-cause", "impact"}
    response = call("lead", "get", "/api/studies/{slug}/final-labels/?method=voted")
    assert response.status_code == 400
    assert "method" in response.json()["fields"]


@statuses(
    annotator=200,
    other_annotator=200,
    lead=200,
    researcher=200,
    outsider=404,
    anonymous=401,
    staff=200,
)
def test_policy_read(call, role, expected):
    response = call(role, "get", "/api/studies/{slug}/policy/")
    assert response.status_code == expected
    if expected == 200:
        assert response.json() == {"majority": "lead"}


@statuses(
    annotator=403,
    other_annotator=403,
    lead=200,
    researcher=403,
    outsider=404,
    anonymous=401,
    staff=200,
)
def test_policy_change(call, study, role, expected):
    response = call(role, "put", "/api/studies/{slug}/policy/", {"majority": "auto"})
    assert response.status_code == expected
    assert Study.objects.get(pk=study.pk).majority == ("auto" if expected == 200 else "lead")
    if expected == 200:
        assert response.json() == {"majority": "auto", "finalised": 0}


def test_policy_change_refuses_an_unknown_policy(call):
    response = call("lead", "put", "/api/studies/{slug}/policy/", {"majority": "always"})
    assert response.status_code == 400
    assert "majority" in response.json()["fields"]


@pytest.mark.parametrize("path", ["adjudication", "decisions"])
@pytest.mark.parametrize("item", ["abc", "999999", "9" * 30])
def test_unknown_items_answer_404(call, path, item):
    assert call("lead", "get", f"/api/items/{item}/{path}/").status_code == 404


def test_side_by_side_query_count_is_pinned(call, study, django_assert_max_num_queries):
    # As on a running server: the study's codebook version is frozen and its scheme loaded.
    codebook_freeze(codebook=study.codebook)
    assert call("lead", "get", "/api/items/{disputed}/adjudication/").status_code == 200
    # The item; the user's access; pseudonyms; the submitted assignments; their labels; the
    # final labels; their history.
    with django_assert_max_num_queries(7):
        call("lead", "get", "/api/items/{disputed}/adjudication/")


def test_once_adjudicated_annotators_see_every_version_in_the_items_history(call, annotator, items):
    client = APIClient()
    client.force_authenticate(annotator)
    call("lead", "post", "/api/items/{disputed}/adjudicate/", DECISION)
    history = client.get(f"/api/items/{items['disputed'].pk}/history/").json()
    # The other annotator by the study's pseudonym, as the export names them.
    assert {v["annotator"] for v in history} == {"ann", "A2"}
    assert LEAK["root-cause"] in {v["labels"]["root-cause"][0] for v in history}


def test_an_item_nobody_answered_has_no_decision_and_nothing_to_compare(study, lead):
    untouched = StudyItemFactory(study=study, position=99)
    client = APIClient()
    client.force_authenticate(lead)

    decisions = client.get(f"/api/items/{untouched.pk}/decisions/")
    side_by_side = client.get(f"/api/items/{untouched.pk}/adjudication/")

    assert decisions.status_code == 200, decisions.content
    assert (decisions.json()["final"], decisions.json()["disagreed"]) == (False, [])
    assert decisions.json()["history"] == []
    assert side_by_side.status_code == 200, side_by_side.content
    body = side_by_side.json()
    assert body["annotators"] == []
    assert {d["agreement"] for d in body["dimensions"]} == {"unanswered"}
    assert body["disputed"] == []
