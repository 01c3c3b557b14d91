"""A study's CSV export lines, written by PostgreSQL: one query per chunk of items.

The query returns each item's line as `csv.writer` writes it: cells quoted only when they
hold a comma, a quote or a line break (quotes doubled), numbers as Python prints them, key
paths and names joined with `;`, times in ISO 8601 UTC, flags as `true`/`false`, lines ended
with CRLF. Fix links, final labels and annotators' answers are folded into the same query,
so Python only joins each chunk's lines: no model instances, no record dicts. The cells are
those `records.record` gives the JSON formats, as the tests check field by field.
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


def _quote(cell: str) -> str:
    """SQL writing the text `cell` (a column, or an expression cheap to repeat) as csv.writer
    writes it (QUOTE_MINIMAL): quoted if it holds a comma, a quote or a line break."""
    return (
        f"""CASE WHEN {cell} ~ '[",\\r\\n]' THEN '"' || replace({cell}, '"', '""') || '"'"""
        f" ELSE {cell} END"
    )


def _quoted(text) -> _Sql:
    return _Sql(_quote("{0}"), text)


def _quoted_aggregate(aggregate: str, source: str, *expressions) -> _Sql:
    """The `aggregate` of the rows of `source`, quoted: computed once, then quoted."""
    return _Sql(
        f"(SELECT {_quote('cell')} FROM (SELECT {aggregate} AS cell FROM {source}) AS found)",  # noqa: S608 - fragments of this module
        *expressions,
    )


def _joined(values) -> _Sql:
    """A JSON array's elements joined with `;`, in order."""
    return _quoted_aggregate(
        "string_agg(value, {1} ORDER BY n)",
        "jsonb_array_elements_text({0}) WITH ORDINALITY AS element(value, n)",
        values,
        SEPARATOR,
    )


def _names(values, dimension: DimensionInfo) -> _Sql:
    """Each key path's name chain ("Memory > Leak"), or the path if the codebook lacks it."""
    return _quoted_aggregate(
        "string_agg(coalesce({1}::jsonb ->> value, value), {2} ORDER BY n)",
        "jsonb_array_elements_text({0}) WITH ORDINALITY AS element(value, n)",
        values,
        Value(json.dumps(dimension.names)),
        SEPARATOR,
    )


def _rules(rules) -> _Sql:
    """{"kind": [rule, …]} as kind:rule cells joined with `;`, in the object's order."""
    return _quoted_aggregate(
        "string_agg(kind.key || ':' || rule.value, {1} ORDER BY kind.n, rule.n)",
        "jsonb_each({0}) WITH ORDINALITY AS kind(key, rules, n),"
        " jsonb_array_elements_text(kind.rules) WITH ORDINALITY AS rule(value, n)",
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


def _integer(value) -> Cast:
    return Cast(value, TextField())


def _float(value) -> _Sql:
    """As Python's repr (360.0, 24.5, 1e-05): PostgreSQL prints the same shortest digits but
    leaves off ".0" (and between 10^15 and 10^16, which no hours reach, writes an exponent)."""
    return _Sql(
        "CASE WHEN {0} = trunc({0}) AND abs({0}) < 1e16 THEN trunc({0})::bigint::text || '.0'"
        " ELSE {0}::text END",
        value,
    )


# Per annotator (in the order of `ids`) one cell per dimension, then note, unsure, seconds:
# empty for an annotator who did not submit the item, as for a dimension left unanswered;
# joined with commas, each cell quoted.
ANNOTATOR_CELLS = (
    "(SELECT array_to_string(array_agg("  # noqa: S608 - a fragment of this module
    + _quote("part.cell")
    + """ ORDER BY who.n, part.k), ',', '')
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
)


def _annotator_cells(names: dict[int, str], dimensions: list[DimensionInfo]) -> _Sql:
    return _Sql(
        ANNOTATOR_CELLS,
        F("pk"),
        Value(list(names), output_field=ArrayField(BigIntegerField())),
        Value([d.id for d in dimensions], output_field=ArrayField(BigIntegerField())),
        Value(Assignment.Status.SUBMITTED.value),
        SEPARATOR,
        Value(len(dimensions), output_field=IntegerField()),
    )


REPORT_CELLS = (
    _quoted(F("report__repository__full_name")),
    _integer(F("report__number")),
    _quoted(F("report__html_url")),
    _quoted(F("report__title")),
    _quoted(F("report__state")),
    _quoted(F("report__state_reason")),
    _joined(F("report__labels")),
    _time(F("report__created_at")),
    _time(F("report__closed_at")),
    _float(F("report__fix_hours")),
    _integer(F("report__fix_size")),
    _float(F("report__first_comment_hours")),
    _integer(F("report__comment_count")),
    _integer(F("report__commenter_count")),
    _integer(F("report__participant_count")),
)


def _fix_cells() -> _Sql:
    """Commit SHAs, pull request numbers, evidence and reverted: four cells, empty without
    fix links."""
    cells = fix_links_joined(report=OuterRef("report_id"), separator=MULTI_SEPARATOR)
    return _Sql(
        f"coalesce((SELECT array_to_string(array_agg({_quote('fix.cell')} ORDER BY n), ',', '')"  # noqa: S608
        " FROM unnest({0}) WITH ORDINALITY AS fix(cell, n)), ',,,')",
        cells,
    )


def _line(cells: list) -> _Sql:
    """The cells joined with commas, an empty cell for NULL, and CRLF."""
    placeholders = ", ".join(f"{{{n}}}" for n in range(len(cells)))
    return _Sql(f"array_to_string(ARRAY[{placeholders}]::text[], ',', '') || E'\\r\\n'", *cells)


def study_csv_lines(
    *,
    study: Study,
    options: ExportOptions,
    names: dict[int, str],
    dimensions: list[DimensionInfo],
    chunk: int = CHUNK,
) -> Iterator[list[str]]:
    """The study's CSV lines (without the header) in chunks of `chunk` items, in id order,
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
    )
    cells = [
        *REPORT_CELLS,
        _fix_cells(),
        _flag("report__is_performance_candidate"),
        _flag("report__is_accuracy_candidate"),
        _flag("report__is_non_bug"),
        _rules(F("report__candidate_rules")),
        _Sql("({0} IS NOT NULL)::text", F("adjudicated_at")),
    ]
    for n, dimension in enumerate(dimensions):
        values = F(f"final_{n}__values")
        cells += [
            _joined(values),
            _names(values, dimension),
            _quoted(F(f"final_{n}__method")),
        ]
    if options.include_annotators and names:
        cells.append(_annotator_cells(names, dimensions))
    items = items.annotate(line=_line(cells)).order_by("pk").values_list("pk", "line")
    last = 0
    while True:
        found = list(items.filter(pk__gt=last)[:chunk])
        if not found:
            return
        last = found[-1][0]
        yield [line for _, line in found]
