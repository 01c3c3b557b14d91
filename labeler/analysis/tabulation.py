"""Labels counted over items: per category, and crossed with another dimension or a
repository. Pure: no Django.

An answer is the tuple of category key paths one item has on one dimension (empty when none
was chosen on an optional dimension). A category counts an item when the answer holds the
category or one of its sub-categories (`memory` counts `memory/leak`), once per item however
many of them the answer holds; on a multiple-choice dimension the shares may therefore add up
to more than 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product


def covers(category: str, path: str) -> bool:
    """Whether `path` is the category or lies below it."""
    return path == category or path.startswith(category + "/")


def category_counts(answers: Sequence[Sequence[str]], categories: Sequence[str]) -> dict:
    """How many of the items each category counts, and its share of them.

    {"items": number of answers, "none": answers with no category, "categories": [{"path",
    "count", "share"}] in the order of `categories`}; a share is None when there is no item.
    """
    items = len(answers)
    counts = dict.fromkeys(categories, 0)
    for answer in answers:
        for category in categories:
            counts[category] += any(covers(category, path) for path in answer)
    return {
        "items": items,
        "none": sum(not answer for answer in answers),
        "categories": [
            {"path": path, "count": count, "share": count / items if items else None}
            for path, count in counts.items()
        ],
    }


def top_level(answer: Sequence[str]) -> tuple[str, ...]:
    """The distinct top-level categories of an answer, in their first order."""
    return tuple(dict.fromkeys(path.split("/", 1)[0] for path in answer))


def crosstab(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    rows: Sequence[str],
    columns: Sequence[str],
) -> dict:
    """Items counted by row key and column key.

    Each pair holds one item's row keys and column keys (an answer, its top-level categories,
    or a repository as a one-key tuple); the item counts once in every combination of them.
    An item without a row key or without a column key is left out ("left_out" counts them).
    Totals count distinct items, so on a multiple-choice dimension a total may be less than
    the sum of its cells. Returns {"rows", "columns", "counts" (a list per row), "row_totals",
    "column_totals", "items", "left_out"}.
    """
    row_index = {key: index for index, key in enumerate(rows)}
    column_index = {key: index for index, key in enumerate(columns)}
    counts = [[0] * len(columns) for _ in rows]
    row_totals = [0] * len(rows)
    column_totals = [0] * len(columns)
    items = left_out = 0
    for number, (row_keys, column_keys) in enumerate(pairs):
        row_keys, column_keys = tuple(dict.fromkeys(row_keys)), tuple(dict.fromkeys(column_keys))
        unknown = [k for k in row_keys if k not in row_index] + [
            k for k in column_keys if k not in column_index
        ]
        if unknown:
            raise ValueError(f"item {number}: {unknown[0]!r} is not one of the rows or columns")
        if not row_keys or not column_keys:
            left_out += 1
            continue
        items += 1
        for row_key, column_key in product(row_keys, column_keys):
            counts[row_index[row_key]][column_index[column_key]] += 1
        for key in row_keys:
            row_totals[row_index[key]] += 1
        for key in column_keys:
            column_totals[column_index[key]] += 1
    return {
        "rows": list(rows),
        "columns": list(columns),
        "counts": counts,
        "row_totals": row_totals,
        "column_totals": column_totals,
        "items": items,
        "left_out": left_out,
    }
