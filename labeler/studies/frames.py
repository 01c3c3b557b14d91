"""The sampling frame of a study: which imported reports it draws its items from.

A frame is stored on the study as JSON so the same query can be run again for a later batch.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from django.core.exceptions import ValidationError
from django.db.models import Expression, F, Q, QuerySet
from django.db.models.functions import ExtractYear

from mining.candidates import matching_keywords
from mining.models import BugReport
from mining.selectors import reports_imported, repositories_missing


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
    "keywords",
}
MAX_KEYWORDS = 200
MAX_KEYWORD_LENGTH = 100
# The candidate_rules kinds whose label rules make a report a candidate of the requested kind.
CANDIDATE_KINDS = {
    Candidates.PERFORMANCE: ("performance",),
    Candidates.ACCURACY: ("accuracy",),
    Candidates.ANY: ("performance", "accuracy"),
}


@dataclass(frozen=True)
class StratumField:
    label: str
    expression: Expression


# What a sample may be stratified by: fields with few values, so that each stratum holds many
# reports. Near-unique or continuous fields (author, number, title, fix hours) would make
# nearly every report its own stratum and the allocation meaningless.
STRATA = {
    "repository": StratumField("repository", F("repository__full_name")),
    "state": StratumField("state (open, closed)", F("state")),
    "state_reason": StratumField("state reason (completed, not planned…)", F("state_reason")),
    "milestone": StratumField("milestone", F("milestone")),
    "is_performance_candidate": StratumField(
        "performance candidate or not", F("is_performance_candidate")
    ),
    "is_accuracy_candidate": StratumField("accuracy candidate or not", F("is_accuracy_candidate")),
    "is_non_bug": StratumField("non-bug or not", F("is_non_bug")),
    "has_fix": StratumField("with a linked fix or not", F("has_fix")),
    # In UTC, as GitHub gives the times, so the strata do not depend on the server's zone.
    "created_year": StratumField("year opened", ExtractYear("created_at", tzinfo=dt.UTC)),
}


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


def _keywords(value) -> tuple[str, ...]:
    """The keywords with whitespace collapsed; every wrong entry is named by its position."""
    if value in (None, ""):
        return ()
    if not isinstance(value, list | tuple):
        raise ValidationError({"keywords": "expected a list of texts"})
    errors: list[str] = []
    seen: dict[str, int] = {}
    for position, item in enumerate(value, start=1):
        if not isinstance(item, str):
            errors.append(f"entry {position}: not a text")
            continue
        text = " ".join(item.split())
        if not text:
            errors.append(f"entry {position}: empty")
        elif len(text) > MAX_KEYWORD_LENGTH:
            errors.append(f"entry {position}: longer than {MAX_KEYWORD_LENGTH} characters")
        elif text.lower() in seen:
            errors.append(f"entry {position}: {text!r} repeats entry {seen[text.lower()]}")
        else:
            seen[text.lower()] = position
    if len(value) > MAX_KEYWORDS:
        errors.append(f"at most {MAX_KEYWORDS} keywords")
    if errors:
        raise ValidationError({"keywords": errors})
    return tuple(" ".join(item.split()) for item in value)


@dataclass(frozen=True)
class FrameQuery:
    """Reports of these repositories, candidate kind, state, fix status, labels and dates.

    Empty or None fields do not filter. `labels` keeps reports carrying any of them; the
    dates bound the report's creation day, both ends included. Stubs never enter a frame.

    `keywords` replaces each repository's candidate keywords for this study: a report is a
    candidate of the requested kind when one of its repository's label rules for that kind
    matched at import (as recorded in `candidate_rules`) or its title or body contains one of
    the keywords (whole words, case-insensitive, as mining.candidates matches them). With
    keywords and no candidate kind, the frame keeps the reports mentioning any keyword.
    """

    repositories: tuple[str, ...] = ()
    candidates: Candidates | None = None
    state: StateFilter = StateFilter.ALL
    has_fix: bool | None = None
    labels: tuple[str, ...] = ()
    created_from: dt.date | None = None
    created_to: dt.date | None = None
    keywords: tuple[str, ...] = ()

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
            keywords=_keywords(data.get("keywords")),
        )
        if frame.created_from and frame.created_to and frame.created_from > frame.created_to:
            raise ValidationError({"created_to": "must not be before created_from"})
        return frame

    def describe(self) -> str:
        """The filters that are set, for messages: "repositories a/b; created from 2030-01-01"."""
        parts = []
        if self.repositories:
            parts.append(f"repositories {', '.join(self.repositories)}")
        if self.candidates:
            parts.append(f"{self.candidates.value} candidates")
        if self.state is not StateFilter.ALL:
            parts.append(f"state {self.state.value}")
        if self.has_fix is not None:
            parts.append("with a linked fix" if self.has_fix else "without a fix")
        if self.labels:
            parts.append(f"labels {', '.join(self.labels)}")
        if self.created_from:
            parts.append(f"created from {self.created_from.isoformat()}")
        if self.created_to:
            parts.append(f"created to {self.created_to.isoformat()}")
        if self.keywords:
            parts.append(f"keywords {', '.join(self.keywords)}")
        return f"filters: {'; '.join(parts)}" if parts else "no filters"

    def to_dict(self) -> dict:
        return {
            "repositories": list(self.repositories),
            "candidates": self.candidates.value if self.candidates else None,
            "state": self.state.value,
            "has_fix": self.has_fix,
            "labels": list(self.labels),
            "created_from": self.created_from.isoformat() if self.created_from else None,
            "created_to": self.created_to.isoformat() if self.created_to else None,
            "keywords": list(self.keywords),
        }


def frame_reports(frame: FrameQuery) -> QuerySet[BugReport]:
    """The reports the frame selects; unknown repositories are an error, not an empty frame."""
    reports = reports_imported()
    if frame.repositories:
        missing = repositories_missing(full_names=list(frame.repositories))
        if missing:
            raise ValidationError(
                {"repositories": f"no imported repository {missing[0]!r} (import it first)"}
            )
        reports = reports.filter(repository__full_name__in=frame.repositories)
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
    if frame.keywords:
        return _keyword_candidates(reports, frame)
    if frame.candidates is Candidates.PERFORMANCE:
        reports = reports.filter(is_performance_candidate=True)
    elif frame.candidates is Candidates.ACCURACY:
        reports = reports.filter(is_accuracy_candidate=True)
    elif frame.candidates is Candidates.ANY:
        reports = reports.filter(Q(is_performance_candidate=True) | Q(is_accuracy_candidate=True))
    return reports


def _keyword_candidates(reports: QuerySet[BugReport], frame: FrameQuery) -> QuerySet[BugReport]:
    """The reports (already narrowed in SQL) matched by a label rule of the requested kind or
    by a study keyword. The keyword match runs in Python, so it is the same on every database."""
    kinds = CANDIDATE_KINDS.get(frame.candidates, ())
    matched = []
    rows = reports.order_by("pk").values_list("pk", "title", "body", "candidate_rules")
    for pk, title, body, rules in rows.iterator(chunk_size=2000):
        by_label = any(
            rule.startswith("label:") for kind in kinds for rule in (rules or {}).get(kind, ())
        )
        if by_label or matching_keywords(f"{title}\n{body}", frame.keywords):
            matched.append(pk)
    return reports.filter(pk__in=matched)


def stratum_expression(name: str | None) -> Expression | None:
    """The ORM expression giving a report's stratum, or an error naming the allowed fields."""
    if not name:
        return None
    if name not in STRATA:
        raise ValidationError(
            {"stratify": f"{name!r} is not a field to stratify by (allowed: {', '.join(STRATA)})"}
        )
    return STRATA[name].expression
