"""Every study endpoint for every role: annotator, lead, researcher, non-member, anonymous."""

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import Annotation, Assignment, StudyItem
from tests.labeler.conftest import GOOD_LABELS
from tests.labeler.factories import TEST_PASSWORD, StudyMemberFactory
from tests.mining.factories import BugReportFactory

pytestmark = pytest.mark.django_db

ROLES = ["annotator", "lead", "researcher", "outsider", "anonymous"]


@pytest.fixture
def held_call(request, study):
    """Call an endpoint as one of ROLES; `{held}` in the path is the annotator's assignment."""
    annotator = request.getfixturevalue("annotator")
    held = assignment_next(study=study, user=annotator)
    item = held.item

    def do(role, method, path, body=None):
        client = APIClient()
        if role != "anonymous":
            client.force_authenticate(request.getfixturevalue(role))
        path = path.format(slug=study.slug, held=held.pk, item=item.pk)
        return getattr(client, method)(path, body, format="json")

    return do


def expect(statuses: dict[str, int]):
    return pytest.mark.parametrize(("role", "expected"), list(statuses.items()))


def statuses(annotator, lead, researcher, outsider):
    return expect(
        {
            "annotator": annotator,
            "lead": lead,
            "researcher": researcher,
            "outsider": outsider,
            "anonymous": 401,
        }
    )


@statuses(200, 200, 200, 200)
def test_study_list(held_call, role, expected):
    response = held_call(role, "get", "/api/studies/")
    assert response.status_code == expected
    if expected == 200:
        slugs = [s["slug"] for s in response.json()["results"]]
        assert slugs == ([] if role == "outsider" else ["perf"])


@statuses(200, 200, 200, 404)
def test_study_detail(held_call, role, expected):
    response = held_call(role, "get", "/api/studies/{slug}/")
    assert response.status_code == expected
    if expected == 200:
        assert response.json()["dimensions"] == ["root-cause", "impact"]


@statuses(403, 201, 201, 403)
def test_study_create(held_call, study, role, expected):
    BugReportFactory.create_batch(3)
    body = {"slug": f"new-{role}", "name": "New", "codebook": study.codebook.key, "seed": 1}
    response = held_call(role, "post", "/api/studies/", body)
    assert response.status_code == expected
    if expected == 201:
        assert response.json()["batch"]["sample_size"] >= 3


@statuses(403, 200, 200, 403)
def test_sample_preview(held_call, role, expected):
    body = {"sample": {"mode": "confidence", "confidence": 0.95, "margin": 0.05}}
    response = held_call(role, "post", "/api/studies/preview/", body)
    assert response.status_code == expected
    if expected == 200:
        assert response.json()["frame_size"] == response.json()["sample_size"] == 4


@statuses(200, 403, 403, 404)
def test_next(held_call, role, expected):
    response = held_call(role, "post", "/api/studies/{slug}/next/")
    assert response.status_code == expected
    if expected != 200:
        assert set(response.json()) == {"message", "fields"}


@statuses(204, 403, 403, 404)
def test_previous(held_call, role, expected):
    response = held_call(role, "get", "/api/studies/{slug}/previous/")
    assert response.status_code == expected
    if expected != 204:
        assert set(response.json()) == {"message", "fields"}


@statuses(200, 200, 200, 404)
def test_progress(held_call, role, expected):
    response = held_call(role, "get", "/api/studies/{slug}/progress/")
    assert response.status_code == expected
    if expected == 200:
        rows = [(r["annotator"], r["username"]) for r in response.json()["per_annotator"]]
        # The annotator's own row; everyone's for lead and researcher, and the researcher
        # knows annotators by pseudonym only (ann holds an item and has submitted nothing).
        if role == "researcher":
            assert rows == [("(no submission yet)", None)]
        else:
            assert rows == [("ann", "ann")]


@statuses(200, 200, 200, 404)
def test_members_list(held_call, role, expected):
    response = held_call(role, "get", "/api/studies/{slug}/members/")
    assert response.status_code == expected
    if expected == 200:
        assert {m["username"] for m in response.json()} == {"ann", "lead", "res"}


@statuses(403, 200, 403, 404)
def test_members_add(held_call, make_user, role, expected):
    make_user(username="newbie")
    body = {"usernames": ["newbie"], "role": "annotator"}
    response = held_call(role, "post", "/api/studies/{slug}/members/", body)
    assert response.status_code == expected
    if expected == 200:
        rows = [(m["username"], m["role"]) for m in response.json()]
        assert ("newbie", "annotator") in rows


@statuses(403, 201, 403, 404)
def test_batches_add(held_call, role, expected):
    BugReportFactory.create_batch(2)
    response = held_call(role, "post", "/api/studies/{slug}/batches/", {"seed": 3})
    assert response.status_code == expected
    if expected == 201:
        assert (response.json()["number"], response.json()["sample_size"]) == (2, 2)


@statuses(200, 200, 200, 200)
def test_items_list(held_call, role, expected):
    response = held_call(role, "get", "/api/items/?study={slug}")
    assert response.status_code == expected
    if expected == 200:
        assert response.json()["count"] == (4 if role == "lead" else 0)


@statuses(404, 200, 404, 404)
def test_item_detail(held_call, study, role, expected):
    response = held_call(role, "get", "/api/items/{item}/")
    assert response.status_code == expected
    if expected == 200:
        assert response.json()["study"] == study.slug


@statuses(404, 200, 404, 404)
def test_item_priority(held_call, role, expected):
    response = held_call(role, "patch", "/api/items/{item}/", {"priority": 7})
    assert response.status_code == expected
    if expected == 200:
        assert response.json()["priority"] == 7


@statuses(200, 200, 200, 404)
def test_item_history(held_call, role, expected):
    held_call("annotator", "post", "/api/assignments/{held}/submit/", {"labels": GOOD_LABELS})
    response = held_call(role, "get", "/api/items/{item}/history/")
    assert response.status_code == expected
    if expected == 200:
        authors = [v["annotator"] for v in response.json()]
        assert authors == (["ann"] if role in ("annotator", "lead") else [])


@statuses(200, 200, 200, 200)
def test_assignment_list(held_call, role, expected):
    response = held_call(role, "get", "/api/assignments/")
    assert response.status_code == expected
    if expected == 200:
        assert response.json()["count"] == (1 if role in ("annotator", "lead") else 0)


@statuses(200, 200, 404, 404)
def test_assignment_detail(held_call, role, expected):
    assert held_call(role, "get", "/api/assignments/{held}/").status_code == expected


@statuses(200, 403, 403, 404)
def test_submit(held_call, role, expected):
    response = held_call(role, "post", "/api/assignments/{held}/submit/", {"labels": GOOD_LABELS})
    assert response.status_code == expected
    submitted = Assignment.objects.filter(status="submitted").count()
    assert submitted == (1 if expected == 200 else 0)


@statuses(200, 403, 403, 404)
def test_skip(held_call, role, expected):
    response = held_call(role, "post", "/api/assignments/{held}/skip/", {"reason": "cannot_judge"})
    assert response.status_code == expected
    assert Assignment.objects.filter(status="skipped").count() == (1 if expected == 200 else 0)


@statuses(200, 200, 200, 200)
def test_annotation_list(held_call, role, expected):
    held_call("annotator", "post", "/api/assignments/{held}/submit/", {"labels": GOOD_LABELS})
    response = held_call(role, "get", "/api/annotations/")
    assert response.status_code == expected
    if expected == 200:
        assert response.json()["count"] == (2 if role in ("annotator", "lead") else 0)


def submitted_by(user, study) -> Annotation:
    """The first annotation of `user`'s submission on the next item handed to them."""
    assignment = assignment_next(study=study, user=user)
    assignment_submit(assignment_id=assignment.pk, user=user, labels=GOOD_LABELS, seconds=5)
    return Annotation.objects.filter(annotator=user, item=assignment.item).first()


@statuses(200, 200, 404, 404)
def test_annotation_detail_of_the_annotators_own_labels(
    held_call, study, annotator, role, expected
):
    held_call("annotator", "post", "/api/assignments/{held}/submit/", {"labels": GOOD_LABELS})
    annotation = Annotation.objects.filter(annotator=annotator).first()
    response = held_call(role, "get", f"/api/annotations/{annotation.pk}/")
    assert response.status_code == expected
    if expected == 200:
        assert response.json()["annotator"] == "ann"


def test_annotators_are_blind_to_each_others_annotations_until_adjudication(
    study, annotator, second_annotator, lead, researcher
):
    theirs = submitted_by(second_annotator, study)
    path = f"/api/annotations/{theirs.pk}/"
    annotator_client, lead_client, researcher_client = APIClient(), APIClient(), APIClient()
    annotator_client.force_authenticate(annotator)
    lead_client.force_authenticate(lead)
    researcher_client.force_authenticate(researcher)

    assert annotator_client.get(path).status_code == 404
    assert lead_client.get(path).status_code == 200
    assert researcher_client.get(path).status_code == 404

    StudyItem.objects.filter(pk=theirs.item_id).update(adjudicated_at=timezone.now())
    # Final: its researchers read it, by pseudonym; an annotator who did not label it, never.
    assert annotator_client.get(path).status_code == 404
    assert researcher_client.get(path).json()["annotator"] == "A1"
    assert lead_client.get(path).json()["annotator"] == "ann2"


def test_a_lead_who_labels_is_blind_too(study, lead, second_annotator):
    StudyMemberFactory(study=study, user=lead, role="annotator")
    theirs = submitted_by(second_annotator, study)
    client = APIClient()
    client.force_authenticate(lead)

    assert client.get(f"/api/annotations/{theirs.pk}/").status_code == 404


@statuses(200, 200, 200, 200)
def test_schema(held_call, role, expected):
    response = held_call(role, "get", "/api/schema/")
    assert response.status_code == expected
    if expected == 200:
        assert b"/api/annotations/{id}/" in response.content


@pytest.mark.parametrize("role", ["annotator", "lead", "researcher", "outsider"])
def test_every_user_gets_their_token_with_their_password(request, role):
    user = request.getfixturevalue(role)
    response = APIClient().post(
        "/api/auth/token/", {"username": user.username, "password": TEST_PASSWORD}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["token"] == Token.objects.get(user=user).key


@pytest.mark.parametrize(
    "body",
    [{}, {"username": "ann"}, {"username": "ann", "password": "wrong"}],
    ids=["nothing", "no password", "wrong password"],
)
def test_no_token_without_the_right_password(annotator, body):
    response = APIClient().post("/api/auth/token/", body, format="json")
    assert response.status_code == 400
    assert not Token.objects.exists()
