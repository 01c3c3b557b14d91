"""The plan of a label's move to a revised codebook version, on plain data."""

import pytest

from labeler.revisions.mapping import (
    MERGED,
    REMOVED,
    RENAMED,
    SPLIT,
    PlanError,
    category_changes,
    label_plan,
    mapping_compose,
    value_plan,
)

# v1 -> v2 of one dimension: leak kept, bloat renamed, two threading categories merged,
# io split in two, legacy removed.
CAUSE = {
    "memory/leak": ["memory/leak"],
    "memory/bloat": ["memory/overuse"],
    "threading/lock": ["concurrency"],
    "threading/race": ["concurrency"],
    "io": ["io/disk", "io/network"],
    "legacy": [],
}
MAPPING = {"root-cause": CAUSE, "symptom": {"slow": ["slow"], "crash": ["crash"]}}


def test_each_old_category_says_what_became_of_it():
    assert category_changes(CAUSE) == {
        "memory/leak": "kept",
        "memory/bloat": RENAMED,
        "threading/lock": MERGED,
        "threading/race": MERGED,
        "io": SPLIT,
        "legacy": REMOVED,
    }


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (["memory/leak"], ["memory/leak"]),  # untouched
        (["memory/bloat"], ["memory/overuse"]),  # renamed
        (["threading/race"], ["concurrency"]),  # merged
        ([], []),  # an empty single-select value stays empty
    ],
)
def test_a_single_value_renamed_merged_or_untouched_carries_over(old, new):
    plan = value_plan(CAUSE, old)
    assert (plan.values, plan.relabel, plan.why) == (new, False, {})


def test_a_single_value_on_a_split_category_needs_relabelling():
    plan = value_plan(CAUSE, ["io"])
    assert plan.relabel
    assert plan.why == {"io": SPLIT}
    assert plan.values == []


def test_a_value_on_a_removed_category_needs_relabelling_too():
    assert value_plan(CAUSE, ["legacy"]).why == {"legacy": REMOVED}


def test_a_multi_select_value_merging_into_one_category_keeps_it_once():
    plan = value_plan(CAUSE, ["threading/lock", "threading/race", "memory/bloat"])
    assert not plan.relabel
    assert plan.values == ["concurrency", "memory/overuse"]


def test_a_multi_select_value_with_one_split_path_is_flagged_whole_with_the_rest_suggested():
    plan = value_plan(CAUSE, ["memory/bloat", "io", "threading/lock"])
    assert plan.relabel
    assert plan.why == {"io": SPLIT}
    assert plan.values == ["memory/overuse", "concurrency"]


def test_new_paths_one_within_another_need_relabelling():
    nested = {"a": ["x"], "b": ["x/y"]}
    plan = value_plan(nested, ["a", "b"])
    assert plan.relabel
    assert plan.why == {"a": "overlaps", "b": "overlaps"}


def test_a_label_carries_over_dimension_by_dimension():
    plan = label_plan(MAPPING, {"root-cause": ["io"], "symptom": ["crash"]})
    assert plan.labels == {"symptom": ["crash"]}
    assert list(plan.relabel) == ["root-cause"]
    assert not plan.carried
    carried = label_plan(MAPPING, {"root-cause": ["memory/bloat"], "symptom": ["slow"]})
    assert carried.carried
    assert carried.labels == {"root-cause": ["memory/overuse"], "symptom": ["slow"]}


def test_a_label_the_mapping_cannot_place_is_an_error_naming_it():
    with pytest.raises(PlanError, match="dimension 'root-cause': 'memory/gone' is not"):
        label_plan(MAPPING, {"root-cause": ["memory/gone"]})
    with pytest.raises(PlanError, match="dimension 'effort' is not in the mapping"):
        label_plan(MAPPING, {"effort": ["low"]})


def test_mappings_compose_along_the_revisions():
    later = {
        "root-cause": {
            "memory/leak": ["memory/leak"],
            "memory/overuse": ["memory/leak"],  # merged in v3
            "concurrency": ["concurrency/lock", "concurrency/race"],  # split back in v3
            "io/disk": ["io"],
            "io/network": ["io"],  # the v2 split merged back
        }
    }
    composed = mapping_compose([MAPPING, later])
    assert composed["root-cause"] == {
        "memory/leak": ["memory/leak"],
        "memory/bloat": ["memory/leak"],
        "threading/lock": ["concurrency/lock", "concurrency/race"],
        "threading/race": ["concurrency/lock", "concurrency/race"],
        "io": ["io"],
        "legacy": [],
    }
    # A dimension the later step leaves out was removed there.
    assert composed["symptom"] == {"slow": [], "crash": []}
    assert not value_plan(composed["root-cause"], ["io"]).relabel


def test_composing_nothing_is_an_error():
    with pytest.raises(PlanError):
        mapping_compose([])
