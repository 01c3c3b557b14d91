"""The sampling frame of a study: which imported reports it draws its items from.

A frame is stored on the study as JSON so the same query can be run again for a later batch.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from django.core.exceptions import ValidationError
from django.db.models import DateTimeField, JSONField, Q, QuerySet, TextField

from mining.models import BugReport, Repository


class Candidates(StrEnum):
    PERFORMANCE = "performance"
    ACCURACY = "accuracy"
    ANY = "any"


class StateFilter(StrEnum):
    OPEN = "open"
    CLOSED = "closed"
    ALL = "all"


FRAME_FIELDS = {
    "repositories",
    "candidates",
    "state",
    "has_fix",
    "labels",
    "created_from",
    "created_to",
}
# Stratifying by "repository" groups by its owner/name; other report fields group by value.
REPOSITORY_STRATUM = "repository"


def _choice(enum: type[StrEnum], name: str, value):
    try:
        return enum(value)
    except ValueError:
        choices = ", ".join(member.value for member in enum)
        raise ValidationError({name: f"{value!r} is not one of {choices}"}) from None


def _date(name: str, value) -> dt.date | None:
    if value in (None, ""):
        return None
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise ValidationError({name: f"{value!r} is not a date (YYYY-MM-DD)"}) from None


@dataclass(frozen=True)
class FrameQuery:
    """Reports of these repositories, candidate kind, state, fix status, labels and dates.

    Empty or None fields do not filter. `labels` keeps reports carrying any of them; the
    dates bound the report's creation day, both ends included. Stubs never enter a frame.
    """

    repositories: tuple[str, ...] = ()
    candidates: Candidates | None = None
    state: StateFilter = StateFilter.ALL
    has_fix: bool | None = None
    labels: tuple[str, ...] = ()
    created_from: dt.date | None = None
    created_to: dt.date | None = None

    @classmethod
    def from_dict(cls, data: Mapping) -> FrameQuery:
        unknown = set(data) - FRAME_FIELDS
        if unknown:
            name = sorted(unknown)[0]
            raise ValidationError({name: f"unknown frame field (known: {sorted(FRAME_FIELDS)})"})
        has_fix = data.get("has_fix")
        if has_fix is not None and not isinstance(has_fix, bool):
            raise ValidationError({"has_fix": "must be true, false or null"})
        candidates = data.get("candidates")
        frame = cls(
            repositories=tuple(data.get("repositories") or ()),
            candidates=_choice(Candidates, "candidates", candidates) if candidates else None,
            state=_choice(StateFilter, "state", data.get("state") or StateFilter.ALL),
            has_fix=has_fix,
            labels=tuple(data.get("labels") or ()),
            created_from=_date("created_from", data.get("created_from")),
            created_to=_date("created_to", data.get("created_to")),
        )
        if frame.created_from and frame.created_to and frame.created_from > frame.created_to:
            raise ValidationError({"created_to": "must not be before created_from"})
        return frame

    def to_dict(self) -> dict:
        return {
            "repositories": list(self.repositories),
            "candidates": self.candidates.value if self.candidates else None,
            "state": self.state.value,
            "has_fix": self.has_fix,
            "labels": list(self.labels),
            "created_from": self.created_from.isoformat() if self.created_from else None,
            "created_to": self.created_to.isoformat() if self.created_to else None,
        }


def frame_reports(frame: FrameQuery) -> QuerySet[BugReport]:
    """The reports the frame selects; unknown repositories are an error, not an empty frame."""
    reports = BugReport.objects.filter(is_stub=False)
    if frame.repositories:
        known = set(
            Repository.objects.filter(full_name__in=frame.repositories).values_list(
                "full_name", flat=True
            )
        )
        missing = [name for name in frame.repositories if name not in known]
        if missing:
            raise ValidationError(
                {"repositories": f"no imported repository {missing[0]!r} (import it first)"}
            )
        reports = reports.filter(repository__full_name__in=frame.repositories)
    if frame.candidates is Candidates.PERFORMANCE:
        reports = reports.filter(is_performance_candidate=True)
    elif frame.candidates is Candidates.ACCURACY:
        reports = reports.filter(is_accuracy_candidate=True)
    elif frame.candidates is Candidates.ANY:
        reports = reports.filter(Q(is_performance_candidate=True) | Q(is_accuracy_candidate=True))
    if frame.state is not StateFilter.ALL:
        reports = reports.filter(state=frame.state.value)
    if frame.has_fix is not None:
        reports = reports.filter(has_fix=frame.has_fix)
    if frame.labels:
        any_label = Q()
        for label in frame.labels:
            any_label |= Q(labels__contains=[label])
        reports = reports.filter(any_label)
    if frame.created_from:
        reports = reports.filter(created_at__date__gte=frame.created_from)
    if frame.created_to:
        reports = reports.filter(created_at__date__lte=frame.created_to)
    return reports


def stratum_lookup(name: str | None) -> str | None:
    """The ORM lookup giving a report's stratum, or an error naming the allowed fields."""
    if not name:
        return None
    if name == REPOSITORY_STRATUM:
        return "repository__full_name"
    allowed = sorted(
        f.name
        for f in BugReport._meta.concrete_fields
        if not f.is_relation
        and not f.primary_key
        and not isinstance(f, JSONField | TextField | DateTimeField)
    )
    if name not in allowed:
        choices = ", ".join([REPOSITORY_STRATUM, *allowed])
        raise ValidationError(
            {"stratify": f"{name!r} is not a report field to stratify by ({choices})"}
        )
    return name
