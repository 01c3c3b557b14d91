"""A study's final labels counted per dimension and crossed, with the names pages show."""

import pytest

from labeler.adjudication.selectors import study_final_labels
from labeler.analysis.study import (
    REPOSITORY,
    final_label_choices,
    study_crosstab,
    study_label_counts,
)
from labeler.common.scheme import study_scheme
from mining.selectors import report_repository_names

pytestmark = pytest.mark.django_db


@pytest.fixture
def scheme_rows(decided):
    return study_scheme(study=decided), study_final_labels(study=decided)


def test_counts_and_shares_per_dimension_in_tree_order(scheme_rows):
    scheme, rows = scheme_rows

    root_cause, impact = study_label_counts(scheme=scheme, rows=rows)

    assert root_cause["dimension"].key == "root-cause"
    assert (root_cause["items"], root_cause["none"]) == (4, 0)
    assert [(r.path, r.depth, r.count, r.share) for r in root_cause["categories"]] == [
        ("memory", 0, 2, 0.5),
        ("memory/leak", 1, 1, 0.25),
        ("memory/bloat", 1, 1, 0.25),
        ("threading", 0, 2, 0.5),
    ]
    dimension = root_cause["dimension"]
    memory, leak = (scheme.by_path(dimension)[path].name for path in ("memory", "memory/leak"))
    assert (
        root_cause["categories"][1].label
        == f"{memory} \N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK} {leak}"
    )
    assert (impact["items"], impact["none"]) == (4, 1)
    assert [(r.path, r.count, r.share) for r in impact["categories"]] == [
        ("speed", 2, 0.5),
        ("memory-use", 2, 0.5),  # item 1 has both
    ]


def test_a_dimension_by_another_counts_the_items_decided_on_both(scheme_rows):
    scheme, rows = scheme_rows

    table = study_crosstab(
        scheme=scheme,
        rows=rows,
        repositories={},
        row_axis="root-cause",
        column_axis="impact",
        level="category",
    )

    assert table["rows"] == ["memory", "threading"]
    assert table["columns"] == ["speed", "memory-use"]
    assert table["counts"] == [[2, 1], [0, 1]]
    assert table["row_totals"] == [2, 1] and table["column_totals"] == [2, 2]
    # Item 2 chose no impact.
    assert (table["items"], table["left_out"]) == (3, 1)


def test_a_dimension_by_repository_and_at_the_level_chosen(scheme_rows):
    scheme, rows = scheme_rows
    repositories = report_repository_names(report_ids={row.report_id for row in rows})

    table = study_crosstab(
        scheme=scheme,
        rows=rows,
        repositories=repositories,
        row_axis="root-cause",
        column_axis=REPOSITORY,
        level="sub-category",
    )

    # Leaf-only: "memory" itself is never chosen, so it is no row of its own.
    assert table["rows"] == ["memory/leak", "memory/bloat", "threading"]
    assert table["columns"] == table["column_labels"] == ["octo/tf", "octo/torch"]
    assert table["counts"] == [[0, 1], [0, 1], [2, 0]]
    assert (table["items"], table["left_out"]) == (4, 0)
    assert len(table["row_labels"]) == 3


def test_every_final_label_a_group_may_name(scheme_rows):
    scheme, _ = scheme_rows

    choices = final_label_choices(scheme)

    assert [value for value, _ in choices] == [
        "root-cause:memory",
        "root-cause:memory/leak",
        "root-cause:memory/bloat",
        "root-cause:threading",
        "impact:speed",
        "impact:memory-use",
    ]
    assert choices[0][1].startswith("Root cause: ")
