"""Agreement of a study's annotators: their independent labels, read from the database as they
were before anyone saw a final label, handed to the statistics (labeler.statistics.agreement).

Every submitted assignment gives one rating per dimension: its latest version created at or
before the moment its item first became final (StudyItem.first_final_at), else its latest
version. Imported labels are submissions like the app's. A single-select dimension left empty
is rated NO_CATEGORY; a multi-select one, the empty set.

Each dimension is measured on full key paths (`level` "path"); one with sub-categories is
also measured on top-level categories (`level` "top", listed first). Each category's entry
in `per_category` also counts the reasons leads gave when they adjudicated a disagreement on
it (`reasons`: {reason: count}), which is what a team needs to revise its codebook.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db import connection

from labeler.adjudication import study_pseudonyms
from labeler.labels import Scheme, study_scheme
from labeler.models import DisagreementReason, FinalLabel, FinalMethod, Study
from labeler.statistics.agreement import agreement, agreement_windows, top_level
from taxonomy.models import Dimension

NO_CATEGORY = "(none)"
BOOTSTRAP = 1000
LEVELS = ("top", "path")
BY = ("batch", "window")
WINDOW_MIN = 2

Value = str | frozenset[str]


@dataclass
class StudyRatings:
    """Per dimension key: item id -> {annotator name: value} at full key paths; per item its
    batch and when its last rating came in (the order items were labelled in)."""

    ratings: dict[str, dict[int, dict[str, Value]]] = field(default_factory=dict)
    batch: dict[int, int] = field(default_factory=dict)
    labelled_at: dict[int, dt.datetime] = field(default_factory=dict)


# The version columns: one per dimension, so that PostgreSQL picks each dimension's value out
# of the labels and nothing but plain text and text arrays crosses to Python.
SINGLE_COLUMN = "version.labels -> %s ->> 0"
MULTIPLE_COLUMN = "ARRAY(SELECT jsonb_array_elements_text(version.labels -> %s))"
RATINGS_SQL = """
SELECT DISTINCT ON (version.assignment_id)
       version.item_id, assignment.annotator_id, item.batch, assignment.submitted_at, {columns}
FROM labeler_annotationversion version
JOIN labeler_assignment assignment ON assignment.id = version.assignment_id
JOIN labeler_studyitem item ON item.id = version.item_id
WHERE item.study_id = %s AND assignment.status = 'submitted'
  AND (item.first_final_at IS NULL OR version.created_at <= item.first_final_at)
ORDER BY version.assignment_id, version.number DESC
"""


def study_ratings(
    *, study: Study, dimensions: Sequence[Dimension], names: dict[int, str]
) -> StudyRatings:
    """The independent ratings of `dimensions`, annotators named by `names` (user id -> name),
    in one query."""
    columns = ", ".join(MULTIPLE_COLUMN if d.multiple else SINGLE_COLUMN for d in dimensions)
    params = [*(d.key for d in dimensions), study.pk]
    with connection.cursor() as cursor:
        cursor.execute(RATINGS_SQL.format(columns=columns), params)
        rows = cursor.fetchall()
    found = StudyRatings(ratings={d.key: {} for d in dimensions})
    per_dimension = [
        (found.ratings[d.key], d.multiple, index) for index, d in enumerate(dimensions, start=4)
    ]
    batch, labelled_at = found.batch, found.labelled_at
    for row in rows:
        item_id, annotator_id, item_batch, submitted_at = row[:4]
        name = names[annotator_id]
        for ratings, multiple, index in per_dimension:
            value = row[index]
            if multiple:
                value = frozenset(value)
            elif value is None:
                value = NO_CATEGORY
            ratings.setdefault(item_id, {})[name] = value
        batch[item_id] = item_batch
        if item_id not in labelled_at or labelled_at[item_id] < submitted_at:
            labelled_at[item_id] = submitted_at
    return found


def annotator_names(*, study: Study, pseudonyms: bool) -> dict[int, str]:
    """User id -> the name agreement shows: the username, or the study's pseudonym."""
    if pseudonyms:
        return study_pseudonyms(study=study)
    ids = study.assignments.filter(status="submitted").values("annotator")
    return dict(get_user_model().objects.filter(pk__in=ids).values_list("pk", "username"))


def _level_value(value: Value, level: str) -> Value:
    return value if level == "path" else top_level(value)


def _at_level(ratings: dict, level: str) -> dict:
    if level == "path":
        return ratings
    return {
        item: {name: top_level(value) for name, value in by_name.items()}
        for item, by_name in ratings.items()
    }


def levels(dimension: Dimension, scheme: Scheme) -> tuple[str, ...]:
    nested = any(c.parent_id is not None for c in scheme.categories[dimension.pk])
    return LEVELS if nested else ("path",)


def _members(value: Value) -> frozenset[str]:
    return value if isinstance(value, frozenset) else frozenset([value])


def _reasons(
    *, study: Study, dimension: Dimension, ratings: dict[int, dict[str, Value]], level: str
) -> dict[str, Counter]:
    """Per category in dispute, how often leads gave each reason for the disagreement: the
    categories some but not all annotators chose on an adjudicated item (at this level), or,
    when they all chose the same there, the categories they shared."""
    counts: dict[str, Counter] = defaultdict(Counter)
    adjudicated = FinalLabel.objects.filter(
        item__study=study, dimension=dimension, method=FinalMethod.ADJUDICATED
    ).values_list("item_id", "reason")
    for item_id, reason in adjudicated:
        if item_id not in ratings:
            continue
        chosen = [_members(_level_value(value, level)) for value in ratings[item_id].values()]
        shared = frozenset.intersection(*chosen)
        for category in frozenset.union(*chosen) - shared or shared:
            counts[category][reason] += 1
    return counts


def _entry(dimension: Dimension, level: str, figures: dict) -> dict:
    return {"dimension": dimension.key, "level": level, **figures}


def study_agreement(
    *,
    study: Study,
    dimension: str | None = None,
    by: str | None = None,
    window: int | None = None,
    bootstrap: int = BOOTSTRAP,
    pseudonyms: bool = False,
    seed: int = 0,
) -> dict:
    """The study's agreement per dimension and level, as `agreement --json` prints it.

    `by="batch"`: the same per batch of items; `by="window"`: over consecutive windows of
    `window` items in the order they were labelled (by their last rating). `dimension` (a key
    the caller has checked) limits it to one dimension; `pseudonyms` names annotators A1, A2, …
    instead of by username.
    """
    scheme = study_scheme(study=study)
    dimensions = [scheme.dimension(dimension)] if dimension else list(scheme.dimensions)
    names = annotator_names(study=study, pseudonyms=pseudonyms)
    read = study_ratings(study=study, dimensions=dimensions, names=names)
    if by == "batch":
        batches = sorted(set(read.batch.values()))
        return {
            "study": study.slug,
            "by": "batch",
            "batches": [
                {
                    "batch": number,
                    "dimensions": _figures(
                        study=study,
                        scheme=scheme,
                        dimensions=dimensions,
                        read=read,
                        items={i for i, b in read.batch.items() if b == number},
                        bootstrap=bootstrap,
                        seed=seed,
                    ),
                }
                for number in batches
            ],
        }
    if by == "window":
        order = sorted(read.labelled_at, key=lambda item: (read.labelled_at[item], item))
        return {
            "study": study.slug,
            "by": "window",
            "window": window,
            "dimensions": [
                {
                    "dimension": d.key,
                    "level": level,
                    "windows": agreement_windows(
                        _in_order(_at_level(read.ratings[d.key], level), order),
                        size=window,
                        multiple=d.multiple,
                        bootstrap=bootstrap,
                        seed=seed,
                    ),
                }
                for d in dimensions
                for level in levels(d, scheme)
            ],
        }
    return {
        "study": study.slug,
        "dimensions": _figures(
            study=study,
            scheme=scheme,
            dimensions=dimensions,
            read=read,
            items=None,
            bootstrap=bootstrap,
            seed=seed,
        ),
    }


def _in_order(ratings: dict, order: list[int]) -> list[tuple[Hashable, dict]]:
    return [(item, ratings[item]) for item in order if item in ratings]


def _figures(*, study, scheme, dimensions, read, items, bootstrap, seed) -> list[dict]:
    entries = []
    for dimension in dimensions:
        ratings = read.ratings[dimension.key]
        if items is not None:
            ratings = {item: ratings[item] for item in items if item in ratings}
        for level in levels(dimension, scheme):
            figures = agreement(
                _at_level(ratings, level),
                multiple=dimension.multiple,
                bootstrap=bootstrap,
                seed=seed,
            )
            reasons = _reasons(study=study, dimension=dimension, ratings=ratings, level=level)
            for row in figures["per_category"]:
                found = reasons.get(row["category"], Counter())
                row["reasons"] = {reason: found[reason] for reason in DisagreementReason.values}
            entries.append(_entry(dimension, level, figures))
    return entries
