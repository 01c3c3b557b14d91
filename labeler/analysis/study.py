"""A study's final labels counted per dimension and crossed with another dimension or with
the reports' repositories, with the names the pages show."""

from __future__ import annotations

from dataclasses import dataclass

from labeler.adjudication.selectors import FinalLabelRow
from labeler.analysis.tabulation import category_counts, crosstab, top_level
from labeler.common.scheme import Scheme
from taxonomy.models import Category, Dimension

REPOSITORY = "repository"
NAME_SEPARATOR = " \N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK} "
# Levels a cross-tabulation counts a dimension at.
LEVELS = {"category": "top-level categories", "sub-category": "categories as chosen"}


@dataclass(frozen=True)
class CategoryRow:
    path: str
    label: str
    depth: int
    count: int
    share: float | None


def categories_in_tree_order(scheme: Scheme, dimension: Dimension) -> list[Category]:
    """The dimension's categories, each followed by its sub-categories, by position."""
    categories = scheme.categories[dimension.pk]
    children: dict[int | None, list[Category]] = {}
    for category in categories:
        children.setdefault(category.parent_id, []).append(category)
    ordered: list[Category] = []

    def visit(parent_id):
        for category in sorted(children.get(parent_id, []), key=lambda c: (c.position, c.pk)):
            ordered.append(category)
            visit(category.pk)

    visit(None)
    return ordered


def category_labels(scheme: Scheme, dimension: Dimension) -> dict[str, str]:
    """Each category's name with its parents', by path: "Memory > Unreleased memory", with
    a right-pointing angle quotation mark for ">"."""
    by_path = scheme.by_path(dimension)
    labels = {}
    for path in by_path:
        keys = path.split("/")
        labels[path] = NAME_SEPARATOR.join(
            by_path["/".join(keys[: depth + 1])].name for depth in range(len(keys))
        )
    return labels


def answers_by_dimension(rows: list[FinalLabelRow]) -> dict[str, dict[int, tuple[str, ...]]]:
    """{dimension key: {item id: answer}}."""
    answers: dict[str, dict[int, tuple[str, ...]]] = {}
    for row in rows:
        answers.setdefault(row.dimension, {})[row.item_id] = row.values
    return answers


def study_label_counts(*, scheme: Scheme, rows: list[FinalLabelRow]) -> list[dict]:
    """Per dimension of the study: the items with a final label on it, those with none chosen,
    each category's (and sub-category's) count and share of those items, in tree order (a
    category's count includes its sub-categories'), and `nested`: whether it has any."""
    answers = answers_by_dimension(rows)
    tables = []
    for dimension in scheme.dimensions:
        ordered = categories_in_tree_order(scheme, dimension)
        labels = category_labels(scheme, dimension)
        counted = category_counts(
            list(answers.get(dimension.key, {}).values()), [c.path for c in ordered]
        )
        tables.append(
            {
                "dimension": dimension,
                "items": counted["items"],
                "none": counted["none"],
                # A category's row counts its sub-categories' items too: shares overlap.
                "nested": any(category.depth > 0 for category in ordered),
                "categories": [
                    CategoryRow(
                        path=row["path"],
                        label=labels[row["path"]],
                        depth=category.depth,
                        count=row["count"],
                        share=row["share"],
                    )
                    for category, row in zip(ordered, counted["categories"], strict=True)
                ],
            }
        )
    return tables


def axis_choices(scheme: Scheme) -> list[tuple[str, str]]:
    """What a cross-tabulation's rows and columns may be: a dimension, or the repository."""
    return [(d.key, d.name) for d in scheme.dimensions] + [(REPOSITORY, "Repository")]


def study_crosstab(
    *,
    scheme: Scheme,
    rows: list[FinalLabelRow],
    repositories: dict[int, str],
    row_axis: str,
    column_axis: str,
    level: str,
) -> dict:
    """Items counted by the final label on `row_axis` and on `column_axis` (dimension keys or
    REPOSITORY), at `level` (a key of LEVELS); `repositories` gives each report's OWNER/NAME
    by report id. Items without a final label on a dimension axis are left out, and so are
    those with none chosen on it. The result is tabulation.crosstab's, with "row_labels" and
    "column_labels"."""
    answers = answers_by_dimension(rows)
    report_of = {row.item_id: row.report_id for row in rows}

    def axis(key: str) -> tuple[dict[int, tuple[str, ...]], list[str], dict[str, str]]:
        if key == REPOSITORY:
            keys = {item: (repositories[report],) for item, report in report_of.items()}
            names = sorted(set(repositories[report] for report in report_of.values()))
            return keys, names, {name: name for name in names}
        dimension = scheme.dimension(key)
        labels = category_labels(scheme, dimension)
        categories = categories_in_tree_order(scheme, dimension)
        given = answers.get(key, {})
        if level == "category":
            ordered = [c.path for c in categories if c.parent_id is None]
            return {item: top_level(a) for item, a in given.items()}, ordered, labels
        # As chosen: on a leaf-only dimension a category with sub-categories never is.
        ordered = [c.path for c in categories if not (dimension.leaf_only and scheme.children(c))]
        return given, ordered, labels

    row_keys, row_order, row_labels = axis(row_axis)
    column_keys, column_order, column_labels = axis(column_axis)
    items = sorted(set(row_keys) | set(column_keys))
    table = crosstab(
        [(row_keys.get(item, ()), column_keys.get(item, ())) for item in items],
        row_order,
        column_order,
    )
    return table | {
        "row_labels": [row_labels[key] for key in row_order],
        "column_labels": [column_labels[key] for key in column_order],
    }


def final_label_choices(scheme: Scheme) -> list[tuple[str, str]]:
    """Every DIMENSION:PATH a study group may name, with its label, in tree order."""
    choices = []
    for dimension in scheme.dimensions:
        labels = category_labels(scheme, dimension)
        for category in categories_in_tree_order(scheme, dimension):
            choices.append(
                (f"{dimension.key}:{category.path}", f"{dimension.name}: {labels[category.path]}")
            )
    return choices
