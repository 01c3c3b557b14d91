"""A study's CSV export rows, formatted by PostgreSQL: one query per chunk of items.

The query returns each item's cells as the CSV writes them (text, numbers or NULL for an
empty cell): key paths and names joined with `;`, times in ISO 8601 UTC, flags as
`true`/`false`. Fix links, final labels and annotators' answers are folded into the same
query, so Python only splices two arrays into each row and hands it to `csv.writer`: no
model instances, no record dicts. The cells are those `records.record` gives the JSON
formats, as the tests check field by field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from django.contrib.postgres.fields import ArrayField
from django.db.models import (
    BigIntegerField,
    F,
    FilteredRelation,
    Func,
    IntegerField,
    OuterRef,
    Q,
    TextField,
    Value,
)
from django.db.models.functions import Cast

from labeler.export.dataset import CHUNK, ExportOptions
from labeler.export.records import MULTI_SEPARATOR, DimensionInfo
from labeler.models import Assignment, Study, StudyItem
from mining.selectors import fix_links_joined


class _Sql(Func):
    """A SQL fragment over its expressions, written {0}, {1}, … (each as often as needed)."""

    def __init__(self, sql: str, *expressions, output_field=None):
        super().__init__(*expressions, output_field=output_field or TextField())
        self.sql = sql

    def as_sql(self, compiler, connection, **extra_context):
        compiled = [compiler.compile(e) for e in self.get_source_expressions()]
        text, params = [], []
        for index, piece in enumerate(re.split(r"\{(\d+)\}", self.sql)):
            if index % 2 == 0:
                text.append(piece)
            else:
                sql, found = compiled[int(piece)]
                text.append(sql)
                params.extend(found)
        return "".join(text), params


SEPARATOR = Value(MULTI_SEPARATOR)


def _joined(values) -> _Sql:
    """A JSON array's elements joined with `;`, in order."""
    return _Sql(
        "(SELECT string_agg(value, {1} ORDER BY n)"
        " FROM jsonb_array_elements_text({0}) WITH ORDINALITY AS element(value, n))",
        values,
        SEPARATOR,
    )


def _names(values, dimension: DimensionInfo) -> _Sql:
    """Each key path's name chain ("Memory > Leak"), or the path if the codebook lacks it."""
    return _Sql(
        "(SELECT string_agg(coalesce({1}::jsonb ->> value, value), {2} ORDER BY n)"
        " FROM jsonb_array_elements_text({0}) WITH ORDINALITY AS element(value, n))",
        values,
        Value(json.dumps(dimension.names)),
        SEPARATOR,
    )


def _rules(rules) -> _Sql:
    """{"kind": [rule, …]} as kind:rule cells joined with `;`, in the object's order."""
    return _Sql(
        "(SELECT string_agg(kind.key || ':' || rule.value, {1} ORDER BY kind.n, rule.n)"
        " FROM jsonb_each({0}) WITH ORDINALITY AS kind(key, rules, n),"
        " jsonb_array_elements_text(kind.rules) WITH ORDINALITY AS rule(value, n))",
        rules,
        SEPARATOR,
    )


def _time(value) -> _Sql:
    """ISO 8601 in UTC as Python writes it: microseconds only when there are any, then Z."""
    return _Sql(
        "to_char({0} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS')"
        " || CASE to_char({0}, 'US') WHEN '000000' THEN '' ELSE '.' || to_char({0}, 'US') END"
        " || 'Z'",
        value,
    )


def _flag(value) -> Cast:
    return Cast(value, TextField())


# Per annotator (in the order of `ids`) one cell per dimension, then note, unsure, seconds:
# empty for an annotator who did not submit the item, as for a dimension left unanswered.
ANNOTATOR_CELLS = """(
SELECT array_agg(part.cell ORDER BY who.n, part.k)
FROM unnest({1}::bigint[]) WITH ORDINALITY AS who(id, n)
LEFT JOIN labeler_assignment turn
    ON turn.item_id = {0} AND turn.annotator_id = who.id AND turn.status = {3}
CROSS JOIN LATERAL (
    SELECT dimension.n AS k,
           (SELECT string_agg(label.value, {4} ORDER BY label.n)
            FROM labeler_annotation answer,
                 jsonb_array_elements_text(answer."values") WITH ORDINALITY AS label(value, n)
            WHERE answer.item_id = {0} AND answer.annotator_id = who.id
              AND answer.dimension_id = dimension.id AND answer.assignment_id = turn.id
           ) AS cell
    FROM unnest({2}::bigint[]) WITH ORDINALITY AS dimension(id, n)
    UNION ALL SELECT {5} + 1, turn.note
    UNION ALL SELECT {5} + 2, turn.unsure::text
    UNION ALL SELECT {5} + 3, turn.seconds::text
) AS part
)"""


def _annotator_cells(names: dict[int, str], dimensions: list[DimensionInfo]) -> _Sql:
    return _Sql(
        ANNOTATOR_CELLS,
        F("pk"),
        Value(list(names), output_field=ArrayField(BigIntegerField())),
        Value([d.id for d in dimensions], output_field=ArrayField(BigIntegerField())),
        Value(Assignment.Status.SUBMITTED.value),
        SEPARATOR,
        Value(len(dimensions), output_field=IntegerField()),
        output_field=ArrayField(TextField()),
    )


REPORT_CELLS = {
    "repository": F("report__repository__full_name"),
    "number": F("report__number"),
    "url": F("report__html_url"),
    "title": F("report__title"),
    "state": F("report__state"),
    "state_reason": F("report__state_reason"),
    "github_labels": _joined(F("report__labels")),
    "created_at": _time(F("report__created_at")),
    "closed_at": _time(F("report__closed_at")),
    "time_to_fix_hours": F("report__fix_hours"),
    "fix_size": F("report__fix_size"),
    "time_to_first_comment_hours": F("report__first_comment_hours"),
    "comments": F("report__comment_count"),
    "commenters": F("report__commenter_count"),
    "participants": F("report__participant_count"),
}
NO_FIXES = (None, None, None, None)


def study_csv_rows(
    *,
    study: Study,
    options: ExportOptions,
    names: dict[int, str],
    dimensions: list[DimensionInfo],
    chunk: int = CHUNK,
) -> Iterator[list[list]]:
    """The study's CSV rows (without the header) in chunks of `chunk` items, in id order,
    with the columns of `records.Columns`: one query per chunk."""
    items = StudyItem.objects.filter(study=study)
    if options.final_only:
        items = items.filter(adjudicated_at__isnull=False)
    items = items.alias(
        **{
            f"final_{n}": FilteredRelation(
                "final_labels", condition=Q(final_labels__dimension_id=dimension.id)
            )
            for n, dimension in enumerate(dimensions)
        }
    ).annotate(
        **{f"cell_{key}": value for key, value in REPORT_CELLS.items()},
        cell_fixes=fix_links_joined(report=OuterRef("report_id"), separator=MULTI_SEPARATOR),
        cell_performance=_flag("report__is_performance_candidate"),
        cell_accuracy=_flag("report__is_accuracy_candidate"),
        cell_non_bug=_flag("report__is_non_bug"),
        cell_rules=_rules(F("report__candidate_rules")),
        cell_final=_Sql("({0} IS NOT NULL)::text", F("adjudicated_at")),
    )
    columns = ["pk", *(f"cell_{key}" for key in REPORT_CELLS), "cell_fixes"]
    columns += ["cell_performance", "cell_accuracy", "cell_non_bug", "cell_rules", "cell_final"]
    for n, dimension in enumerate(dimensions):
        final = f"final_{n}"
        items = items.annotate(
            **{
                f"{final}_values": _joined(F(f"{final}__values")),
                f"{final}_names": _names(F(f"{final}__values"), dimension),
                f"{final}_method": F(f"{final}__method"),
            }
        )
        columns += [f"{final}_values", f"{final}_names", f"{final}_method"]
    with_annotators = options.include_annotators and bool(names)
    if with_annotators:
        items = items.annotate(cell_annotators=_annotator_cells(names, dimensions))
        columns.append("cell_annotators")
    items = items.order_by("pk").values_list(*columns)
    fixes = 1 + len(REPORT_CELLS)
    last = 0
    while True:
        found = list(items.filter(pk__gt=last)[:chunk])
        if not found:
            return
        last = found[-1][0]
        if with_annotators:
            yield [
                [*row[1:fixes], *(row[fixes] or NO_FIXES), *row[fixes + 1 : -1], *row[-1]]
                for row in found
            ]
        else:
            yield [[*row[1:fixes], *(row[fixes] or NO_FIXES), *row[fixes + 1 :]] for row in found]
