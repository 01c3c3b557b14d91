"""SQL helpers: Python lists as PostgreSQL array literals, and COPY's CSV rows.

Python lists as PostgreSQL array literals, for set-based SQL (`unnest(%s::bigint[])`):

psycopg2 sends a list as `ARRAY[1, 2, ...]`, an expression PostgreSQL parses element by
element: at 50,000 elements that took ten times as long as reading one literal `'{1,2,...}'`.
The literal is still a bound parameter; the SQL text stays constant.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence

from django.db import connection
from django.db.backends.utils import CursorDebugWrapper


def int_array(values: Iterable[int]) -> str:
    """`{1,2,3}` for `%s::bigint[]` (or `::int[]`)."""
    return "{" + ",".join(map(str, map(int, values))) + "}"


def text_array(values: Iterable[str]) -> str:
    """`{"a","b \\"c\\""}` for `%s::text[]`: every element quoted, so none reads as NULL."""
    return (
        "{"
        + ",".join('"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"' for value in values)
        + "}"
    )


class _Rows(io.TextIOBase):
    """Where psycopg2's copy_expert writes COPY's rows: one write per row, kept in a list."""

    def __init__(self):
        self.rows: list[str] = []

    def write(self, row: str) -> int:
        self.rows.append(row)
        return len(row)


def copy_csv_rows(sql: str, params: Sequence = ()) -> list[str]:
    """The rows of `COPY (sql) TO STDOUT WITH (FORMAT csv)` on the default connection, in its
    transaction, each a string ending with LF as PostgreSQL writes it: cells quoted only
    when they hold a comma, a quote or a line break (quotes doubled), NULL as an empty cell,
    an empty string as `""`. PostgreSQL sends one CopyData message per row ("always one per
    row", in the protocol's words) and psycopg2 writes each as it comes, so each element is
    one whole row. Logged like any query (CaptureQueriesContext, DEBUG) and its errors
    raised as Django's."""
    statement = f"COPY ({connection.ops.compose_sql(sql, params)}) TO STDOUT WITH (FORMAT csv)"
    sink = _Rows()
    with connection.cursor() as cursor, connection.wrap_database_errors:
        if isinstance(cursor, CursorDebugWrapper):
            with cursor.debug_sql(statement):
                cursor.cursor.copy_expert(statement, sink)
        else:
            cursor.cursor.copy_expert(statement, sink)
    return sink.rows
