"""The codebook diff on small hand-written specs: each kind of change, lineage and output."""

from taxonomy.codebook_file import CategorySpec, CodebookSpec, DimensionSpec
from taxonomy.diff import (
    CategoryRef,
    FieldChange,
    Lineage,
    Merged,
    Renamed,
    Revision,
    Split,
    codebook_diff,
    codebook_lineage,
    compose_mappings,
    diff_text,
)


def cat(path: str, name: str = "", **fields) -> CategorySpec:
    *parents, key = path.split("/")
    return CategorySpec(
        key=key,
        name=name or key.capitalize(),
        parent=parents[-1] if parents else None,
        path=path,
        **fields,
    )


def dim(key: str, *categories: CategorySpec, **fields) -> DimensionSpec:
    return DimensionSpec(key=key, name=key.capitalize(), categories=categories, **fields)


def book(version: str, *dimensions: DimensionSpec) -> CodebookSpec:
    return CodebookSpec(key="perf", name="Perf", version=version, dimensions=dimensions)


def ref(path: str, name: str = "") -> CategoryRef:
    return CategoryRef(path, name or path.rsplit("/", 1)[-1].capitalize())


def lineage(mapping, versions=("1", "2")) -> Lineage:
    return Lineage(versions=versions, forward=True, mapping=mapping)


def test_without_lineage_categories_match_by_key_path():
    old = book("1", dim("cause", cat("memory"), cat("memory/leak"), cat("other")))
    new = book("2", dim("cause", cat("memory", "Memory waste"), cat("memory/leak"), cat("io")))

    (cause,) = codebook_diff(old, new).dimensions

    assert cause.added == (ref("io"),)
    assert cause.removed == (ref("other"),)
    assert cause.renamed == (Renamed(ref("memory"), ref("memory", "Memory waste")),)
    assert cause.merged == cause.split == cause.definitions_changed == ()


def test_a_renamed_key_path_follows_the_mapping():
    old = book("1", dim("cause", cat("memory"), cat("memory/leak")))
    new = book("2", dim("cause", cat("memory"), cat("memory/unreleased", "Unreleased")))
    mapping = {"cause": {"memory": ["memory"], "memory/leak": ["memory/unreleased"]}}

    (cause,) = codebook_diff(old, new, lineage=lineage(mapping)).dimensions
    (by_path,) = codebook_diff(old, new).dimensions

    assert cause.renamed == (Renamed(ref("memory/leak"), ref("memory/unreleased", "Unreleased")),)
    assert cause.added == cause.removed == ()
    assert by_path.added == (ref("memory/unreleased", "Unreleased"),)
    assert by_path.removed == (ref("memory/leak"),)


def test_several_old_categories_sent_to_one_are_merged():
    old = book("1", dim("cause", cat("leak"), cat("copy"), cat("io")))
    new = book("2", dim("cause", cat("memory"), cat("io")))
    mapping = {"cause": {"leak": ["memory"], "copy": ["memory"], "io": ["io"]}}

    (cause,) = codebook_diff(old, new, lineage=lineage(mapping)).dimensions

    assert cause.merged == (Merged(ref("memory"), (ref("leak"), ref("copy"))),)
    assert cause.added == cause.removed == cause.renamed == cause.split == ()
    assert not cause.definitions_changed


def test_one_old_category_sent_to_several_is_split_and_one_sent_nowhere_removed():
    old = book("1", dim("cause", cat("memory"), cat("other")))
    new = book("2", dim("cause", cat("memory"), cat("memory/leak"), cat("memory/copy")))
    mapping = {"cause": {"memory": ["memory/leak", "memory/copy"], "other": []}}

    (cause,) = codebook_diff(old, new, lineage=lineage(mapping)).dimensions

    assert cause.split == (Split(ref("memory"), (ref("memory/leak"), ref("memory/copy"))),)
    assert cause.removed == (ref("other"),)
    # The new "memory" comes from no old category, though the old one had its path.
    assert cause.added == (ref("memory"),)
    assert cause.merged == cause.renamed == ()


def test_a_split_part_that_another_category_joins_is_a_merge_too():
    old = book("1", dim("cause", cat("memory"), cat("cache")))
    new = book("2", dim("cause", cat("leak"), cat("copy")))
    mapping = {"cause": {"memory": ["leak", "copy"], "cache": ["copy"]}}

    (cause,) = codebook_diff(old, new, lineage=lineage(mapping)).dimensions

    assert cause.split == (Split(ref("memory"), (ref("leak"), ref("copy"))),)
    assert cause.merged == (Merged(ref("copy"), (ref("memory"), ref("cache"))),)
    assert cause.renamed == cause.added == cause.removed == ()


def test_changed_definition_criteria_and_examples_are_listed_field_by_field():
    old = book(
        "1",
        dim("cause", cat("memory", definition="Wasted.", examples=("a leak",)), cat("io")),
    )
    new = book(
        "2",
        dim(
            "cause",
            cat("memory", definition="Wasted or leaked.", include="Any leak.", exclude="Disk."),
            cat("io"),
        ),
    )

    (cause,) = codebook_diff(old, new).dimensions

    (changed,) = cause.definitions_changed
    assert (changed.old, changed.new) == (ref("memory"), ref("memory"))
    assert changed.changes == (
        FieldChange("definition", "Wasted.", "Wasted or leaked."),
        FieldChange("include", "", "Any leak."),
        FieldChange("exclude", "", "Disk."),
        FieldChange("examples", ("a leak",), ()),
    )
    assert cause.renamed == ()


def test_a_renamed_category_whose_definition_changed_is_listed_under_both():
    old = book("1", dim("cause", cat("leak", definition="Old.")))
    new = book("2", dim("cause", cat("unreleased", definition="New.")))

    (cause,) = codebook_diff(
        old, new, lineage=lineage({"cause": {"leak": ["unreleased"]}})
    ).dimensions

    assert cause.renamed == (Renamed(ref("leak"), ref("unreleased")),)
    assert cause.definitions_changed[0].changes == (FieldChange("definition", "Old.", "New."),)


def test_dimensions_added_removed_and_changed():
    old = book("1", dim("cause", cat("memory")), dim("impact", cat("speed"), cat("memory")))
    new = book(
        "2",
        dim("symptom", cat("slow")),
        dim("cause", cat("memory"), help="Why?", multiple=True),
    )

    diff = codebook_diff(old, new)

    assert [(d.key, d.categories) for d in diff.dimensions_added] == [("symptom", ("slow",))]
    assert [(d.key, d.categories) for d in diff.dimensions_removed] == [
        ("impact", ("speed", "memory"))
    ]
    (cause,) = diff.dimensions
    assert cause.changes == (FieldChange("help", "", "Why?"), FieldChange("multiple", False, True))
    assert cause.changed and diff.changed


def test_the_same_version_has_no_change():
    spec = book("1", dim("cause", cat("memory", definition="Wasted.")))

    diff = codebook_diff(spec, spec)

    assert not diff.changed
    assert diff_text(diff).endswith("Dimension cause (Cause): no change\nNo change.\n")


def test_mappings_compose_along_the_revisions():
    first = {"cause": {"leak": ["memory"], "copy": ["memory"], "io": ["io", "disk"]}}
    second = {"cause": {"memory": ["memory/leak", "memory/copy"], "io": [], "disk": ["storage"]}}

    assert compose_mappings([first, second]) == {
        "cause": {
            "leak": ("memory/leak", "memory/copy"),
            "copy": ("memory/leak", "memory/copy"),
            "io": ("storage",),
        }
    }
    # A dimension one step leaves out is matched by key path in that step.
    assert compose_mappings([first, {}]) == {
        "cause": {k: tuple(v) for k, v in first["cause"].items()}
    }
    assert compose_mappings([{}, second])["cause"]["disk"] == ("storage",)


HISTORY = {
    "1": Revision(revises=None),
    "2": Revision(revises="1", mapping={"cause": {"leak": ["memory"], "copy": ["memory"]}}),
    "3": Revision(revises="2", mapping={"cause": {"memory": ["memory/leak", "memory/waste"]}}),
    "2b": Revision(revises="1", mapping={"cause": {"leak": ["leak"], "copy": []}}),
}
V1 = book("1", dim("cause", cat("leak"), cat("copy")))
V3 = book("3", dim("cause", cat("memory"), cat("memory/leak"), cat("memory/waste")))


def test_versions_two_revisions_apart_are_diffed_through_both_mappings():
    found = codebook_lineage(HISTORY, V1, V3)

    assert (found.versions, found.forward) == (("1", "2", "3"), True)
    (cause,) = codebook_diff(V1, V3, lineage=found).dimensions
    assert cause.split == (
        Split(ref("leak"), (ref("memory/leak"), ref("memory/waste"))),
        Split(ref("copy"), (ref("memory/leak"), ref("memory/waste"))),
    )
    assert cause.merged == (
        Merged(ref("memory/leak"), (ref("leak"), ref("copy"))),
        Merged(ref("memory/waste"), (ref("leak"), ref("copy"))),
    )
    assert cause.added == (ref("memory"),)
    assert cause.removed == ()


def test_the_older_version_asked_second_reads_the_mapping_backwards():
    v2 = book("2", dim("cause", cat("memory"), cat("io")))
    found = codebook_lineage(HISTORY, v2, V1)

    assert (found.versions, found.forward) == (("2", "1"), False)
    (cause,) = codebook_diff(v2, V1, lineage=found).dimensions
    assert cause.split == (Split(ref("memory"), (ref("leak"), ref("copy"))),)
    assert cause.removed == (ref("io"),)
    assert cause.merged == cause.added == ()
    assert (
        "2 was revised from 1: categories matched by the recorded mapping, read backwards"
        in diff_text(codebook_diff(v2, V1, lineage=found))
    )


def test_versions_revised_from_a_common_one_have_no_lineage():
    sibling = book("2b", dim("cause", cat("leak")))

    assert codebook_lineage(HISTORY, sibling, V3) is None
    assert codebook_lineage(HISTORY, V1, V1) is None
    assert "categories matched by key path" in diff_text(codebook_diff(sibling, V3))


def test_the_json_structure_names_every_kind():
    old = book("1", dim("cause", cat("leak"), cat("copy"), cat("io", definition="Disk.")))
    new = book("2", dim("cause", cat("memory"), cat("io", definition="Disk or network.")))
    mapping = {"cause": {"leak": ["memory"], "copy": ["memory"], "io": ["io"]}}

    assert codebook_diff(old, new, lineage=lineage(mapping)).as_dict() == {
        "key": "perf",
        "from": "1",
        "to": "2",
        "matched_by": "mapping",
        "lineage": {"versions": ["1", "2"], "direction": "forward"},
        "changed": True,
        "dimensions_added": [],
        "dimensions_removed": [],
        "dimensions": [
            {
                "key": "cause",
                "name": "Cause",
                "changes": [],
                "added": [],
                "removed": [],
                "renamed": [],
                "merged": [
                    {
                        "from": [
                            {"path": "leak", "name": "Leak"},
                            {"path": "copy", "name": "Copy"},
                        ],
                        "into": {"path": "memory", "name": "Memory"},
                    }
                ],
                "split": [],
                "definitions_changed": [
                    {
                        "from": {"path": "io", "name": "Io"},
                        "to": {"path": "io", "name": "Io"},
                        "changes": [
                            {"field": "definition", "from": "Disk.", "to": "Disk or network."}
                        ],
                    }
                ],
            }
        ],
    }


def test_the_text_gives_one_line_per_change_grouped_by_dimension():
    old = book(
        "1",
        dim("cause", cat("leak"), cat("copy"), cat("other"), cat("slow", examples=("a",))),
        dim("impact", cat("speed")),
    )
    new = book(
        "3",
        dim("cause", cat("memory"), cat("waiting"), cat("io"), cat("cpu"), cat("slow")),
        dim("symptom", cat("hang")),
    )
    mapping = {
        "cause": {
            "leak": ["memory"],
            "copy": ["memory"],
            "other": ["io", "cpu"],
            "slow": ["slow"],
        }
    }

    text = diff_text(codebook_diff(old, new, lineage=lineage(mapping, ("1", "2", "3"))))

    assert text == (
        "Codebook perf: version 1 -> 3\n"
        "(3 was revised from 1 through 2: categories matched by the recorded mappings)\n"
        "Dimension added: symptom (Symptom): hang\n"
        "Dimension removed: impact (Impact): speed\n"
        "Dimension cause (Cause)\n"
        "  added: waiting (Waiting)\n"
        "  merged: leak (Leak), copy (Copy) -> memory (Memory)\n"
        "  split: other (Other) -> io (Io), cpu (Cpu)\n"
        "  definition changed: slow (Slow)\n"
        "    examples: ['a'] -> []\n"
    )
