"""Handing items out and taking labels in, one request at a time."""

import datetime as dt

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from labeler.models import Annotation, AnnotationVersion, Assignment, Study, StudyItem
from labeler.permissions import study_access
from labeler.selectors import assignment_previous, item_history, study_progress
from labeler.services import assignment as assignment_service
from labeler.services.assignment import (
    assignment_expire_stale,
    assignment_next,
    assignment_skip,
    assignment_submit,
)
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory, UserFactory

pytestmark = pytest.mark.django_db

GOOD = {"root-cause": "memory/leak", "impact": ["speed"]}


@pytest.fixture
def study():
    study = LabellingStudyFactory(overlap=2)
    for position in range(3):
        StudyItemFactory(study=study, position=position)
    return study


def items(study):
    return list(study.items.order_by("position"))


def test_next_hands_out_in_order_and_resumes_a_held_item(study):
    alice = UserFactory()
    first = assignment_next(study=study, user=alice)
    assert first.item == items(study)[0]
    assert first.status == "held"
    assert assignment_next(study=study, user=alice).pk == first.pk
    assert StudyItem.objects.get(pk=first.item_id).claimed == 1


def test_each_item_gets_exactly_k_distinct_annotators(study):
    people = [UserFactory() for _ in range(5)]
    handed = []
    for _ in range(3):
        for person in people:
            assignment = assignment_next(study=study, user=person)
            if assignment is not None:
                assignment_submit(assignment_id=assignment.pk, user=person, labels=GOOD)
                handed.append((assignment.item_id, person.pk))
    assert len(handed) == len(set(handed)) == 6
    for item in items(study):
        assert (item.claimed, item.submitted) == (2, 2)
        assert item.assignments.values("annotator").distinct().count() == 2
    assert all(assignment_next(study=study, user=person) is None for person in people)


def test_priority_order(study):
    study.item_order = Study.ItemOrder.PRIORITY
    study.save()
    last = items(study)[2]
    StudyItem.objects.filter(pk=last.pk).update(priority=5)
    assert assignment_next(study=study, user=UserFactory()).item_id == last.pk


def test_abandoned_hold_returns_to_the_pool(study):
    study.overlap = 1
    study.save()
    StudyItem.objects.filter(study=study).update(needed=1)
    alice, bob = UserFactory(), UserFactory()
    held = assignment_next(study=study, user=alice)
    Assignment.objects.filter(pk=held.pk).update(held_at=timezone.now() - dt.timedelta(hours=1))

    taken = assignment_next(study=study, user=bob)

    assert taken.item_id == held.item_id
    assert Assignment.objects.get(pk=held.pk).status == "expired"
    assert StudyItem.objects.get(pk=held.item_id).claimed == 1
    # Alice's late submission is refused: the item went to Bob.
    with pytest.raises(ValidationError, match="expired"):
        assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD)


def test_the_sweep_runs_only_when_a_hold_is_stale(study, monkeypatch):
    sweeps = []
    sweep = assignment_service.assignment_expire_stale
    monkeypatch.setattr(
        assignment_service, "assignment_expire_stale", lambda **kw: sweeps.append(sweep(**kw))
    )
    alice, bob = UserFactory(), UserFactory()
    held = assignment_next(study=study, user=alice)
    assignment_next(study=study, user=bob)
    assert sweeps == []
    Assignment.objects.filter(pk=held.pk).update(held_at=timezone.now() - dt.timedelta(hours=1))
    assignment_next(study=study, user=UserFactory())
    assert sweeps == [1]


def test_expired_hold_can_still_be_submitted_while_the_item_has_room(study):
    alice = UserFactory()
    held = assignment_next(study=study, user=alice)
    Assignment.objects.filter(pk=held.pk).update(held_at=timezone.now() - dt.timedelta(hours=1))
    assert assignment_expire_stale(study=study) == 1
    assert StudyItem.objects.get(pk=held.item_id).claimed == 0

    assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD)

    item = StudyItem.objects.get(pk=held.item_id)
    assert (item.claimed, item.submitted) == (1, 1)


def test_an_expired_hold_is_handed_back_to_the_same_person(study):
    alice = UserFactory()
    held = assignment_next(study=study, user=alice)
    Assignment.objects.filter(pk=held.pk).update(held_at=timezone.now() - dt.timedelta(hours=1))
    again = assignment_next(study=study, user=alice)
    assert (again.pk, again.item_id, again.status) == (held.pk, held.item_id, "held")
    assert StudyItem.objects.get(pk=held.item_id).claimed == 1


def test_submit_stores_labels_and_first_version(study):
    alice = UserFactory()
    held = assignment_next(study=study, user=alice)
    assignment_submit(
        assignment_id=held.pk, user=alice, labels=GOOD, note="clear", unsure=True, seconds=40
    )
    saved = Assignment.objects.get(pk=held.pk)
    assert (saved.status, saved.version, saved.seconds, saved.unsure) == ("submitted", 1, 40, True)
    annotations = {a.dimension.key: a for a in Annotation.objects.filter(assignment=held)}
    assert annotations["root-cause"].values == ["memory/leak"]
    assert [c.path for c in annotations["root-cause"].categories.all()] == ["memory/leak"]
    version = AnnotationVersion.objects.get(assignment=held)
    assert (version.number, version.labels, version.changes) == (
        1,
        {"root-cause": ["memory/leak"], "impact": ["speed"]},
        {},
    )


def test_revision_keeps_every_version_with_what_changed(study):
    alice = UserFactory()
    held = assignment_next(study=study, user=alice)
    assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD, seconds=10)
    assignment_submit(
        assignment_id=held.pk,
        user=alice,
        labels={"root-cause": "threading"},
        note="on second thought",
        seconds=5,
    )
    saved = Assignment.objects.get(pk=held.pk)
    assert (saved.version, saved.seconds) == (2, 15)
    assert StudyItem.objects.get(pk=held.item_id).submitted == 1
    assert dict(
        Annotation.objects.filter(assignment=held).values_list("dimension__key", "values")
    ) == {"root-cause": ["threading"]}
    second = AnnotationVersion.objects.get(assignment=held, number=2)
    assert second.changes == {
        "impact": {"from": ["speed"], "to": []},
        "root-cause": {"from": ["memory/leak"], "to": ["threading"]},
        "note": {"from": "", "to": "on second thought"},
    }


def test_a_revision_that_leaves_out_note_and_unsure_keeps_them(study):
    alice = UserFactory()
    held = assignment_next(study=study, user=alice)
    assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD, note="why", unsure=True)

    assignment_submit(assignment_id=held.pk, user=alice, labels={"root-cause": "threading"})

    saved = Assignment.objects.get(pk=held.pk)
    assert (saved.version, saved.note, saved.unsure) == (2, "why", True)
    second = AnnotationVersion.objects.get(assignment=held, number=2)
    assert (second.note, second.unsure) == ("why", True)
    assert set(second.changes) == {"root-cause", "impact"}


def test_a_revision_may_still_clear_note_and_unsure(study):
    alice = UserFactory()
    held = assignment_next(study=study, user=alice)
    assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD, note="why", unsure=True)

    assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD, note="", unsure=False)

    saved = Assignment.objects.get(pk=held.pk)
    assert (saved.note, saved.unsure) == ("", False)
    assert AnnotationVersion.objects.get(assignment=held, number=2).changes == {
        "note": {"from": "why", "to": ""},
        "unsure": {"from": True, "to": False},
    }


def test_a_first_submission_without_note_and_unsure_has_none(study):
    alice = UserFactory()
    held = assignment_next(study=study, user=alice)

    assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD)

    saved = Assignment.objects.get(pk=held.pk)
    assert (saved.note, saved.unsure) == ("", False)


def test_invalid_labels_store_nothing(study):
    alice = UserFactory()
    held = assignment_next(study=study, user=alice)
    with pytest.raises(ValidationError) as error:
        assignment_submit(assignment_id=held.pk, user=alice, labels={"root-cause": "memory"})
    assert "labels.root-cause" in error.value.message_dict
    assert not Annotation.objects.exists()
    assert not AnnotationVersion.objects.exists()
    assert Assignment.objects.get(pk=held.pk).status == "held"
    assert StudyItem.objects.get(pk=held.item_id).submitted == 0


@pytest.mark.parametrize(
    ("fields", "name"),
    [({"seconds": -1}, "seconds"), ({"unsure": "yes"}, "unsure"), ({"note": 5}, "note")],
)
def test_bad_submission_fields_are_named(study, fields, name):
    alice = UserFactory()
    held = assignment_next(study=study, user=alice)
    with pytest.raises(ValidationError) as error:
        assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD, **fields)
    assert name in error.value.message_dict


def test_someone_elses_assignment_is_refused(study):
    held = assignment_next(study=study, user=UserFactory())
    with pytest.raises(PermissionDenied):
        assignment_submit(assignment_id=held.pk, user=UserFactory(), labels=GOOD)
    with pytest.raises(PermissionDenied):
        assignment_skip(assignment_id=held.pk, user=UserFactory(), reason="cannot_judge")


def test_no_revision_after_adjudication(study):
    alice = UserFactory()
    held = assignment_next(study=study, user=alice)
    assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD)
    StudyItem.objects.filter(pk=held.item_id).update(adjudicated_at=timezone.now())
    with pytest.raises(ValidationError, match="is final"):
        assignment_submit(assignment_id=held.pk, user=alice, labels={"root-cause": "threading"})


def test_skip_frees_the_place_for_someone_else(study):
    study.overlap = 1
    study.save()
    StudyItem.objects.filter(study=study).update(needed=1)
    alice, bob = UserFactory(), UserFactory()
    held = assignment_next(study=study, user=alice)
    assignment_skip(assignment_id=held.pk, user=alice, reason="not_a_bug", note="a question")

    skipped = Assignment.objects.get(pk=held.pk)
    assert (skipped.status, skipped.skip_reason, skipped.note) == (
        "skipped",
        "not_a_bug",
        "a question",
    )
    assert assignment_next(study=study, user=bob).item_id == held.item_id
    assert assignment_next(study=study, user=alice).item_id != held.item_id
    with pytest.raises(ValidationError, match="skipped"):
        assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD)


def test_skip_needs_a_known_reason_and_no_submission(study):
    alice = UserFactory()
    held = assignment_next(study=study, user=alice)
    with pytest.raises(ValidationError) as error:
        assignment_skip(assignment_id=held.pk, user=alice, reason="bored")
    assert "reason" in error.value.message_dict
    assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD)
    with pytest.raises(ValidationError, match="revise"):
        assignment_skip(assignment_id=held.pk, user=alice, reason="cannot_judge")


def test_previous_walks_back_through_submissions(study):
    alice = UserFactory()
    done = []
    for _ in range(3):
        held = assignment_next(study=study, user=alice)
        assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD)
        done.append(Assignment.objects.get(pk=held.pk))
    assert assignment_previous(study=study, user=alice).pk == done[2].pk
    assert assignment_previous(study=study, user=alice, before=done[2]).pk == done[1].pk
    assert assignment_previous(study=study, user=alice, before=done[0]) is None


def test_history_is_blind_until_adjudicated(study):
    alice, bob, lead = UserFactory(), UserFactory(), UserFactory()
    study.members.create(user=lead, role="lead")
    study.members.create(user=alice, role="annotator")
    # They disagree, so the item is complete but not final.
    for person, labels in ((alice, GOOD), (bob, {"root-cause": "threading"})):
        held = assignment_next(study=study, user=person)
        assignment_submit(assignment_id=held.pk, user=person, labels=labels)
    item = items(study)[0]

    def seen_by(user):
        access = study_access(user=user, study=study)
        return {v.annotator for v in item_history(item=item, user=user, access=access)}

    assert seen_by(alice) == {alice}
    assert seen_by(lead) == {alice, bob}
    item.adjudicated_at = timezone.now()
    item.save()
    assert seen_by(alice) == {alice, bob}


def test_progress_counts(study):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    for person in (alice, bob):
        held = assignment_next(study=study, user=person)
        assignment_submit(assignment_id=held.pk, user=person, labels=GOOD, seconds=30)
    held = assignment_next(study=study, user=alice)
    assignment_skip(assignment_id=held.pk, user=alice, reason="cannot_judge")
    assignment_next(study=study, user=alice)

    progress = study_progress(study=study)
    assert (progress.items, progress.annotations_needed, progress.submitted) == (3, 6, 2)
    assert (progress.complete_items, progress.held, progress.skipped) == (1, 1, 1)
    assert [
        (p.username, p.submitted, p.held, p.skipped, p.seconds) for p in progress.per_annotator
    ] == [
        ("alice", 1, 1, 1, 30),
        ("bob", 1, 0, 0, 30),
    ]
    assert [p.username for p in study_progress(study=study, only_user=bob).per_annotator] == ["bob"]
