"""The adjudication desk's API: the next disagreement for every role, and a decision refused
(409, with what changed) when the item's labels changed since the lead read them, every
decision kept in the item's history."""

import pytest

from labeler.adjudication.services import item_adjudicate
from labeler.common.roles import Role
from labeler.labelling.services import assignment_submit
from labeler.models import Assignment, FinalLabel, FinalLabelEvent
from tests.labeler.factories import StudyMemberFactory
from tests.labeler.role_calls import LEAK, THREADS, labelled, statuses

pytestmark = pytest.mark.django_db

NEXT = "/api/studies/{slug}/disagreements/next/"
ROOT = {"value": "threading", "rationale": "the lock is taken twice", "reason": "annotator_slip"}


def decide(call, seen, root=ROOT):
    body = {"decisions": {"root-cause": root}, "seen": seen}
    return call("lead", "post", "/api/items/{disputed}/adjudicate/", body)


def seen_now(call):
    return call("lead", "get", "/api/items/{disputed}/adjudication/").json()["seen"]


@statuses(
    annotator=403,
    other_annotator=403,
    lead=200,
    researcher=403,
    outsider=404,
    anonymous=401,
    staff=200,
)
def test_next_disagreement(call, items, role, expected):
    response = call(role, "get", NEXT)
    assert response.status_code == expected
    if expected == 200:
        body = response.json()
        assert (body["item"], body["queue"], body["disputed"]) == (
            items["disputed"].pk,
            1,
            ["root-cause"],
        )
        assert [a["annotator"] for a in body["annotators"]] == ["A1", "A2"]
        assignments = Assignment.objects.filter(item=items["disputed"])
        assert body["seen"]["assignments"] == {str(a.pk): 1 for a in assignments}
        assert body["seen"]["finals"]["root-cause"] is None
        assert body["seen"]["finals"]["impact"] is not None  # unanimous: final on its own
    else:
        assert "A1" not in response.content.decode()


def test_next_walks_the_queue_after_the_item_read_and_is_204_when_it_is_done(
    call, items, study, annotator, second_annotator
):
    other = labelled(study, annotator, THREADS).item
    labelled(study, second_annotator, {"root-cause": "memory/leak", "impact": ["memory-use"]})
    first = call("lead", "get", NEXT + "?ordering=position").json()
    assert (first["item"], first["queue"]) == (items["disputed"].pk, 2)
    after = call("lead", "get", NEXT + f"?ordering=position&after={first['item']}").json()
    assert after["item"] == other.pk
    # Wrapping round: the item passed over comes back, never the one read.
    wrapped = call("lead", "get", NEXT + f"?ordering=position&after={other.pk}").json()
    assert wrapped["item"] == items["disputed"].pk
    assert call("lead", "get", NEXT + "?dimension=impact").json()["item"] == other.pk

    assert decide(call, first["seen"]).status_code == 200
    assert call("lead", "get", NEXT + f"?after={items['disputed'].pk}").json()["item"] == other.pk
    response = call("lead", "get", NEXT + f"?after={other.pk}")
    assert (response.status_code, response.content) == (204, b"")


def test_next_checks_its_query_naming_the_parameter(call):
    for query, field in (
        ("after=abc", "after"),
        ("after=0", "after"),
        ("ordering=worst", "ordering"),
        ("dimension=root-kause", "dimension"),
        ("aftr=1", "aftr"),
    ):
        response = call("lead", "get", NEXT + "?" + query)
        assert response.status_code == 400, query
        assert list(response.json()["fields"]) == [field], query


def test_next_shows_real_names_to_leads_only(call, study, lead):
    body = call("lead", "get", NEXT + "?names=real").json()
    assert [a["annotator"] for a in body["annotators"]] == ["ann", "ann2"]
    StudyMemberFactory(study=study, user=lead, role="annotator")
    response = call("lead", "get", NEXT + "?names=real")
    assert response.status_code == 403
    assert "do not label" in response.json()["message"]
    assert "ann2" not in response.content.decode()


def test_a_decision_on_labels_revised_since_they_were_read_is_refused_with_what_changed(
    call, items, second_annotator
):
    seen = seen_now(call)
    revised = Assignment.objects.get(item=items["disputed"], annotator=second_annotator)
    assignment_submit(
        assignment_id=revised.pk, user=second_annotator, labels=LEAK | {"impact": []}, version=1
    )

    response = decide(call, seen)
    assert response.status_code == 409
    body = response.json()
    assert body["message"].startswith(
        f"the labels of item {items['disputed'].pk} changed since you read them: "
        "A2 revised root-cause, impact (version 1, now 2)"
    )
    assert body["fields"] == {"seen": [body["message"]]}
    change, *finals = body["changes"]
    assert (change["annotator"], change["change"], change["seen_version"], change["version"]) == (
        "A2",
        "revised",
        1,
        2,
    )
    assert change["dimensions"] == ["root-cause", "impact"]
    # The revision settled the root cause on its own and withdrew the impact's final label.
    assert [(f["dimension"], f["change"]) for f in finals] == [
        ("root-cause", "decided"),
        ("impact", "withdrawn"),
    ]
    # What is there now, to read again: A2 agrees with A1 on the root cause.
    assert body["current"]["seen"]["assignments"][str(revised.pk)] == 2
    assert body["current"]["disputed"] == ["impact"]
    assert not FinalLabel.objects.filter(item=items["disputed"], method="adjudicated").exists()
    assert not FinalLabelEvent.objects.filter(item=items["disputed"], user__isnull=False).exists()

    root = {**ROOT, "value": "memory/leak"}
    body = {
        "decisions": {"impact": {**root, "value": ["speed"]}, "root-cause": root},
        "seen": body["current"]["seen"],
    }
    response = call("lead", "post", "/api/items/{disputed}/adjudicate/", body)
    assert response.status_code == 200
    assert response.json()["final"] is True


def test_a_decision_after_another_leads_decision_is_refused(call, items, study, make_user):
    seen = seen_now(call)
    other_lead = make_user(Role.LEAD, username="lead2")
    StudyMemberFactory(study=study, user=other_lead, role="lead")
    item_adjudicate(
        item_id=items["disputed"].pk,
        user=other_lead,
        decisions={"impact": {"value": [], "rationale": "no impact", "reason": "other"}},
    )

    response = decide(call, seen)
    assert response.status_code == 409
    assert response.json()["changes"] == [
        {"dimension": "impact", "change": "replaced", "text": "impact's final label was replaced"}
    ]
    assert FinalLabel.objects.get(item=items["disputed"], dimension__key="impact").values == []


def test_a_decision_checks_what_was_seen_naming_the_field(call, items):
    seen = seen_now(call)
    for bad, field in (
        ({**seen, "assignments": {"x1": 1}}, "seen.assignments"),
        ({**seen, "assignments": {"1": -1}}, "seen.assignments.1"),
        ({"assignments": seen["assignments"]}, "seen.finals"),
        ({**seen, "extra": 1}, "seen.extra"),
    ):
        response = decide(call, bad)
        assert response.status_code == 400, bad
        assert list(response.json()["fields"]) == [field], bad
    assert not FinalLabel.objects.filter(method="adjudicated").exists()


def test_every_decision_keeps_its_history(call, items, lead):
    assert decide(call, seen_now(call)).status_code == 200
    reopened = call(
        "lead", "post", "/api/items/{disputed}/reopen/", {"rationale": "look again"}
    ).json()
    again = {**ROOT, "value": "memory/leak", "reason": "codebook_ambiguity"}
    response = decide(call, reopened["seen"], again)
    assert response.status_code == 200

    history = [
        (event["kind"], event["dimension"], event["values"], event["by"], event["reason"])
        for event in response.json()["history"]
        if event["dimension"] == "root-cause"
    ]
    assert history == [
        ("decided", "root-cause", ["threading"], "lead", "annotator_slip"),
        ("reopened", "root-cause", ["threading"], "lead", ""),
        ("decided", "root-cause", ["memory/leak"], "lead", "codebook_ambiguity"),
    ]
    assert FinalLabelEvent.objects.filter(item=items["disputed"], user=lead).count() == 4


def test_a_decision_without_seen_is_not_checked(call, items, second_annotator):
    revised = Assignment.objects.get(item=items["disputed"], annotator=second_annotator)
    labels = THREADS | {"impact": []}
    assignment_submit(assignment_id=revised.pk, user=second_annotator, labels=labels, version=1)
    body = {"decisions": {"root-cause": ROOT}}
    response = call("lead", "post", "/api/items/{disputed}/adjudicate/", body)
    assert response.status_code == 200
