"""What "nothing left for you" means when the hand-out has no item for an annotator: done for
good, or items held by others that may still come back (a skip, or a hold that expires,
returns an item to the pool). A read, for the `next` answer; it belongs with the selectors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.db.models import Count, Exists, F, Min, OuterRef, Q
from django.utils import timezone

from labeler.models import Assignment, Study

Status = Assignment.Status
# A skip may return an item at any moment: ask again at least this often.
RETRY_AT_MOST_SECONDS = 60


@dataclass(frozen=True)
class NothingLeft:
    """`pending`: items the user has not taken that still lack annotations; 0 means nothing
    will ever come back to them. `retry_after_seconds`: when to ask again (None when
    `pending` is 0): at once when one of them is open (another request was handing it out),
    else when the first hold on them expires, or sooner."""

    pending: int
    retry_after_seconds: int | None


def study_nothing_left(*, study: Study, user) -> NothingLeft:
    """Whether items may still come to `user` in `study`, in one statement (one snapshot).

    An item is pending for the user while it is not adjudicated, has fewer submissions than it
    needs, and the user has not held (unless the hold expired), submitted or skipped it. Once
    the count is 0 it stays 0: submissions are never taken back.
    """
    taken = Assignment.objects.filter(item=OuterRef("pk"), annotator=user).exclude(
        status=Status.EXPIRED
    )
    counts = (
        study.items.filter(adjudicated_at__isnull=True, submitted__lt=F("needed"))
        .exclude(Exists(taken))
        .aggregate(
            pending=Count("pk", distinct=True),
            open=Count("pk", distinct=True, filter=Q(claimed__lt=F("needed"))),
            first_held=Min("assignments__held_at", filter=Q(assignments__status=Status.HELD)),
        )
    )
    if not counts["pending"]:
        return NothingLeft(pending=0, retry_after_seconds=None)
    wait = RETRY_AT_MOST_SECONDS
    if counts["open"]:
        wait = 1
    elif counts["first_held"] is not None:
        expires_in = counts["first_held"] + study.hold_timeout - timezone.now()
        wait = min(wait, math.ceil(expires_in.total_seconds()))
    return NothingLeft(pending=counts["pending"], retry_after_seconds=max(wait, 1))
