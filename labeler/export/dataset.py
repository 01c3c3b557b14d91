"""A study's items read in chunks for the export, as `records.ItemRow`s.

Keyset pagination by item id: each chunk costs a fixed number of queries (items with their
reports; fix links; final labels; with annotators, their assignments and labels), however
large the study, and only one chunk is held at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from django.contrib.auth import get_user_model

from labeler.adjudication import study_pseudonyms
from labeler.export.records import NAME_SEPARATOR, DimensionInfo, ItemRow
from labeler.labels import study_scheme
from labeler.models import Annotation, Assignment, FinalLabel, Study, StudyItem
from mining.selectors import fix_links_summary

CHUNK = 2000

REPORT_VALUES = {
    "repository": "report__repository__full_name",
    "number": "report__number",
    "url": "report__html_url",
    "title": "report__title",
    "state": "report__state",
    "state_reason": "report__state_reason",
    "labels": "report__labels",
    "created_at": "report__created_at",
    "closed_at": "report__closed_at",
    "fix_hours": "report__fix_hours",
    "fix_size": "report__fix_size",
    "first_comment_hours": "report__first_comment_hours",
    "comment_count": "report__comment_count",
    "commenter_count": "report__commenter_count",
    "participant_count": "report__participant_count",
    "is_performance_candidate": "report__is_performance_candidate",
    "is_accuracy_candidate": "report__is_accuracy_candidate",
    "is_non_bug": "report__is_non_bug",
    "candidate_rules": "report__candidate_rules",
}
REPORT_KEYS = tuple(REPORT_VALUES)


@dataclass(frozen=True)
class ExportOptions:
    include_annotators: bool = False
    final_only: bool = False
    real_names: bool = False


def study_dimensions(*, study: Study) -> list[DimensionInfo]:
    """The study's dimensions in order, each category's name chain ("Memory > Leak") by path."""
    scheme = study_scheme(study=study)
    found = []
    for dimension in scheme.dimensions:
        by_path = scheme.by_path(dimension)
        names = {}
        for path in by_path:
            parts = path.split("/")
            names[path] = NAME_SEPARATOR.join(
                by_path["/".join(parts[: depth + 1])].name for depth in range(len(parts))
            )
        found.append(DimensionInfo(id=dimension.pk, key=dimension.key, names=names))
    return found


def annotator_names(*, study: Study, real_names: bool) -> dict[int, str]:
    """User id -> the annotator's name in the export: the study's pseudonym (A1, A2, …), or
    the username when a lead asked for real names; in the order of first submission."""
    pseudonyms = study_pseudonyms(study=study)
    if not real_names:
        return pseudonyms
    usernames = dict(
        get_user_model().objects.filter(pk__in=pseudonyms).values_list("pk", "username")
    )
    return {user_id: usernames[user_id] for user_id in pseudonyms}


def study_item_rows(
    *, study: Study, options: ExportOptions, names: dict[int, str], chunk: int = CHUNK
) -> Iterator[list[ItemRow]]:
    """The study's items in chunks of `chunk`, in id order (the order they were drawn)."""
    items = StudyItem.objects.filter(study=study)
    if options.final_only:
        items = items.filter(adjudicated_at__isnull=False)
    last = 0
    while True:
        found = list(
            items.filter(pk__gt=last)
            .order_by("pk")
            .values_list("pk", "report_id", "adjudicated_at", *REPORT_VALUES.values())[:chunk]
        )
        if not found:
            return
        last = found[-1][0]
        yield _rows(found, options, names)


def _rows(found: list[tuple], options: ExportOptions, names: dict[int, str]) -> list[ItemRow]:
    item_ids = [values[0] for values in found]
    fixes = fix_links_summary(report_ids=[values[1] for values in found])
    rows = {
        item_id: ItemRow(
            item_id=item_id,
            report=dict(zip(REPORT_KEYS, values, strict=True)),
            fixes=fixes.get(report_id, []),
            final=adjudicated_at is not None,
        )
        for item_id, report_id, adjudicated_at, *values in found
    }
    finals = FinalLabel.objects.filter(item_id__in=item_ids).values_list(
        "item_id", "dimension_id", "values", "method", "reason", "rationale"
    )
    for item_id, dimension_id, values, method, reason, rationale in finals:
        rows[item_id].finals[dimension_id] = {
            "values": values,
            "method": method,
            "reason": reason,
            "rationale": rationale,
        }
    if options.include_annotators:
        _add_annotators(rows, item_ids, names)
    return list(rows.values())


def _add_annotators(rows: dict[int, ItemRow], item_ids: list[int], names: dict[int, str]):
    turns = (
        Assignment.objects.filter(item_id__in=item_ids, status=Assignment.Status.SUBMITTED)
        .order_by("item_id", "submitted_at", "pk")
        .values_list("item_id", "annotator_id", "note", "unsure", "seconds")
    )
    for item_id, annotator_id, note, unsure, seconds in turns:
        rows[item_id].annotators[names[annotator_id]] = {
            "labels": {},
            "note": note,
            "unsure": unsure,
            "seconds": seconds,
        }
    labels = Annotation.objects.filter(
        item_id__in=item_ids, assignment__status=Assignment.Status.SUBMITTED
    ).values_list("item_id", "annotator_id", "dimension_id", "values")
    for item_id, annotator_id, dimension_id, values in labels:
        rows[item_id].annotators[names[annotator_id]]["labels"][dimension_id] = values
