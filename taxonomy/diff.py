"""What changed between two versions of a codebook. Pure: no Django.

Categories are matched through the mappings the versions recorded when one was revised from
the other (`Codebook.mapping`, `RevisesSpec.mapping`: {dimension key: {old key path: [new key
paths]}}), composed along the chain of revisions when the versions are not adjacent and
turned around when the older version is asked for second. Without lineage, and for a
dimension no mapping names, categories are matched by key path. Dimensions are matched by key.

Read through the mapping, an old category sent to:
- no new one is removed;
- one new one that nothing else is sent to is kept, or renamed when its key path or name
  differs; its definition, criteria and examples are compared;
- one new one that others are sent to as well is merged into it;
- several new ones is split into them.
A new category that no old one is sent to is added.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from taxonomy.codebook_file import CategorySpec, CodebookSpec, DimensionSpec

# {dimension key: {old key path: (new key paths)}}
PathMapping = Mapping[str, Mapping[str, Sequence[str]]]

CATEGORY_TEXT_FIELDS = ("definition", "include", "exclude", "examples")
DIMENSION_FIELDS = ("name", "help", "multiple", "required", "leaf_only")


@dataclass(frozen=True)
class Revision:
    """A version's place in its codebook's history: the version it was revised from (None
    for a first version) and where that version's categories went."""

    revises: str | None
    mapping: PathMapping = field(default_factory=dict)


@dataclass(frozen=True)
class Lineage:
    """How two versions descend one from the other: `versions` from the diff's old version to
    its new one, `forward` when each derives from the one before it (otherwise the old
    version is the later one), and the composed `mapping` from old key paths to new ones."""

    versions: tuple[str, ...]
    forward: bool
    mapping: dict[str, dict[str, tuple[str, ...]]]


@dataclass(frozen=True)
class CategoryRef:
    path: str
    name: str

    def as_dict(self) -> dict:
        return {"path": self.path, "name": self.name}


@dataclass(frozen=True)
class FieldChange:
    field: str
    old: object
    new: object

    def as_dict(self) -> dict:
        return {"field": self.field, "from": _plain(self.old), "to": _plain(self.new)}


@dataclass(frozen=True)
class Renamed:
    old: CategoryRef
    new: CategoryRef

    def as_dict(self) -> dict:
        return {"from": self.old.as_dict(), "to": self.new.as_dict()}


@dataclass(frozen=True)
class Merged:
    into: CategoryRef
    sources: tuple[CategoryRef, ...]

    def as_dict(self) -> dict:
        return {"from": [ref.as_dict() for ref in self.sources], "into": self.into.as_dict()}


@dataclass(frozen=True)
class Split:
    source: CategoryRef
    into: tuple[CategoryRef, ...]

    def as_dict(self) -> dict:
        return {"from": self.source.as_dict(), "into": [ref.as_dict() for ref in self.into]}


@dataclass(frozen=True)
class DefinitionChanged:
    old: CategoryRef
    new: CategoryRef
    changes: tuple[FieldChange, ...]

    def as_dict(self) -> dict:
        return {
            "from": self.old.as_dict(),
            "to": self.new.as_dict(),
            "changes": [change.as_dict() for change in self.changes],
        }


@dataclass(frozen=True)
class DimensionRef:
    key: str
    name: str
    categories: tuple[str, ...]

    def as_dict(self) -> dict:
        return {"key": self.key, "name": self.name, "categories": list(self.categories)}


@dataclass(frozen=True)
class DimensionDiff:
    """A dimension both versions have, and what changed in it."""

    key: str
    name: str
    changes: tuple[FieldChange, ...] = ()
    added: tuple[CategoryRef, ...] = ()
    removed: tuple[CategoryRef, ...] = ()
    renamed: tuple[Renamed, ...] = ()
    merged: tuple[Merged, ...] = ()
    split: tuple[Split, ...] = ()
    definitions_changed: tuple[DefinitionChanged, ...] = ()

    @property
    def changed(self) -> bool:
        return any(
            (
                self.changes,
                self.added,
                self.removed,
                self.renamed,
                self.merged,
                self.split,
                self.definitions_changed,
            )
        )

    def as_dict(self) -> dict:
        return {
            "key": self.key,
            "name": self.name,
            "changes": [change.as_dict() for change in self.changes],
            "added": [ref.as_dict() for ref in self.added],
            "removed": [ref.as_dict() for ref in self.removed],
            "renamed": [entry.as_dict() for entry in self.renamed],
            "merged": [entry.as_dict() for entry in self.merged],
            "split": [entry.as_dict() for entry in self.split],
            "definitions_changed": [entry.as_dict() for entry in self.definitions_changed],
        }


@dataclass(frozen=True)
class CodebookDiff:
    key: str
    old_version: str
    new_version: str
    lineage: Lineage | None
    dimensions_added: tuple[DimensionRef, ...]
    dimensions_removed: tuple[DimensionRef, ...]
    dimensions: tuple[DimensionDiff, ...]

    @property
    def changed(self) -> bool:
        return bool(
            self.dimensions_added
            or self.dimensions_removed
            or any(dimension.changed for dimension in self.dimensions)
        )

    def as_dict(self) -> dict:
        """The diff as plain JSON values, its keys documented in docs/researcher.md."""
        lineage = None
        if self.lineage is not None:
            lineage = {
                "versions": list(self.lineage.versions),
                "direction": "forward" if self.lineage.forward else "backward",
            }
        return {
            "key": self.key,
            "from": self.old_version,
            "to": self.new_version,
            "matched_by": "mapping" if self.lineage is not None else "key path",
            "lineage": lineage,
            "changed": self.changed,
            "dimensions_added": [ref.as_dict() for ref in self.dimensions_added],
            "dimensions_removed": [ref.as_dict() for ref in self.dimensions_removed],
            "dimensions": [dimension.as_dict() for dimension in self.dimensions],
        }


def _plain(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


def compose_mappings(mappings: Sequence[PathMapping]) -> dict[str, dict[str, tuple[str, ...]]]:
    """One mapping from the oldest version's key paths to the newest's, given the mapping of
    each revision in turn (oldest first). A dimension a mapping leaves out is matched by key
    path in that step."""
    composed: dict[str, dict[str, tuple[str, ...]]] = {}
    for step in mappings:
        result: dict[str, dict[str, tuple[str, ...]]] = {}
        for dimension in composed.keys() | step.keys():
            earlier = composed.get(dimension)
            later = step.get(dimension)
            if earlier is None:
                result[dimension] = {old: tuple(new) for old, new in later.items()}
                continue
            if later is None:
                result[dimension] = dict(earlier)
                continue
            result[dimension] = {
                old: _unique(path for middle in middles for path in later.get(middle, ()))
                for old, middles in earlier.items()
            }
        composed = result
    return composed


def invert_mapping(
    mapping: PathMapping, later: CodebookSpec
) -> dict[str, dict[str, tuple[str, ...]]]:
    """The mapping read backwards, from the key paths of the `later` version to the earlier
    ones they came from (a category the later version added comes from none)."""
    inverted: dict[str, dict[str, tuple[str, ...]]] = {}
    for dimension in later.dimensions:
        paths = mapping.get(dimension.key)
        if paths is None:
            continue
        inverted[dimension.key] = {
            category.path: tuple(old for old, new in paths.items() if category.path in new)
            for category in dimension.categories
        }
    return inverted


def _ancestry(history: Mapping[str, Revision], start: str, goal: str) -> list[str] | None:
    """The versions from `start` back through what each revises to `goal`, or None."""
    chain = [start]
    while chain[-1] != goal:
        revision = history.get(chain[-1])
        if revision is None or revision.revises is None or revision.revises in chain:
            return None
        chain.append(revision.revises)
    return chain


def codebook_lineage(
    history: Mapping[str, Revision], old: CodebookSpec, new: CodebookSpec
) -> Lineage | None:
    """How `new` descends from `old` (or `old` from `new`) in a codebook's `history`
    ({version: Revision}), or None when neither derives from the other."""
    if old.version == new.version:
        return None
    chain = _ancestry(history, new.version, old.version)
    if chain is not None:
        versions = tuple(reversed(chain))
        steps = [history[version].mapping for version in versions[1:]]
        return Lineage(versions=versions, forward=True, mapping=compose_mappings(steps))
    chain = _ancestry(history, old.version, new.version)
    if chain is not None:
        steps = [history[version].mapping for version in reversed(chain[:-1])]
        return Lineage(
            versions=tuple(chain),
            forward=False,
            mapping=invert_mapping(compose_mappings(steps), later=old),
        )
    return None


def _unique(paths) -> tuple[str, ...]:
    return tuple(dict.fromkeys(paths))


def _ref(category: CategorySpec) -> CategoryRef:
    return CategoryRef(path=category.path, name=category.name)


def _dimension_ref(dimension: DimensionSpec) -> DimensionRef:
    return DimensionRef(
        key=dimension.key,
        name=dimension.name,
        categories=tuple(category.path for category in dimension.categories),
    )


def _changes(old, new, fields: Sequence[str]) -> tuple[FieldChange, ...]:
    return tuple(
        FieldChange(name, getattr(old, name), getattr(new, name))
        for name in fields
        if getattr(old, name) != getattr(new, name)
    )


def dimension_diff(
    old: DimensionSpec, new: DimensionSpec, mapping: Mapping[str, Sequence[str]] | None
) -> DimensionDiff:
    """What changed in a dimension, its old categories sent to new ones by `mapping`
    ({old key path: [new key paths]}), by key path when it is None."""
    old_categories = {category.path: category for category in old.categories}
    new_categories = {category.path: category for category in new.categories}
    if mapping is None:
        mapping = {path: (path,) if path in new_categories else () for path in old_categories}
    # A path the new version does not have (only a damaged history names one) leads nowhere.
    targets = {
        path: _unique(p for p in mapping.get(path, ()) if p in new_categories)
        for path in old_categories
    }
    sources: dict[str, list[str]] = {path: [] for path in new_categories}
    for path, sent_to in targets.items():
        for target in sent_to:
            sources[target].append(path)

    removed, renamed, split, definitions_changed = [], [], [], []
    for path, category in old_categories.items():
        sent_to = targets[path]
        if not sent_to:
            removed.append(_ref(category))
        elif len(sent_to) > 1:
            split.append(Split(_ref(category), tuple(_ref(new_categories[p]) for p in sent_to)))
        elif len(sources[sent_to[0]]) == 1:
            successor = new_categories[sent_to[0]]
            if (successor.path, successor.name) != (category.path, category.name):
                renamed.append(Renamed(_ref(category), _ref(successor)))
            changes = _changes(category, successor, CATEGORY_TEXT_FIELDS)
            if changes:
                definitions_changed.append(
                    DefinitionChanged(_ref(category), _ref(successor), changes)
                )
    added, merged = [], []
    for path, category in new_categories.items():
        if not sources[path]:
            added.append(_ref(category))
        elif len(sources[path]) > 1:
            merged.append(
                Merged(_ref(category), tuple(_ref(old_categories[p]) for p in sources[path]))
            )
    return DimensionDiff(
        key=new.key,
        name=new.name,
        changes=_changes(old, new, DIMENSION_FIELDS),
        added=tuple(added),
        removed=tuple(removed),
        renamed=tuple(renamed),
        merged=tuple(merged),
        split=tuple(split),
        definitions_changed=tuple(definitions_changed),
    )


def codebook_diff(
    old: CodebookSpec, new: CodebookSpec, *, lineage: Lineage | None = None
) -> CodebookDiff:
    """What changed from `old` to `new`, read through `lineage` when they have one."""
    mapping = lineage.mapping if lineage is not None else {}
    old_dimensions = {dimension.key: dimension for dimension in old.dimensions}
    new_keys = {dimension.key for dimension in new.dimensions}
    return CodebookDiff(
        key=new.key,
        old_version=old.version,
        new_version=new.version,
        lineage=lineage,
        dimensions_added=tuple(
            _dimension_ref(d) for d in new.dimensions if d.key not in old_dimensions
        ),
        dimensions_removed=tuple(
            _dimension_ref(d) for d in old.dimensions if d.key not in new_keys
        ),
        dimensions=tuple(
            dimension_diff(old_dimensions[d.key], d, mapping.get(d.key))
            for d in new.dimensions
            if d.key in old_dimensions
        ),
    )


def _label(ref: CategoryRef) -> str:
    return f"{ref.path} ({ref.name})"


def _value(value: object) -> str:
    return repr(_plain(value))


def lineage_text(diff: CodebookDiff) -> str:
    lineage = diff.lineage
    if lineage is None:
        return "neither version was revised from the other: categories matched by key path"
    earlier, *through, later = lineage.versions if lineage.forward else lineage.versions[::-1]
    via = f" through {', '.join(through)}" if through else ""
    recorded = "the recorded mappings" if through else "the recorded mapping"
    text = f"{later} was revised from {earlier}{via}: categories matched by {recorded}"
    return text if lineage.forward else f"{text}, read backwards"


def diff_text(diff: CodebookDiff) -> str:
    """The diff for a terminal: one line per change, grouped by dimension."""
    lines = [
        f"Codebook {diff.key}: version {diff.old_version} -> {diff.new_version}",
        f"({lineage_text(diff)})",
    ]
    for ref in diff.dimensions_added:
        lines.append(f"Dimension added: {ref.key} ({ref.name}): {', '.join(ref.categories)}")
    for ref in diff.dimensions_removed:
        lines.append(f"Dimension removed: {ref.key} ({ref.name}): {', '.join(ref.categories)}")
    for dimension in diff.dimensions:
        title = f"Dimension {dimension.key} ({dimension.name})"
        if not dimension.changed:
            lines.append(f"{title}: no change")
            continue
        lines.append(title)
        for change in dimension.changes:
            lines.append(f"  {change.field} changed: {_value(change.old)} -> {_value(change.new)}")
        lines += [f"  added: {_label(ref)}" for ref in dimension.added]
        lines += [f"  removed: {_label(ref)}" for ref in dimension.removed]
        lines += [
            f"  renamed: {_label(entry.old)} -> {_label(entry.new)}" for entry in dimension.renamed
        ]
        lines += [
            f"  merged: {', '.join(_label(ref) for ref in entry.sources)} -> {_label(entry.into)}"
            for entry in dimension.merged
        ]
        lines += [
            f"  split: {_label(entry.source)} -> {', '.join(_label(ref) for ref in entry.into)}"
            for entry in dimension.split
        ]
        for entry in dimension.definitions_changed:
            lines.append(f"  definition changed: {_label(entry.new)}")
            lines += [
                f"    {change.field}: {_value(change.old)} -> {_value(change.new)}"
                for change in entry.changes
            ]
    if not diff.changed:
        lines.append("No change.")
    return "\n".join(lines) + "\n"
