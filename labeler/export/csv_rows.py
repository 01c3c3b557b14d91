"""A study's CSV export lines, written by PostgreSQL: one `COPY … TO STDOUT WITH (FORMAT csv)`
per chunk of items.

The query gives each cell's text as `csv.writer` writes it (numbers as Python prints them,
key paths and names joined with `;`, times in ISO 8601 UTC, flags as `true`/`false`) and
COPY quotes it as csv.writer does (QUOTE_MINIMAL: only a cell holding a comma, a quote or a
line break, quotes doubled), in C. Empty text goes out as NULL, since COPY would write `""`
where csv.writer writes nothing. Fix links, final labels and annotators' answers are folded
into the same query, so Python only drops each row's leading item id and ends it with CRLF
instead of LF: no model instances, no record dicts. The cells are those `records.record`
gives the JSON formats, as the tests check byte for byte.
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

from config.sql import copy_csv_rows
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


def _aggregate(aggregate: str, source: str, *expressions) -> _Sql:
    """The `aggregate` of the rows of `source`: a scalar subquery."""
    return _Sql(f"(SELECT {aggregate} FROM {source})", *expressions)  # noqa: S608 - fragments of this module


def _joined(values) -> _Sql:
    """A JSON array's elements joined with `;`, in order."""
    return _aggregate(
        "string_agg(value, {1} ORDER BY n)",
        "jsonb_array_elements_text({0}) WITH ORDINALITY AS element(value, n)",
        values,
        SEPARATOR,
    )


def _names(values, dimension: DimensionInfo) -> _Sql:
    """Each key path's name chain ("Memory > Leak"), or the path if the codebook lacks it."""
    return _aggregate(
        "string_agg(coalesce({1}::jsonb ->> value, value), {2} ORDER BY n)",
        "jsonb_array_elements_text({0}) WITH ORDINALITY AS element(value, n)",
        values,
        Value(json.dumps(dimension.names)),
        SEPARATOR,
    )


def _rules(rules) -> _Sql:
    """{"kind": [rule, …]} as kind:rule cells joined with `;`, in the object's order."""
    return _aggregate(
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


def _text(value) -> Cast:
    return Cast(value, TextField())


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


# Per annotator (in the order of `ids`) one cell per dimension, in an open-coding study two
# more per dimension (the codes as written, and each one's category on the code board, in the
# same order), then note, unsure, seconds, as one array: NULL for an annotator who did not
# submit the item, as for a dimension left unanswered.
ANNOTATOR_CELLS = """(SELECT array_agg(part.cell ORDER BY who.n, part.k)
FROM unnest({{1}}::bigint[]) WITH ORDINALITY AS who(id, n)
LEFT JOIN labeler_assignment turn
    ON turn.item_id = {{0}} AND turn.annotator_id = who.id AND turn.status = {{3}}
CROSS JOIN LATERAL (
    SELECT dimension.n AS k,
           (SELECT string_agg(label.value, {{4}} ORDER BY label.n)
            FROM labeler_annotation answer,
                 jsonb_array_elements_text(answer."values") WITH ORDINALITY AS label(value, n)
            WHERE answer.item_id = {{0}} AND answer.annotator_id = who.id
              AND answer.dimension_id = dimension.id AND answer.assignment_id = turn.id
           ) AS cell
    FROM unnest({{2}}::bigint[]) WITH ORDINALITY AS dimension(id, n){codes}
    UNION ALL SELECT {{5}} + 1, turn.note
    UNION ALL SELECT {{5}} + 2, turn.unsure::text
    UNION ALL SELECT {{5}} + 3, turn.seconds::text
) AS part
)"""
# The codes of the turn's current version on each dimension (keys in {6}), then each code's
# category: the path {7} gives its board code (by id), or empty.
CODE_CELLS = """
    UNION ALL
    SELECT {8} + dimension.n,
           (SELECT string_agg(written.value, {4} ORDER BY written.n)
            FROM labeler_annotationversion version,
                 jsonb_array_elements_text(version.codes -> dimension.key)
                     WITH ORDINALITY AS written(value, n)
            WHERE version.assignment_id = turn.id AND version.number = turn.version)
    FROM unnest({2}::bigint[], {6}::text[]) WITH ORDINALITY AS dimension(id, key, n)
    UNION ALL
    SELECT 2 * {8} + dimension.n,
           (SELECT string_agg(coalesce({7}::jsonb ->> used.code_id::text, ''), {4}
                              ORDER BY written.n)
            FROM labeler_annotationversion version
            CROSS JOIN jsonb_array_elements_text(version.codes -> dimension.key)
                WITH ORDINALITY AS written(value, n)
            LEFT JOIN (
                SELECT use.code_id, use.written_as FROM labeler_codeuse use
                JOIN labeler_code code ON code.id = use.code_id
                WHERE use.assignment_id = turn.id AND code.dimension_id = dimension.id
            ) used ON used.written_as = written.value
            WHERE version.assignment_id = turn.id AND version.number = turn.version)
    FROM unnest({2}::bigint[], {6}::text[]) WITH ORDINALITY AS dimension(id, key, n)"""


def _annotator_cells(
    names: dict[int, str], dimensions: list[DimensionInfo], categories: dict[int, str] | None
) -> _Sql:
    """The annotators' cells; with `categories` (code id -> category path: an open-coding
    study), their codes and the codes' categories too."""
    groups = 1 if categories is None else 3
    return _Sql(
        ANNOTATOR_CELLS.format(codes="" if categories is None else CODE_CELLS),
        F("pk"),
        Value(list(names), output_field=ArrayField(BigIntegerField())),
        Value([d.id for d in dimensions], output_field=ArrayField(BigIntegerField())),
        Value(Assignment.Status.SUBMITTED.value),
        SEPARATOR,
        Value(groups * len(dimensions), output_field=IntegerField()),
        Value([d.key for d in dimensions], output_field=ArrayField(TextField())),
        Value(json.dumps({str(code): path for code, path in (categories or {}).items()})),
        Value(len(dimensions), output_field=IntegerField()),
        output_field=ArrayField(TextField()),
    )


def annotator_cell_count(dimensions: int, codes: bool) -> int:
    """Cells per annotator: one per dimension (three with codes), then note, unsure, seconds."""
    return dimensions * (3 if codes else 1) + 3


REPORT_CELLS = (
    _text(F("report__repository__full_name")),
    _integer(F("report__number")),
    _text(F("report__html_url")),
    _text(F("report__title")),
    _text(F("report__state")),
    _text(F("report__state_reason")),
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


# Stands for the id after which a chunk starts, in the query compiled once: no id is negative.
AFTER = -7_311_912_441_807_117_571

# Commit SHAs, pull request numbers, evidence and reverted: four cells, NULL without fix links.
FIX_CELLS = 4


def _fix_cells():
    return fix_links_joined(report=OuterRef("report_id"), separator=MULTI_SEPARATOR)


def study_csv_lines(
    *,
    study: Study,
    options: ExportOptions,
    names: dict[int, str],
    dimensions: list[DimensionInfo],
    categories: dict[int, str] | None = None,
    chunk: int = CHUNK,
) -> Iterator[list[str]]:
    """The study's CSV lines (without the header) in chunks of `chunk` items, in id order,
    with the columns of `records.Columns`: one query per chunk. `categories` (code id ->
    category path) for an open-coding study: the annotators' codes come too."""
    items = StudyItem.objects.filter(study=study)
    if options.final_only:
        items = items.filter(adjudicated_at__isnull=False)
    after_fixes = [
        _flag("report__is_performance_candidate"),
        _flag("report__is_accuracy_candidate"),
        _flag("report__is_non_bug"),
        _rules(F("report__candidate_rules")),
        _Sql("({0} IS NOT NULL)::text", F("adjudicated_at")),
    ]
    for n, dimension in enumerate(dimensions):
        values = F(f"final_{n}__values")
        after_fixes += [
            _joined(values),
            _names(values, dimension),
            *(_text(F(f"final_{n}__{field}")) for field in ("method", "reason", "rationale")),
        ]
    columns = {
        **{f"report_{n}": cell for n, cell in enumerate(REPORT_CELLS)},
        "fixes": _fix_cells(),
        **{f"cell_{n}": cell for n, cell in enumerate(after_fixes)},
    }
    # The cells in the order of the header, each array spread over its cells.
    cells = [f"line.{name}" for name in columns]
    cells[len(REPORT_CELLS) : len(REPORT_CELLS) + 1] = [
        f"line.fixes[{n}]" for n in range(1, FIX_CELLS + 1)
    ]
    if options.include_annotators and names:
        columns["answers"] = _annotator_cells(names, dimensions, categories)
        per_annotator = annotator_cell_count(len(dimensions), categories is not None)
        cells += [f"line.answers[{n}]" for n in range(1, len(names) * per_annotator + 1)]
    # First the item's id, for the next chunk and left out of the line.
    select = ", ".join(["line.item_id", *(f"NULLIF({cell}, '')" for cell in cells)])
    # Compiled once, the chunk's lower bound written as AFTER and bound anew for each chunk
    # (compiling the query took as long as a tenth of the database's work).
    sql, params = (
        items.filter(pk__gt=AFTER)
        .alias(**_final_labels(dimensions, after=AFTER))
        .annotate(item_id=F("pk"), **columns)
        .order_by("pk")
        .values_list("item_id", *columns)[:chunk]
        .query.sql_with_params()
    )
    sql = f"SELECT {select} FROM ({sql}) AS line ORDER BY line.item_id"  # noqa: S608 - columns of this module
    bounds = [n for n, param in enumerate(params) if param == AFTER]
    if len(bounds) != 1 + len(dimensions):  # once for the items, once per final-label join
        raise RuntimeError(f"the chunk's bound is in the CSV query {len(bounds)} times")
    params = list(params)
    last = 0
    while True:
        for n in bounds:
            params[n] = last
        rows = copy_csv_rows(sql, params)
        if not rows:
            return
        last = int(rows[-1].partition(",")[0])
        yield [row.partition(",")[2][:-1] + "\r\n" for row in rows]


def _final_labels(dimensions: list[DimensionInfo], *, after: int) -> dict[str, FilteredRelation]:
    """Per dimension the items' final labels, as `final_N`, of items after `after` only: the
    planner joins them by merging the (dimension, item) index, which without the lower bound
    it reads from the study's first item on for every chunk (quadratic in the study's size)."""
    return {
        f"final_{n}": FilteredRelation(
            "final_labels",
            condition=Q(final_labels__dimension_id=dimension.id, final_labels__item_id__gt=after),
        )
        for n, dimension in enumerate(dimensions)
    }
