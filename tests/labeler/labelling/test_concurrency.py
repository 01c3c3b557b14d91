"""Many annotators asking for "next" and submitting at once, on real PostgreSQL."""

import random
import threading
import time

import pytest
from django.db import connection, transaction
from django.db.models import Count

from labeler.labelling.selectors import study_come_back
from labeler.labelling.services import assignment_next, assignment_skip, assignment_submit
from labeler.models import Assignment, FinalLabel, StudyItem
from tests.labeler.conftest import GOOD_LABELS
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory, UserFactory

ANNOTATORS = 12
ITEMS = 40
OVERLAP = 3


def next_or_none_when_done(study, user):
    """Ask for the next item, as the API's `next` answers: "nothing free now" is final only
    when nothing can come back to this user (no item short of annotations that they have not
    taken), since a held item that another annotator skips, or lets expire, comes back."""
    for _ in range(2000):
        assignment = assignment_next(study=study, user=user)
        if assignment is not None:
            return assignment
        if study_come_back(study=study, user=user).held_by_others == 0:
            return None
        time.sleep(0.005)
    raise AssertionError(f"{user} kept waiting for held items to come back")


def label_until_done(study, user, barrier, errors, skip_rate, seed):
    rng = random.Random(seed)
    try:
        barrier.wait()
        # Bounded: each annotator can take each item at most once.
        for _ in range(ITEMS + 1):
            assignment = next_or_none_when_done(study, user)
            if assignment is None:
                return
            if rng.random() < skip_rate:
                assignment_skip(assignment_id=assignment.pk, user=user, reason="cannot_judge")
            else:
                assignment_submit(assignment_id=assignment.pk, user=user, labels=GOOD_LABELS)
        errors.append(f"{user} still had work after {ITEMS + 1} rounds")
    except Exception as error:  # reported to the main thread, which fails the test
        errors.append(f"{user}: {error!r}")
    finally:
        connection.close()


def run_annotators(study, users, skip_rate):
    barrier = threading.Barrier(len(users))
    errors: list[str] = []
    threads = [
        threading.Thread(
            target=label_until_done, args=(study, user, barrier, errors, skip_rate, index)
        )
        for index, user in enumerate(users)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    return errors


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("skip_rate", [0.0, 0.15])
def test_every_item_gets_exactly_k_annotations_by_k_people(skip_rate):
    study = LabellingStudyFactory(overlap=OVERLAP)
    for position in range(ITEMS):
        StudyItemFactory(study=study, position=position)
    users = [UserFactory() for _ in range(ANNOTATORS)]

    errors = run_annotators(study, users, skip_rate)

    assert errors == []
    submitted = Assignment.objects.filter(study=study, status="submitted")
    per_item = submitted.values("item").annotate(
        people=Count("annotator", distinct=True), total=Count("pk")
    )
    assert len(per_item) == ITEMS
    assert {(row["people"], row["total"]) for row in per_item} == {(OVERLAP, OVERLAP)}
    counters = set(StudyItem.objects.filter(study=study).values_list("claimed", "submitted"))
    assert counters == {(OVERLAP, OVERLAP)}
    # Everyone gave the same labels: the last submission of each item decided it, whichever
    # annotator's it was, having seen every other.
    assert not StudyItem.objects.filter(study=study, adjudicated_at__isnull=True).exists()
    methods = FinalLabel.objects.filter(item__study=study).values_list("method", flat=True)
    assert sorted(set(methods)) == ["unanimous"] and len(methods) == ITEMS * 2
    assert not Assignment.objects.filter(study=study, status="held").exists()
    if skip_rate:
        assert Assignment.objects.filter(study=study, status="skipped").exists()


def a_lock_is_awaited(deadline):
    """Whether another connection of this database is waiting on a row lock, looked for until
    `deadline` (time.monotonic)."""
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND wait_event_type = 'Lock')"
            )
            if cursor.fetchone()[0]:
                return True
            time.sleep(0.01)
    return False


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("order", ["random", "per_annotator"])
def test_the_last_item_being_handed_to_another_annotator_is_still_handed_out(order):
    """Two annotators ask for the last item at once: the one whose hand-out finds it locked by
    the other's waits for it (it needs both), and is not told that nothing is free."""
    study = LabellingStudyFactory(overlap=2, item_order=order)
    item = StudyItemFactory(study=study, position=0)
    first, second = UserFactory(), UserFactory()
    locked, outcome = threading.Event(), {}

    def first_hand_out_in_flight():
        try:
            with transaction.atomic():
                outcome["first"] = assignment_next(study=study, user=first)
                locked.set()
                # Held until the second hand-out waits on the item's lock (or it is clear it
                # never will).
                outcome["awaited"] = a_lock_is_awaited(time.monotonic() + 10)
        finally:
            locked.set()
            connection.close()

    thread = threading.Thread(target=first_hand_out_in_flight)
    thread.start()
    locked.wait(timeout=30)
    second_assignment = assignment_next(study=study, user=second)
    thread.join(timeout=30)

    assert outcome["first"].item_id == item.pk
    assert outcome["awaited"] is True
    assert second_assignment is not None and second_assignment.item_id == item.pk
    assert StudyItem.objects.get(pk=item.pk).claimed == 2
