"""Handing items out and taking labels in, one request at a time."""

import datetime as dt

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models.expressions import RawSQL
from django.utils import timezone

from labeler.common.permissions import study_access
from labeler.items.selectors import item_history
from labeler.labelling import services as assignment_service
from labeler.labelling.selectors import assignment_previous
from labeler.labelling.services import (
    assignment_expire_stale,
    assignment_next,
    assignment_skip,
    assignment_submit,
)
from labeler.models import Annotation, AnnotationVersion, Assignment, Study, StudyItem
from labeler.studies.selectors import study_progress
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory, UserFactory

pytestmark = pytest.mark.django_db

GOOD = {"root-cause": "memory/leak", "impact": ["speed"]}


@pytest.fixture
def bare_study():
    study = LabellingStudyFactory(overlap=2)
    for position in range(3):
        StudyItemFactory(study=study, position=position)
    return study


def items(study):
    return list(study.items.order_by("position"))


def test_next_hands_out_in_order_and_resumes_a_held_item(bare_study):
    alice = UserFactory()
    first = assignment_next(study=bare_study, user=alice)
    assert first.item == items(bare_study)[0]
    assert first.status == "held"
    assert assignment_next(study=bare_study, user=alice).pk == first.pk
    assert StudyItem.objects.get(pk=first.item_id).claimed == 1


def test_each_item_gets_exactly_k_distinct_annotators(bare_study):
    people = [UserFactory() for _ in range(5)]
    handed = []
    for _ in range(3):
        for person in people:
            assignment = assignment_next(study=bare_study, user=person)
            if assignment is not None:
                assignment_submit(assignment_id=assignment.pk, user=person, labels=GOOD)
                handed.append((assignment.item_id, person.pk))
    assert len(handed) == len(set(handed)) == 6
    for item in items(bare_study):
        assert (item.claimed, item.submitted) == (2, 2)
        assert item.assignments.values("annotator").distinct().count() == 2
    assert all(assignment_next(study=bare_study, user=person) is None for person in people)


def test_priority_order(bare_study):
    bare_study.item_order = Study.ItemOrder.PRIORITY
    bare_study.save()
    last = items(bare_study)[2]
    StudyItem.objects.filter(pk=last.pk).update(priority=5)
    assert assignment_next(study=bare_study, user=UserFactory()).item_id == last.pk


def test_abandoned_hold_returns_to_the_pool(bare_study):
    bare_study.overlap = 1
    bare_study.save()
    StudyItem.objects.filter(study=bare_study).update(needed=1)
    alice, bob = UserFactory(), UserFactory()
    held = assignment_next(study=bare_study, user=alice)
    Assignment.objects.filter(pk=held.pk).update(held_at=timezone.now() - dt.timedelta(hours=1))

    taken = assignment_next(study=bare_study, user=bob)

    assert taken.item_id == held.item_id
    assert Assignment.objects.get(pk=held.pk).status == "expired"
    assert StudyItem.objects.get(pk=held.item_id).claimed == 1
    # Alice's late submission is refused: the item went to Bob.
    with pytest.raises(ValidationError, match="expired"):
        assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD)


def test_the_sweep_runs_only_when_a_hold_is_stale(bare_study, monkeypatch):
    sweeps = []
    sweep = assignment_service.assignment_expire_stale
    monkeypatch.setattr(
        assignment_service, "assignment_expire_stale", lambda **kw: sweeps.append(sweep(**kw))
    )
    alice, bob = UserFactory(), UserFactory()
    held = assignment_next(study=bare_study, user=alice)
    assignment_next(study=bare_study, user=bob)
    assert sweeps == []
    Assignment.objects.filter(pk=held.pk).update(held_at=timezone.now() - dt.timedelta(hours=1))
    assignment_next(study=bare_study, user=UserFactory())
    assert sweeps == [1]


def test_expired_hold_can_still_be_submitted_while_the_item_has_room(bare_study):
    alice = UserFactory()
    held = assignment_next(study=bare_study, user=alice)
    Assignment.objects.filter(pk=held.pk).update(held_at=timezone.now() - dt.timedelta(hours=1))
    assert assignment_expire_stale(study=bare_study) == 1
    assert StudyItem.objects.get(pk=held.item_id).claimed == 0

    assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD)

    item = StudyItem.objects.get(pk=held.item_id)
    assert (item.claimed, item.submitted) == (1, 1)


def test_an_expired_hold_is_handed_back_to_the_same_person(bare_study):
    alice = UserFactory()
    held = assignment_next(study=bare_study, user=alice)
    Assignment.objects.filter(pk=held.pk).update(held_at=timezone.now() - dt.timedelta(hours=1))
    again = assignment_next(study=bare_study, user=alice)
    assert (again.pk, again.item_id, again.status) == (held.pk, held.item_id, "held")
    assert StudyItem.objects.get(pk=held.item_id).claimed == 1


def test_submit_stores_labels_and_first_version(bare_study):
    alice = UserFactory()
    held = assignment_next(study=bare_study, user=alice)
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


def test_revision_keeps_every_version_with_what_changed(bare_study):
    alice = UserFactory()
    held = assignment_next(study=bare_study, user=alice)
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


def test_a_revision_that_leaves_out_note_and_unsure_keeps_them(bare_study):
    alice = UserFactory()
    held = assignment_next(study=bare_study, user=alice)
    assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD, note="why", unsure=True)

    assignment_submit(assignment_id=held.pk, user=alice, labels={"root-cause": "threading"})

    saved = Assignment.objects.get(pk=held.pk)
    assert (saved.version, saved.note, saved.unsure) == (2, "why", True)
    second = AnnotationVersion.objects.get(assignment=held, number=2)
    assert (second.note, second.unsure) == ("why", True)
    assert set(second.changes) == {"root-cause", "impact"}


def test_a_revision_may_still_clear_note_and_unsure(bare_study):
    alice = UserFactory()
    held = assignment_next(study=bare_study, user=alice)
    assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD, note="why", unsure=True)

    assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD, note="", unsure=False)

    saved = Assignment.objects.get(pk=held.pk)
    assert (saved.note, saved.unsure) == ("", False)
    assert AnnotationVersion.objects.get(assignment=held, number=2).changes == {
        "note": {"from": "why", "to": ""},
        "unsure": {"from": True, "to": False},
    }


def test_a_first_submission_without_note_and_unsure_has_none(bare_study):
    alice = UserFactory()
    held = assignment_next(study=bare_study, user=alice)

    assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD)

    saved = Assignment.objects.get(pk=held.pk)
    assert (saved.note, saved.unsure) == ("", False)


def test_invalid_labels_store_nothing(bare_study):
    alice = UserFactory()
    held = assignment_next(study=bare_study, user=alice)
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
def test_bad_submission_fields_are_named(bare_study, fields, name):
    alice = UserFactory()
    held = assignment_next(study=bare_study, user=alice)
    with pytest.raises(ValidationError) as error:
        assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD, **fields)
    assert name in error.value.message_dict


def test_someone_elses_assignment_is_refused(bare_study):
    held = assignment_next(study=bare_study, user=UserFactory())
    with pytest.raises(PermissionDenied):
        assignment_submit(assignment_id=held.pk, user=UserFactory(), labels=GOOD)
    with pytest.raises(PermissionDenied):
        assignment_skip(assignment_id=held.pk, user=UserFactory(), reason="cannot_judge")


def test_no_revision_after_adjudication(bare_study):
    alice = UserFactory()
    held = assignment_next(study=bare_study, user=alice)
    assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD)
    StudyItem.objects.filter(pk=held.item_id).update(adjudicated_at=timezone.now())
    with pytest.raises(ValidationError, match="is final"):
        assignment_submit(assignment_id=held.pk, user=alice, labels={"root-cause": "threading"})


def test_skip_frees_the_place_for_someone_else(bare_study):
    bare_study.overlap = 1
    bare_study.save()
    StudyItem.objects.filter(study=bare_study).update(needed=1)
    alice, bob = UserFactory(), UserFactory()
    held = assignment_next(study=bare_study, user=alice)
    assignment_skip(assignment_id=held.pk, user=alice, reason="not_a_bug", note="a question")

    skipped = Assignment.objects.get(pk=held.pk)
    assert (skipped.status, skipped.skip_reason, skipped.note) == (
        "skipped",
        "not_a_bug",
        "a question",
    )
    assert assignment_next(study=bare_study, user=bob).item_id == held.item_id
    assert assignment_next(study=bare_study, user=alice).item_id != held.item_id
    with pytest.raises(ValidationError, match="skipped"):
        assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD)


def test_skip_needs_a_known_reason_and_no_submission(bare_study):
    alice = UserFactory()
    held = assignment_next(study=bare_study, user=alice)
    with pytest.raises(ValidationError) as error:
        assignment_skip(assignment_id=held.pk, user=alice, reason="bored")
    assert "reason" in error.value.message_dict
    assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD)
    with pytest.raises(ValidationError, match="revise"):
        assignment_skip(assignment_id=held.pk, user=alice, reason="cannot_judge")


def test_previous_walks_back_through_submissions(bare_study):
    alice = UserFactory()
    done = []
    for _ in range(3):
        held = assignment_next(study=bare_study, user=alice)
        assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD)
        done.append(Assignment.objects.get(pk=held.pk))
    assert assignment_previous(study=bare_study, user=alice).pk == done[2].pk
    assert assignment_previous(study=bare_study, user=alice, before=done[2]).pk == done[1].pk
    assert assignment_previous(study=bare_study, user=alice, before=done[0]) is None


def test_history_is_blind_until_adjudicated(bare_study):
    alice, bob, lead = UserFactory(), UserFactory(), UserFactory()
    bare_study.members.create(user=lead, role="lead")
    bare_study.members.create(user=alice, role="annotator")
    # They disagree, so the item is complete but not final.
    for person, labels in ((alice, GOOD), (bob, {"root-cause": "threading"})):
        held = assignment_next(study=bare_study, user=person)
        assignment_submit(assignment_id=held.pk, user=person, labels=labels)
    item = items(bare_study)[0]

    def seen_by(user):
        access = study_access(user=user, study=bare_study)
        return {v.annotator for v in item_history(item=item, user=user, access=access)}

    assert seen_by(alice) == {alice}
    assert seen_by(lead) == {alice, bob}
    item.adjudicated_at = timezone.now()
    item.save()
    assert seen_by(alice) == {alice, bob}


def test_progress_counts(bare_study):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    for person in (alice, bob):
        held = assignment_next(study=bare_study, user=person)
        assignment_submit(assignment_id=held.pk, user=person, labels=GOOD, seconds=30)
    held = assignment_next(study=bare_study, user=alice)
    assignment_skip(assignment_id=held.pk, user=alice, reason="cannot_judge")
    assignment_next(study=bare_study, user=alice)

    progress = study_progress(study=bare_study)
    assert (progress.items, progress.annotations_needed, progress.submitted) == (3, 6, 2)
    assert (progress.complete_items, progress.held, progress.skipped) == (1, 1, 1)
    assert [
        (p.username, p.submitted, p.held, p.skipped, p.seconds) for p in progress.per_annotator
    ] == [
        ("alice", 1, 1, 1, 30),
        ("bob", 1, 0, 0, 30),
    ]
    assert [p.username for p in study_progress(study=bare_study, only_user=bob).per_annotator] == [
        "bob"
    ]


def sequence(study, user, skip_every=0):
    """The items `user` is handed, in order, labelling (or every `skip_every`th skipping) each."""
    handed = []
    while (held := assignment_next(study=study, user=user)) is not None:
        handed.append(held.item_id)
        if skip_every and len(handed) % skip_every == 0:
            assignment_skip(assignment_id=held.pk, user=user, reason="cannot_judge")
        else:
            assignment_submit(assignment_id=held.pk, user=user, labels=GOOD)
    return handed


@pytest.fixture
def twenty_items():
    study = LabellingStudyFactory(overlap=3, seed=11)
    for position in range(20):
        StudyItemFactory(study=study, position=position)
    return study


def test_the_shared_order_hands_everyone_the_same_sequence(twenty_items):
    first, second = sequence(twenty_items, UserFactory()), sequence(twenty_items, UserFactory())

    assert first == second == [item.pk for item in items(twenty_items)]


def test_per_annotator_order_gives_each_annotator_their_own_seeded_permutation(twenty_items):
    twenty_items.item_order = Study.ItemOrder.PER_ANNOTATOR
    twenty_items.save()
    alice, bob, carol = UserFactory(), UserFactory(), UserFactory()
    everything = sorted(item.pk for item in items(twenty_items))

    orders = [
        sequence(twenty_items, user, skip_every=skip)
        for user, skip in ((alice, 0), (bob, 4), (carol, 0))
    ]

    assert all(sorted(order) == everything for order in orders)
    assert len({tuple(order) for order in orders}) == 3
    assert orders[0] != [item.pk for item in items(twenty_items)]
    # Each is the study's items in the annotator's own seeded order: what others took or
    # skipped in between does not change it.
    for user, order in zip((alice, bob, carol), orders, strict=True):
        seed = assignment_service.annotator_order_seed(study_seed=11, user_id=user.pk)
        expected = (
            StudyItem.objects.filter(study=twenty_items)
            .annotate(rank=RawSQL("hashint8extended(position, %s)", [seed]))
            .order_by("rank", "position")
        )
        assert order == [item.pk for item in expected]


def test_an_annotators_own_order_depends_on_the_study_seed_and_the_annotator_only():
    seed = assignment_service.annotator_order_seed

    assert seed(study_seed=11, user_id=5) == seed(study_seed=11, user_id=5)
    assert len({seed(study_seed=s, user_id=u) for s in (11, 12) for u in (5, 6)}) == 4


def test_a_submission_based_on_an_older_version_is_refused_with_the_current_one(bare_study):
    alice = UserFactory()
    held = assignment_next(study=bare_study, user=alice)
    # Two tabs on the same item: both opened it at version 0; the first saves.
    assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD, note="tab one", version=0)

    with pytest.raises(assignment_service.VersionConflict) as conflict:
        assignment_submit(
            assignment_id=held.pk, user=alice, labels={"root-cause": "threading"}, version=0
        )

    assert conflict.value.current == {
        "labels": {"root-cause": ["memory/leak"], "impact": ["speed"]},
        "codes": {},
        "note": "tab one",
        "unsure": False,
        "version": 1,
    }
    assert "version 1 was saved since" in str(conflict.value)
    assert AnnotationVersion.objects.filter(assignment=held).count() == 1
    # Keeping one's own labels: submit again, revising the version now stored.
    kept = assignment_submit(
        assignment_id=held.pk, user=alice, labels={"root-cause": "threading"}, version=1
    )
    assert kept.version == 2
    # Without a version, a submission revises whatever is stored (clients of before).
    assert assignment_submit(assignment_id=held.pk, user=alice, labels=GOOD).version == 3
