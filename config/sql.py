"""Python lists as PostgreSQL array literals, for set-based SQL (`unnest(%s::bigint[])`).

psycopg2 sends a list as `ARRAY[1, 2, ...]`, an expression PostgreSQL parses element by
element: at 50,000 elements that took ten times as long as reading one literal `'{1,2,...}'`.
The literal is still a bound parameter; the SQL text stays constant.
"""

from __future__ import annotations

from collections.abc import Iterable


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
