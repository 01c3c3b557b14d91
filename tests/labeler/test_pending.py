"""Whether items may still come to an annotator the hand-out has nothing for."""

import datetime as dt

import pytest
from django.utils import timezone

from labeler.models import Assignment
from labeler.pending import NothingLeft, study_nothing_left
from labeler.services.assignment import assignment_next, assignment_skip, assignment_submit
from tests.labeler.conftest import GOOD_LABELS
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def one_item():
    study = LabellingStudyFactory(overlap=2)
    StudyItemFactory(study=study, position=0)
    return study


def submit_next(study, user):
    held = assignment_next(study=study, user=user)
    return assignment_submit(assignment_id=held.pk, user=user, labels=GOOD_LABELS)


def test_an_item_nobody_took_is_pending(one_item):
    assert study_nothing_left(study=one_item, user=UserFactory()).pending == 1


def test_an_item_held_by_others_is_pending_until_they_submit(one_item):
    first, second, third = UserFactory(), UserFactory(), UserFactory()
    submit_next(one_item, first)
    held = assignment_next(study=one_item, user=second)
    assert assignment_next(study=one_item, user=third) is None

    assert study_nothing_left(study=one_item, user=third).pending == 1

    assignment_submit(assignment_id=held.pk, user=second, labels=GOOD_LABELS)
    assert study_nothing_left(study=one_item, user=third) == NothingLeft(0, None)


def test_a_skip_brings_the_item_back(one_item):
    first, second, third = UserFactory(), UserFactory(), UserFactory()
    submit_next(one_item, first)
    held = assignment_next(study=one_item, user=second)
    assignment_skip(assignment_id=held.pk, user=second, reason="cannot_judge")

    assert study_nothing_left(study=one_item, user=second).pending == 0
    assert study_nothing_left(study=one_item, user=third).pending == 1
    assert assignment_next(study=one_item, user=third).item_id == held.item_id


def test_what_the_user_submitted_or_skipped_is_not_pending_for_them(one_item):
    submitter, skipper = UserFactory(), UserFactory()
    submit_next(one_item, submitter)
    held = assignment_next(study=one_item, user=skipper)
    assignment_skip(assignment_id=held.pk, user=skipper, reason="cannot_judge")

    assert study_nothing_left(study=one_item, user=submitter).pending == 0
    assert study_nothing_left(study=one_item, user=skipper).pending == 0


def test_an_expired_hold_of_the_user_may_come_back_to_them(one_item):
    user = UserFactory()
    held = assignment_next(study=one_item, user=user)
    Assignment.objects.filter(pk=held.pk).update(status="expired")

    assert study_nothing_left(study=one_item, user=user).pending == 1


def test_an_adjudicated_item_is_not_pending(one_item):
    one_item.items.update(adjudicated_at=timezone.now())

    assert study_nothing_left(study=one_item, user=UserFactory()) == NothingLeft(0, None)


def test_retry_after_is_when_the_first_hold_expires_at_most_a_minute(one_item):
    StudyItemFactory(study=one_item, position=1)
    one_item.items.update(needed=1)
    holders = [UserFactory(), UserFactory()]
    for holder in holders:
        assignment_next(study=one_item, user=holder)
    now = timezone.now()
    first, second = Assignment.objects.filter(study=one_item).order_by("pk")
    timeout = one_item.hold_timeout
    Assignment.objects.filter(pk=first.pk).update(held_at=now - timeout + dt.timedelta(seconds=20))
    Assignment.objects.filter(pk=second.pk).update(held_at=now - timeout + dt.timedelta(seconds=40))
    waiting = UserFactory()

    assert study_nothing_left(study=one_item, user=waiting) == NothingLeft(2, 20)

    Assignment.objects.filter(study=one_item).update(held_at=now)
    assert study_nothing_left(study=one_item, user=waiting) == NothingLeft(2, 60)


def test_an_open_item_asks_to_retry_at_once(one_item):
    assignment_next(study=one_item, user=UserFactory())

    assert study_nothing_left(study=one_item, user=UserFactory()) == NothingLeft(1, 1)


def test_one_query(one_item, django_assert_num_queries):
    with django_assert_num_queries(1):
        study_nothing_left(study=one_item, user=UserFactory.build(pk=10**9))
