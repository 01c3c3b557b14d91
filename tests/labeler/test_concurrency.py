"""Many annotators asking for "next" and submitting at once, on real PostgreSQL."""

import random
import threading
import time

import pytest
from django.db import connection
from django.db.models import Count

from labeler.models import Assignment, FinalLabel, StudyItem
from labeler.selectors import study_come_back
from labeler.services.assignment import assignment_next, assignment_skip, assignment_submit
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
