"""How a study's labels move to a revised version of its codebook: plain data in and out.

A revision's mapping is {dimension key: {old key path: [new key paths]}} (taxonomy's
`Codebook.mapping`): one new path is the category kept or renamed (several old paths to one
new one: merged), several is a split, none a removal. A study several revisions behind takes
the mappings composed (`mapping_compose`).

A label's value carries over when every path in it has exactly one new path; it needs
re-labelling when one of them was split (the annotator must say which part it is) or removed
(it has no counterpart), or when the new paths would overlap (one within another). A
multi-select value is judged whole: one path to re-label flags the value, and the paths that
did carry over are kept as a suggestion. An empty value stays empty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

# {dimension key: {old key path: [new key paths]}}
CodebookMapping = Mapping[str, Mapping[str, Sequence[str]]]

KEPT = "kept"
RENAMED = "renamed"
MERGED = "merged"
SPLIT = "split"
REMOVED = "removed"


class PlanError(ValueError):
    """A label the mapping cannot place: a dimension or path it does not know."""


def _unique(paths) -> list[str]:
    return list(dict.fromkeys(paths))


def mapping_compose(steps: Sequence[CodebookMapping]) -> dict[str, dict[str, list[str]]]:
    """One mapping from the oldest version to the newest of `steps` (oldest step first).

    A path split then merged back is one path again; a dimension a later step leaves out
    was removed there, with every category in it."""
    if not steps:
        raise PlanError("no mapping to compose: give at least one revision")
    composed = {
        key: {old: _unique(new) for old, new in paths.items()} for key, paths in steps[0].items()
    }
    for step in steps[1:]:
        for key, paths in composed.items():
            following = step.get(key, {})
            for old, new in paths.items():
                paths[old] = _unique(path for middle in new for path in following.get(middle, ()))
    return composed


def category_changes(paths: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """What became of each old category of one dimension: kept, renamed, merged, split or
    removed (merged when another old category went to the same new one)."""
    arrivals: dict[str, int] = {}
    for new in paths.values():
        if len(new) == 1:
            arrivals[new[0]] = arrivals.get(new[0], 0) + 1
    changes = {}
    for old, new in paths.items():
        if not new:
            changes[old] = REMOVED
        elif len(new) > 1:
            changes[old] = SPLIT
        elif arrivals[new[0]] > 1:
            changes[old] = MERGED
        else:
            changes[old] = KEPT if new[0] == old else RENAMED
    return changes


@dataclass(frozen=True)
class ValuePlan:
    """One dimension's value in the new version: `values` when it carries over; else
    `relabel` is true, `why` names the paths that stop it and `values` holds what did carry
    over (a suggestion, never a label)."""

    values: list[str]
    relabel: bool = False
    why: dict[str, str] = field(default_factory=dict)


def _within(paths: Sequence[str]) -> bool:
    return any(other.startswith(path + "/") for path in paths for other in paths)


def value_plan(paths: Mapping[str, Sequence[str]], values: Sequence[str]) -> ValuePlan:
    """The plan of one dimension's value (a list of old key paths, one or none for a
    single-select dimension) under that dimension's mapping."""
    carried: list[str] = []
    why: dict[str, str] = {}
    for value in values:
        if value not in paths:
            raise PlanError(f"{value!r} is not a category the mapping knows")
        new = paths[value]
        if len(new) == 1:
            carried.append(new[0])
        else:
            why[value] = SPLIT if new else REMOVED
    carried = _unique(carried)
    if not why and _within(carried):
        why = {value: "overlaps" for value in values}
    return ValuePlan(values=carried, relabel=bool(why), why=why)


@dataclass(frozen=True)
class LabelPlan:
    """A label ({dimension key: [old key paths]}) in the new version: `labels`, the values
    that carry over, and `relabel`, the dimensions to label again (their ValuePlan)."""

    labels: dict[str, list[str]]
    relabel: dict[str, ValuePlan]

    @property
    def carried(self) -> bool:
        return not self.relabel


def label_plan(mapping: CodebookMapping, labels: Mapping[str, Sequence[str]]) -> LabelPlan:
    """Plan every dimension of a label; a dimension the mapping lacks is an error naming it."""
    new: dict[str, list[str]] = {}
    relabel: dict[str, ValuePlan] = {}
    for key, values in labels.items():
        if key not in mapping:
            raise PlanError(f"dimension {key!r} is not in the mapping")
        try:
            plan = value_plan(mapping[key], values)
        except PlanError as problem:
            raise PlanError(f"dimension {key!r}: {problem}") from None
        if plan.relabel:
            relabel[key] = plan
        else:
            new[key] = plan.values
    return LabelPlan(labels=new, relabel=relabel)
