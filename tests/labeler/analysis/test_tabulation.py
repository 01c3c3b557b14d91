"""Labels counted per category and crossed, on plain data, checked by hand."""

import pytest

from labeler.analysis.tabulation import category_counts, covers, crosstab, top_level

TREE = ["memory", "memory/leak", "memory/bloat", "threading"]


def test_a_category_covers_itself_and_what_lies_below_it_only():
    assert covers("memory", "memory") and covers("memory", "memory/leak")
    assert not covers("memory", "memory-use") and not covers("memory/leak", "memory")


def test_categories_count_items_once_with_their_sub_categories():
    answers = [("memory/leak",), ("memory/leak", "memory/bloat"), ("threading",), (), ("memory",)]

    counted = category_counts(answers, TREE)

    assert counted["items"] == 5 and counted["none"] == 1
    assert [(row["path"], row["count"]) for row in counted["categories"]] == [
        ("memory", 3),  # leak, leak+bloat (once), memory itself
        ("memory/leak", 2),
        ("memory/bloat", 1),
        ("threading", 1),
    ]
    assert [row["share"] for row in counted["categories"]] == [0.6, 0.4, 0.2, 0.2]


def test_no_items_gives_no_share():
    counted = category_counts([], TREE)

    assert counted["items"] == 0
    assert {row["share"] for row in counted["categories"]} == {None}


def test_top_level_keeps_each_top_category_once_in_order():
    assert top_level(("threading", "memory/leak", "memory/bloat")) == ("threading", "memory")
    assert top_level(()) == ()


def test_crosstab_counts_every_combination_and_totals_count_items_once():
    pairs = [
        (("memory",), ("speed",)),
        (("memory",), ("speed", "memory-use")),  # a multiple-choice column: two cells
        (("threading",), ("speed",)),
        (("threading",), ()),  # nothing chosen on the columns: left out
    ]

    table = crosstab(pairs, ["memory", "threading"], ["speed", "memory-use"])

    assert table["counts"] == [[2, 1], [1, 0]]
    assert table["row_totals"] == [2, 1]
    assert table["column_totals"] == [3, 1]
    assert table["items"] == 3 and table["left_out"] == 1
    # The cells add up to more than the items: the second item sits in two of them.
    assert sum(map(sum, table["counts"])) == 4


def test_crosstab_refuses_a_key_it_was_not_given():
    with pytest.raises(ValueError, match="item 1: 'gpu' is not one of the rows or columns"):
        crosstab([(("a",), ("x",)), (("a",), ("gpu",))], ["a"], ["x"])
