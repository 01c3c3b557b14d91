"""A study's items read in chunks for the export, as `records.ItemRow`s.

Keyset pagination by item id: each chunk is one query (items with their reports, fix links,
final labels and, with annotators, their answers), however large the study, and only one
chunk is held at a time. In an open-coding study an annotator's answers are also their codes
as written (their current version's) with each code's category on the study's code board.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from django.contrib.postgres.aggregates import JSONBAgg
from django.db.models import F, Func, JSONField, OuterRef, Subquery

from labeler.coding.board.selectors import theme_paths
from labeler.coding.selectors import study_open_board
from labeler.common.scheme import study_scheme
from labeler.export.records import NAME_SEPARATOR, DimensionInfo, ItemRow
from labeler.models import (
    Annotation,
    AnnotationVersion,
    Assignment,
    Code,
    CodeUse,
    FinalLabel,
    Study,
    StudyItem,
    Theme,
)
from mining.selectors import fix_links_listed

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
    # The exporter labels in the study, so is blind there (labeler.common.permissions): the export
    # holds its final items only (`final_only`), and its datasheet's figures count only those.
    blind: bool = False


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


def study_code_categories(*, study: Study) -> dict[int, str]:
    """Code id -> the key path of the category the study's code board sorted it into (a
    merged code's, that of the code it was merged into); codes under no category are left
    out. Empty for a closed study."""
    if study.kind != Study.Kind.OPEN:
        return {}
    board = study_open_board(study_id=study.pk)
    if board is None:
        return {}
    paths = theme_paths(Theme.objects.filter(board=board))
    codes = dict(Code.objects.filter(board=board).values_list("pk", "theme_id"))
    merged = Code.objects.filter(board=board, merged_into__isnull=False)
    resolved = dict(codes)
    for code_id, into in merged.values_list("pk", "merged_into_id"):
        resolved[code_id] = codes.get(into)
    return {code: paths[theme] for code, theme in resolved.items() if theme in paths}


def _json_array(*expressions) -> Func:
    return Func(*expressions, function="jsonb_build_array", output_field=JSONField())


def _per_item(queryset, value, order_by=()) -> Subquery:
    """A JSON array of `value` over `queryset`'s rows of the outer query's item."""
    rows = queryset.filter(item_id=OuterRef("pk")).order_by().values("item_id")
    return Subquery(rows.annotate(found=JSONBAgg(value, order_by=order_by)).values("found"))


def study_item_rows(
    *, study: Study, options: ExportOptions, names: dict[int, str], chunk: int = CHUNK
) -> Iterator[list[ItemRow]]:
    """The study's items in chunks of `chunk`, in id order (the order they were drawn): one
    query per chunk, the fix links, final labels and annotators' answers folded in as JSON."""
    items = StudyItem.objects.filter(study=study)
    if options.final_only:
        items = items.filter(adjudicated_at__isnull=False)
    finals = _json_array(F("dimension_id"), F("values"), F("method"), F("reason"), F("rationale"))
    items = items.annotate(
        fixes=fix_links_listed(report=OuterRef("report_id")),
        finals=_per_item(FinalLabel.objects.all(), finals),
    )
    columns = ["pk", "adjudicated_at", "fixes", "finals", *REPORT_VALUES.values()]
    if options.include_annotators:
        labels = Annotation.objects.filter(assignment_id=OuterRef("pk")).order_by()
        labels = labels.values("assignment_id").annotate(
            found=JSONBAgg(_json_array(F("dimension_id"), F("values")))
        )
        answers = [
            F("annotator_id"),
            F("note"),
            F("unsure"),
            F("seconds"),
            Subquery(labels.values("found")),
        ]
        if study.kind == Study.Kind.OPEN:
            written = AnnotationVersion.objects.filter(
                assignment_id=OuterRef("pk"), number=OuterRef("version")
            ).values("codes")[:1]
            uses = CodeUse.objects.filter(assignment_id=OuterRef("pk")).order_by()
            uses = uses.values("assignment_id").annotate(
                found=JSONBAgg(_json_array(F("code__dimension_id"), F("written_as"), F("code_id")))
            )
            answers += [Subquery(written), Subquery(uses.values("found"))]
        turn = _json_array(*answers)
        submitted = Assignment.objects.filter(status=Assignment.Status.SUBMITTED)
        items = items.annotate(turns=_per_item(submitted, turn, order_by=("submitted_at", "pk")))
        columns.append("turns")
    items = items.order_by("pk").values_list(*columns)
    categories = study_code_categories(study=study) if options.include_annotators else {}
    last = 0
    while True:
        found = list(items.filter(pk__gt=last)[:chunk])
        if not found:
            return
        last = found[-1][0]
        yield [_row(values, options, names, categories) for values in found]


def _row(
    values: tuple, options: ExportOptions, names: dict[int, str], categories: dict[int, str]
) -> ItemRow:
    item_id, adjudicated_at, fixes, finals, *report = (
        values[:-1] if options.include_annotators else values
    )
    row = ItemRow(
        item_id=item_id,
        report=dict(zip(REPORT_KEYS, report, strict=True)),
        fixes=[
            {
                "commit": sha,
                "pull_request": number,
                "evidence": evidence,
                "strength": strength,
                "reverted": reverted,
            }
            for sha, number, evidence, strength, reverted in fixes or ()
        ],
        final=adjudicated_at is not None,
    )
    for dimension_id, label, method, reason, rationale in finals or ():
        row.finals[dimension_id] = {
            "values": label,
            "method": method,
            "reason": reason,
            "rationale": rationale,
        }
    if options.include_annotators:
        for annotator_id, note, unsure, seconds, labels, *coding in values[-1] or ():
            row.annotators[names[annotator_id]] = {
                "labels": dict(labels or ()),
                "note": note,
                "unsure": unsure,
                "seconds": seconds,
            }
            if coding:
                written, uses = coding
                row.annotators[names[annotator_id]] |= {
                    "codes": written or {},
                    "categories": {
                        (dimension_id, name): categories.get(code_id)
                        for dimension_id, name, code_id in uses or ()
                    },
                }
        # In pseudonym order (A1, A2, …), as the CSV's columns are: not that of submission.
        order = {name: position for position, name in enumerate(names.values())}
        row.annotators = dict(sorted(row.annotators.items(), key=lambda given: order[given[0]]))
    return row
