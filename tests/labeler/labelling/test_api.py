"""Next, submit, skip, previous and the blind rule through the API, as an annotator would use
them; the plain writers of the hot answers say exactly what the documented serializers say."""

import datetime as dt
import json

import pytest
from django.utils import timezone
from rest_framework import serializers

from labeler.common.scheme import study_scheme
from labeler.labelling.api import (
    NextItemSerializer,
    SchemeDimensionSerializer,
    SubmissionSerializer,
    next_item_json,
    submission_data,
)
from labeler.labelling.services import assignment_next, assignment_skip, assignment_submit
from labeler.models import Annotation, AnnotationVersion, Assignment, StudyItem
from mining.serializers import report_reading
from taxonomy.services import codebook_freeze
from tests.labeler.calls import client_for, next_item
from tests.labeler.conftest import GOOD_LABELS
from tests.labeler.factories import (
    TEST_PASSWORD,
    LabellingStudyFactory,
    StudyItemFactory,
    UserFactory,
)
from tests.labeler.ui_factories import report_with_fix
from tests.mining.factories import BugReportFactory, CommentFactory

pytestmark = pytest.mark.django_db


def test_token_auth_then_next_gives_assignment_report_and_scheme(api_client, study, annotator):
    first = study.items.order_by("position").first()
    CommentFactory(report=first.report, body="Same here on 2.1")
    token = api_client.post(
        "/api/auth/token/", {"username": "ann", "password": TEST_PASSWORD}, format="json"
    ).json()["token"]
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token}")

    response = next_item(api_client)

    assert response.status_code == 200
    body = response.json()
    assert body["item"] == first.pk
    assert body["assignment"] == Assignment.objects.get(annotator=annotator).pk
    assert body["report"]["title"] == first.report.title
    assert body["report"]["comments"][0]["body"] == "Same here on 2.1"
    dimensions = {d["key"]: d for d in body["dimensions"]}
    assert list(dimensions) == ["root-cause", "impact"]
    assert [c["path"] for c in dimensions["root-cause"]["categories"]] == [
        "memory",
        "memory/leak",
        "memory/bloat",
        "threading",
    ]
    assert dimensions["root-cause"]["categories"][1]["parent"] == "memory"
    assert dimensions["impact"]["multiple"] is True


def label_all_four(client):
    for _ in range(4):
        assignment = next_item(client).json()["assignment"]
        response = client.post(
            f"/api/assignments/{assignment}/submit/", {"labels": GOOD_LABELS}, format="json"
        )
        assert response.status_code == 200


def test_nothing_left_answers_204(study, annotator, second_annotator):
    client = client_for(annotator)
    label_all_four(client)
    response = next_item(client)
    assert response.status_code == 204
    assert response.content == b""


def test_nothing_left_but_items_wait_for_annotators_the_study_lacks(study, annotator):
    """Overlap 2 and one annotator: the items wait for an annotator nobody has added."""
    client = client_for(annotator)
    label_all_four(client)

    response = next_item(client)

    assert response.status_code == 200
    body = response.json()
    assert body["assignment"] is None and body["waiting_for_others"] == 4
    assert "overlap 2" in body["overlap_warning"] and "only 1" in body["overlap_warning"]


def test_nothing_free_but_items_held_by_others_says_when_to_look_again(make_user):
    study = LabellingStudyFactory(slug="two", overlap=2)
    first, second = (StudyItemFactory(study=study, position=p) for p in range(2))
    me, d, b, c = (make_user(username=name) for name in ("me", "d", "b", "c"))
    for user in (me, d, b, c):
        study.members.create(user=user, role="annotator")
    clients = {user: client_for(user) for user in (me, d, b, c)}
    mine = next_item(clients[me], "two").json()
    submit(clients[me], mine["assignment"])
    # The first item is full (mine and d's hold), but I labelled it: it cannot come back to
    # me. The second is held by b (for 10 minutes now) and c.
    holds = {user: next_item(clients[user], "two").json() for user in (d, b, c)}
    assert [holds[u]["item"] for u in (d, b, c)] == [first.pk, second.pk, second.pk]
    Assignment.objects.filter(pk=holds[b]["assignment"]).update(
        held_at=timezone.now() - dt.timedelta(minutes=10)
    )

    response = next_item(clients[me], "two")

    assert response.status_code == 200
    body = response.json()
    assert (body["assignment"], body["held_by_others"]) == (None, 1)
    assert 20 * 60 - 5 <= body["retry_after_seconds"] <= 20 * 60
    assert response["Retry-After"] == str(body["retry_after_seconds"])

    for user in (d, b, c):
        submit(clients[user], holds[user]["assignment"])
    done = next_item(clients[me], "two")
    assert done.status_code == 204


def test_next_gives_the_version_a_submit_revises(study, annotator):
    client = client_for(annotator)
    held = next_item(client).json()
    assert held["version"] == 0
    first = client.post(
        f"/api/assignments/{held['assignment']}/submit/",
        {"labels": GOOD_LABELS, "version": 0},
        format="json",
    )
    assert first.status_code == 200
    assert client.get("/api/studies/perf/previous/").json()["version"] == 1


def test_a_submit_of_an_older_version_is_a_409_with_both(study, annotator):
    """Two tabs on one item: the second tab's submit does not replace the first's."""
    client = client_for(annotator)
    held = next_item(client).json()
    url = f"/api/assignments/{held['assignment']}/submit/"
    client.post(url, {"labels": GOOD_LABELS, "note": "tab one", "version": 0}, format="json")

    response = client.post(
        url, {"labels": {"root-cause": "threading"}, "version": 0}, format="json"
    )

    assert response.status_code == 409
    body = response.json()
    assert set(body) == {"message", "fields", "current"}
    assert "version 1 was saved since" in body["message"]
    assert list(body["fields"]) == ["version"]
    assert body["current"] == {
        "labels": {"root-cause": ["memory/leak"], "impact": ["speed"]},
        "codes": {},
        "note": "tab one",
        "unsure": False,
        "version": 1,
    }
    assert Assignment.objects.get(pk=held["assignment"]).version == 1
    kept = client.post(url, {"labels": {"root-cause": "threading"}, "version": 1}, format="json")
    assert (kept.status_code, kept.json()["version"]) == (200, 2)


def test_a_note_too_long_is_refused_naming_the_note_and_its_limit(study, annotator):
    client = client_for(annotator)
    held = next_item(client).json()

    response = client.post(
        f"/api/assignments/{held['assignment']}/submit/",
        {"labels": GOOD_LABELS, "note": "x" * 20_000},
        format="json",
    )

    assert response.status_code == 400
    assert response.json()["message"] == "note: at most 10,000 characters"


def test_previous_refuses_an_unknown_query_parameter(study, annotator):
    response = client_for(annotator).get("/api/studies/perf/previous/?befor=3")

    assert response.status_code == 400
    assert response.json()["message"] == (
        "befor: unknown query parameter 'befor': did you mean 'before'?"
    )


def test_submit_answers_the_stored_submission(study, annotator):
    client = client_for(annotator)
    assignment = next_item(client).json()["assignment"]
    response = client.post(
        f"/api/assignments/{assignment}/submit/",
        {"labels": GOOD_LABELS, "note": "leak in cache", "unsure": True, "seconds": 42},
        format="json",
    )
    assert response.status_code == 200
    body = response.json()
    assert body["labels"] == {"root-cause": ["memory/leak"], "impact": ["speed"]}
    assert (body["status"], body["version"], body["seconds"], body["unsure"]) == (
        "submitted",
        1,
        42,
        True,
    )


@pytest.mark.parametrize(
    ("labels", "field", "words"),
    [
        ({"root-cause": "threading", "severity": "high"}, "labels.severity", "does not label"),
        ({"root-cause": "speed"}, "labels.root-cause", "category of dimension 'impact'"),
        ({"root-cause": "memory"}, "labels.root-cause", "has sub-categories"),
        ({"impact": ["speed"]}, "labels.root-cause", "required"),
        ({"root-cause": "memory/leek"}, "labels.root-cause", "did you mean 'memory/leak'"),
        ("threading", "labels", "dictionary"),
    ],
)
def test_invalid_labels_400_naming_the_field_and_nothing_stored(
    study, annotator, labels, field, words
):
    client = client_for(annotator)
    assignment = next_item(client).json()["assignment"]
    response = client.post(
        f"/api/assignments/{assignment}/submit/", {"labels": labels}, format="json"
    )
    assert response.status_code == 400
    body = response.json()
    assert field in body["fields"]
    assert words in body["fields"][field][0]
    assert body["message"].startswith(f"{field}: ")
    assert not Annotation.objects.exists()
    assert not AnnotationVersion.objects.exists()
    assert Assignment.objects.get(pk=assignment).status == "held"


@pytest.mark.parametrize(
    ("extra", "field"), [({"seconds": -3}, "seconds"), ({"unsure": "maybe"}, "unsure")]
)
def test_invalid_submission_fields(study, annotator, extra, field):
    client = client_for(annotator)
    assignment = next_item(client).json()["assignment"]
    response = client.post(
        f"/api/assignments/{assignment}/submit/", {"labels": GOOD_LABELS, **extra}, format="json"
    )
    assert response.status_code == 400
    assert field in response.json()["fields"]


def test_someone_elses_assignment_403_and_nothing_stored(study, annotator, second_annotator):
    assignment = next_item(client_for(annotator)).json()["assignment"]
    response = client_for(second_annotator).post(
        f"/api/assignments/{assignment}/submit/", {"labels": GOOD_LABELS}, format="json"
    )
    assert response.status_code == 403
    assert "another annotator" in response.json()["message"]
    assert not Annotation.objects.exists()


def test_unknown_assignment_404(study, annotator):
    response = client_for(annotator).post(
        "/api/assignments/999999/submit/", {"labels": GOOD_LABELS}, format="json"
    )
    assert response.status_code == 404


def test_revision_through_the_api_keeps_history(study, annotator):
    client = client_for(annotator)
    assignment = next_item(client).json()["assignment"]
    client.post(f"/api/assignments/{assignment}/submit/", {"labels": GOOD_LABELS}, format="json")
    response = client.post(
        f"/api/assignments/{assignment}/submit/",
        {"labels": {"root-cause": "threading"}},
        format="json",
    )
    assert response.json()["version"] == 2
    item = Assignment.objects.get(pk=assignment).item_id
    history = client.get(f"/api/items/{item}/history/").json()
    assert [v["number"] for v in history] == [1, 2]
    assert history[1]["changes"]["root-cause"] == {"from": ["memory/leak"], "to": ["threading"]}


def test_a_revision_through_the_api_without_note_or_unsure_keeps_them(study, annotator):
    client = client_for(annotator)
    assignment = next_item(client).json()["assignment"]
    first = {"labels": GOOD_LABELS, "note": "looks like a leak", "unsure": True}
    client.post(f"/api/assignments/{assignment}/submit/", first, format="json")

    response = client.post(
        f"/api/assignments/{assignment}/submit/",
        {"labels": {"root-cause": "threading"}},
        format="json",
    )

    assert response.status_code == 200
    assert (response.json()["note"], response.json()["unsure"]) == ("looks like a leak", True)
    saved = Assignment.objects.get(pk=assignment)
    assert (saved.note, saved.unsure) == ("looks like a leak", True)


def test_submit_takes_json_only(study, annotator):
    client = client_for(annotator)
    assignment = next_item(client).json()["assignment"]

    response = client.post(
        f"/api/assignments/{assignment}/submit/", {"labels": "x"}, format="multipart"
    )

    assert response.status_code == 415
    assert Assignment.objects.get(pk=assignment).status == "held"


def test_blind_until_adjudicated(study, annotator, second_annotator, lead):
    for user, labels in ((annotator, GOOD_LABELS), (second_annotator, {"root-cause": "threading"})):
        client = client_for(user)
        assignment = next_item(client).json()["assignment"]
        client.post(f"/api/assignments/{assignment}/submit/", {"labels": labels}, format="json")

    def seen(user, path):
        return {row["annotator"] for row in client_for(user).get(path).json()["results"]}

    assert seen(annotator, "/api/annotations/?study=perf") == {"ann"}
    assert seen(annotator, "/api/assignments/?study=perf") == {"ann"}
    assert seen(second_annotator, "/api/annotations/") == {"ann2"}
    assert seen(lead, "/api/annotations/?study=perf") == {"ann", "ann2"}
    assert seen(lead, "/api/assignments/?study=perf") == {"ann", "ann2"}

    StudyItem.objects.filter(study=study).update(adjudicated_at=timezone.now())
    # Final items they labelled: the other annotator by the study's pseudonym.
    assert seen(annotator, "/api/annotations/?study=perf") == {"ann", "A2"}


def test_skip_is_listed_for_the_lead(study, annotator, lead):
    client = client_for(annotator)
    assignment = next_item(client).json()["assignment"]
    response = client.post(
        f"/api/assignments/{assignment}/skip/",
        {"reason": "not_enough_information", "note": "no repro"},
        format="json",
    )
    assert response.status_code == 200
    skipped = client_for(lead).get("/api/assignments/?study=perf&status=skipped").json()
    assert [(a["annotator"], a["skip_reason"], a["note"]) for a in skipped["results"]] == [
        ("ann", "not_enough_information", "no repro")
    ]
    items = client_for(lead).get("/api/items/?study=perf&skipped=true").json()["results"]
    assert [i["id"] for i in items] == [Assignment.objects.get(pk=assignment).item_id]


def test_skip_with_unknown_reason(study, annotator):
    client = client_for(annotator)
    assignment = next_item(client).json()["assignment"]
    response = client.post(f"/api/assignments/{assignment}/skip/", {"reason": "meh"}, format="json")
    assert response.status_code == 400
    assert "reason" in response.json()["fields"]


def test_next_and_submit_query_counts_are_pinned(
    study, annotator, second_annotator, django_assert_max_num_queries
):
    # As on a running server: the study's codebook version is frozen and its scheme loaded.
    codebook_freeze(codebook=study.codebook)
    first = client_for(annotator)
    assignment = next_item(first).json()["assignment"]
    # Whose assignment; savepoint; lock; every write in one statement; release.
    with django_assert_max_num_queries(5):
        first.post(f"/api/assignments/{assignment}/submit/", {"labels": GOOD_LABELS}, format="json")

    client = client_for(second_annotator)
    # Study and membership; the user's hold and stale holds; the hand-out; the report with its
    # comments.
    with django_assert_max_num_queries(4):
        assignment = next_item(client).json()["assignment"]
    # The submission that completes the item, as above, and the automatic decision: the item's
    # answers, then its final labels written in one statement.
    with django_assert_max_num_queries(7):
        response = client.post(
            f"/api/assignments/{assignment}/submit/", {"labels": GOOD_LABELS}, format="json"
        )
    assert response.status_code == 200
    assert StudyItem.objects.get(pk=response.json()["item"]).adjudicated_at is not None
    # A reload gives the held item back: the held assignment instead of the hand-out.
    assignment = next_item(client).json()["assignment"]
    with django_assert_max_num_queries(4):
        assert next_item(client).json()["assignment"] == assignment


def submit(client, assignment, labels=GOOD_LABELS):
    response = client.post(
        f"/api/assignments/{assignment}/submit/", {"labels": labels}, format="json"
    )
    assert response.status_code == 200
    return response.json()


def test_previous_walks_back_through_my_submissions(study, annotator, second_annotator):
    client = client_for(annotator)
    assert client.get("/api/studies/perf/previous/").status_code == 204
    done = []
    for labels in (GOOD_LABELS, {"root-cause": "threading"}):
        assignment = next_item(client).json()["assignment"]
        done.append(submit(client, assignment, labels)["id"])
    other = next_item(client_for(second_annotator)).json()["assignment"]
    submit(client_for(second_annotator), other)

    latest = client.get("/api/studies/perf/previous/").json()
    assert (latest["id"], latest["labels"]) == (done[1], {"root-cause": ["threading"]})
    assert latest["report"] == str(Assignment.objects.get(pk=done[1]).item.report)
    earlier = client.get(f"/api/studies/perf/previous/?before={done[1]}").json()
    assert (earlier["id"], earlier["labels"]) == (
        done[0],
        {"root-cause": ["memory/leak"], "impact": ["speed"]},
    )
    response = client.get(f"/api/studies/perf/previous/?before={done[0]}")
    assert response.status_code == 204


@pytest.mark.parametrize("before", ["abc", "0", "other", "999999"])
def test_previous_before_must_be_an_assignment_of_mine(study, annotator, second_annotator, before):
    if before == "other":
        before = next_item(client_for(second_annotator)).json()["assignment"]
    response = client_for(annotator).get(f"/api/studies/perf/previous/?before={before}")
    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["before"]


class SchemeNextItemSerializer(NextItemSerializer):
    """NextItemSerializer with its dimensions filled in the ordinary way."""

    dimensions = serializers.SerializerMethodField()

    def get_dimensions(self, assignment):
        scheme = self.context["scheme"]
        return SchemeDimensionSerializer(
            scheme.dimensions, many=True, context={"scheme": scheme}
        ).data


@pytest.mark.parametrize("closed", [True, False])
def test_next_item_json_is_what_the_serializer_says(closed):
    study = LabellingStudyFactory()
    codebook_freeze(codebook=study.codebook)
    closed_at = dt.datetime(2022, 3, 1, 8, 30, 15, 123456, tzinfo=dt.UTC) if closed else None
    report = BugReportFactory(labels=["perf", "ünïcode"], closed_at=closed_at)
    if closed:
        report_with_fix(report)  # a commit and a pull request
    later, earlier = (
        CommentFactory(
            report=report, created_at=dt.datetime(2022, 2, day, 9, 0, 0, micro, tzinfo=dt.UTC)
        )
        for day, micro in ((2, 0), (1, 654321))
    )
    StudyItemFactory(study=study, report=report)
    assignment = assignment_next(study=study, user=UserFactory())
    scheme = study_scheme(study=study)

    codes = {"root-cause": ["cache never shrinks"]}
    written = json.loads(
        next_item_json(
            assignment, report_reading(report_id=assignment.item_report_id), scheme, codes
        )
    )

    expected = json.loads(
        json.dumps(
            SchemeNextItemSerializer(assignment, context={"scheme": scheme, "codes": codes}).data
        )
    )
    assert written == expected
    assert list(written) == list(expected)
    assert list(written["report"]) == list(expected["report"])
    assert [c["body"] for c in written["report"]["comments"]] == [earlier.body, later.body]
    assert (written["report"]["closed_at"] is None) == (not closed)


def test_submission_data_is_what_the_serializer_says():
    study = LabellingStudyFactory()
    for position in range(2):
        StudyItemFactory(study=study, position=position)
    user = UserFactory()
    held = assignment_next(study=study, user=user)
    submitted = assignment_submit(
        assignment_id=held.pk, user=user, labels=GOOD_LABELS, note="ok", seconds=3
    )
    skipped = assignment_skip(
        assignment_id=assignment_next(study=study, user=user).pk, user=user, reason="not_a_bug"
    )

    codes = {"root-cause": ["cache never shrinks"]}
    for assignment, labels in ((submitted, submitted.labels), (skipped, {})):
        expected = SubmissionSerializer(assignment, context={"labels": labels, "codes": codes})
        assert submission_data(assignment, labels, codes) == expected.data


def test_progress_says_how_many_items_are_still_open_to_you(study, annotator, second_annotator):
    """Your share of the work is submitted out of submitted + open_to_you: what you hold and
    what you may still take, not what you skipped, what is final or what others filled."""
    client = client_for(annotator)
    items = list(study.items.order_by("position"))

    def mine():
        body = client.get("/api/studies/perf/progress/").json()
        (row,) = [r for r in body["per_annotator"] if r["username"] == "ann"] or [{}]
        return row.get("submitted", 0), body["open_to_you"]

    assert mine() == (0, 4)
    held = assignment_next(study=study, user=annotator)
    assert mine() == (0, 4)  # the one held is still open to you
    assignment_submit(assignment_id=held.pk, user=annotator, labels=GOOD_LABELS, seconds=3)
    assert mine() == (1, 3)
    skipped = assignment_next(study=study, user=annotator)
    assignment_skip(assignment_id=skipped.pk, user=annotator, reason="cannot_judge")
    assert mine() == (1, 2)
    assignment_next(study=study, user=second_annotator)  # another's hold leaves room for you
    assert mine() == (1, 2)
    StudyItem.objects.filter(pk=items[3].pk).update(claimed=2)  # full: others hold both places
    assert mine() == (1, 1)
    StudyItem.objects.filter(pk=items[3].pk).update(claimed=0, adjudicated_at=timezone.now())
    assert mine() == (1, 1)  # final, so no longer open either
