"""The per-report measures the studies compared (plain Python, no Django).

Fix time is opened -> closed. Fix size sums lines added + deleted over the report's distinct,
non-reverted fix commits (several commits count as one patch); strong links win over weak
ones, and a pull request's own size stands in when no commit size is known. Time to first
comment counts the first comment by someone other than the reporter.
"""

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True)
class FixPart:
    """One fix link's target, as far as its size is concerned."""

    target: str
    strength: str
    reverted: bool
    additions: int | None
    deletions: int | None
    is_commit: bool


@dataclass(frozen=True)
class Measures:
    fix_hours: float | None
    fix_size: int | None
    first_comment_hours: float | None
    comment_count: int
    commenter_count: int
    participant_count: int


def _hours(start: dt.datetime | None, end: dt.datetime | None) -> float | None:
    if start is None or end is None:
        return None
    return max((end - start).total_seconds(), 0.0) / 3600


def fix_size(parts: list[FixPart]) -> int | None:
    usable = [
        p for p in parts if not p.reverted and p.additions is not None and p.deletions is not None
    ]
    for strength in ("strong", "weak"):
        for want_commit in (True, False):
            sizes = {
                p.target: p.additions + p.deletions
                for p in usable
                if p.strength == strength and p.is_commit == want_commit
            }
            if sizes:
                return sum(sizes.values())
    return None


def report_measures(
    *,
    author_login: str,
    created_at: dt.datetime | None,
    closed_at: dt.datetime | None,
    comments: list[tuple[str, dt.datetime]],
    fix_parts: list[FixPart],
) -> Measures:
    """`comments` are (author login, created at); an empty login is a deleted user."""
    responses = [when for who, when in comments if not author_login or who != author_login]
    commenters = {who for who, _ in comments if who}
    participants = commenters | ({author_login} if author_login else set())
    return Measures(
        fix_hours=_hours(created_at, closed_at),
        fix_size=fix_size(fix_parts),
        first_comment_hours=_hours(created_at, min(responses)) if responses else None,
        comment_count=len(comments),
        commenter_count=len(commenters),
        participant_count=len(participants),
    )
