"""Loading codebooks into the database: create, update, idempotence, frozen versions."""

import dataclasses

import pytest
from django.core.exceptions import ValidationError

from taxonomy.codebook_file import RevisesSpec, parse_codebook
from taxonomy.models import Category, Codebook, Dimension
from taxonomy.selectors import codebook_spec
from taxonomy.services import (
    codebook_freeze,
    codebook_load,
    codebook_revise,
    codebook_spec_hash,
)
from tests.taxonomy.test_codebook_file import GOOD

pytestmark = pytest.mark.django_db


def snapshot() -> list[tuple]:
    """Everything a load can change, to compare before and after."""
    return [
        *Codebook.objects.values_list("key", "version", "name", "content_hash", "updated_at"),
        *Dimension.objects.values_list("codebook__key", "key", "name", "position", "multiple"),
        *Category.objects.order_by("pk").values_list(
            "pk", "dimension__key", "path", "name", "parent__key", "position", "definition"
        ),
    ]


def test_load_creates_codebook_dimensions_and_category_tree():
    codebook, changed = codebook_load(spec=parse_codebook(GOOD))

    assert changed
    assert (codebook.key, codebook.version, codebook.source) == ("perf", "2.1", "A study.")
    assert list(codebook.dimensions.values_list("key", flat=True)) == ["root-cause", "impact"]
    unreleased = Category.objects.get(dimension__key="root-cause", key="unreleased")
    assert unreleased.parent.key == "memory"
    assert (unreleased.path, unreleased.depth) == ("memory/unreleased", 1)
    assert Category.objects.get(key="memory").examples == ["a leak"]


def test_loading_the_same_file_twice_changes_nothing():
    codebook_load(spec=parse_codebook(GOOD))
    before = snapshot()

    _, changed = codebook_load(spec=parse_codebook(GOOD))

    assert not changed
    assert snapshot() == before


def test_reload_updates_in_place_keeping_category_ids_and_removing_dropped_ones():
    codebook_load(spec=parse_codebook(GOOD))
    memory_id = Category.objects.get(key="memory").pk
    edited = GOOD.replace("name: Memory\n", "name: Memory waste\n").replace(
        "      - key: other\n        name: Other\n", ""
    )

    _, changed = codebook_load(spec=parse_codebook(edited))

    assert changed
    memory = Category.objects.get(key="memory")
    assert (memory.pk, memory.name) == (memory_id, "Memory waste")
    assert not Category.objects.filter(key="other").exists()
    assert Codebook.objects.count() == 1


def test_a_category_can_move_under_another_parent():
    codebook_load(spec=parse_codebook(GOOD))
    moved = GOOD.replace("    parent: memory\n", "    parent: other\n")

    codebook_load(spec=parse_codebook(moved))

    assert Category.objects.get(key="unreleased").path == "other/unreleased"


def test_new_version_is_a_separate_codebook():
    codebook_load(spec=parse_codebook(GOOD))
    codebook_load(spec=parse_codebook(GOOD.replace('version: "2.1"', 'version: "2.2"')))

    assert list(Codebook.objects.values_list("version", flat=True)) == ["2.1", "2.2"]
    assert Category.objects.filter(key="memory").count() == 2


def test_frozen_version_refuses_changes_and_stays_as_it_was():
    codebook, _ = codebook_load(spec=parse_codebook(GOOD))
    codebook_freeze(codebook=codebook)
    before = snapshot()

    with pytest.raises(ValidationError, match="used by a study and cannot change"):
        codebook_load(spec=parse_codebook(GOOD.replace("name: Memory\n", "name: RAM\n")))

    assert snapshot() == before
    _, changed = codebook_load(spec=parse_codebook(GOOD))
    assert not changed


def test_a_failure_midway_leaves_the_database_as_it_was():
    codebook_load(spec=parse_codebook(GOOD))
    before = snapshot()
    spec = parse_codebook(GOOD.replace("name: Memory\n", "name: Changed\n"))
    too_long = dataclasses.replace(spec.dimensions[1], name="x" * 500)
    spec = dataclasses.replace(spec, dimensions=(spec.dimensions[0], too_long))

    with pytest.raises(Exception):  # noqa: B017 - the database error itself does not matter
        codebook_load(spec=spec)

    assert snapshot() == before


def test_a_version_that_revises_none_hashes_as_before_revises_existed():
    spec = parse_codebook(GOOD)

    assert codebook_spec_hash(spec) == (
        "063001dab68d33f09d5982ca37b9d129fa4e0027af3e75b1313cf3f92e3417a2"
    )
    revised = dataclasses.replace(spec, revises=RevisesSpec(version="2.0", mapping={}))
    assert codebook_spec_hash(revised) != codebook_spec_hash(spec)


V3 = GOOD.replace('version: "2.1"', 'version: "3.0"').replace(
    "      - key: other\n        name: Other\n",
    "      - key: other\n        name: Other\n      - key: leak\n        parent: other\n"
    "        name: Leak\n",
)
V3_MAPPING = {
    "root-cause": {"memory": ["memory"], "memory/unreleased": ["other/leak", "other"], "other": []},
    "impact": {"speed": ["speed"]},
}


def test_revise_loads_the_new_version_derived_from_the_old_with_its_mapping():
    base, _ = codebook_load(spec=parse_codebook(GOOD))

    revision = codebook_revise(base=base, spec=parse_codebook(V3), mapping=V3_MAPPING)

    revision.refresh_from_db()
    assert (revision.version, revision.derived_from, revision.frozen) == ("3.0", base, False)
    assert revision.mapping == V3_MAPPING
    assert Category.objects.get(dimension__codebook=revision, key="leak").path == "other/leak"
    spec = codebook_spec(codebook=revision)
    assert spec.revises == RevisesSpec(
        version="2.1",
        mapping={
            "root-cause": {
                "memory": ("memory",),
                "memory/unreleased": ("other/leak", "other"),
                "other": (),
            },
            "impact": {"speed": ("speed",)},
        },
    )
    assert codebook_spec_hash(spec) == revision.content_hash


def test_revising_again_with_the_same_content_changes_nothing():
    base, _ = codebook_load(spec=parse_codebook(GOOD))
    first = codebook_revise(base=base, spec=parse_codebook(V3), mapping=V3_MAPPING)
    before = snapshot()

    again = codebook_revise(base=base, spec=parse_codebook(V3), mapping=V3_MAPPING)

    assert again == first
    assert snapshot() == before


def test_a_taken_version_is_refused():
    base, _ = codebook_load(spec=parse_codebook(GOOD))
    codebook_revise(base=base, spec=parse_codebook(V3), mapping=V3_MAPPING)
    other = {**V3_MAPPING, "impact": {"speed": []}}

    with pytest.raises(ValidationError, match=r"already has a version '3\.0': give the revision"):
        codebook_revise(base=base, spec=parse_codebook(V3), mapping=other)
    with pytest.raises(ValidationError, match=r"already has a version '2\.1'"):
        codebook_revise(
            base=base,
            spec=parse_codebook(GOOD),
            mapping=V3_MAPPING
            | {"root-cause": {"memory": ["memory"], "memory/unreleased": [], "other": ["other"]}},
        )


def revise_problems(mapping, text=V3) -> list[str]:
    base, _ = codebook_load(spec=parse_codebook(GOOD))
    with pytest.raises(ValidationError) as caught:
        codebook_revise(base=base, spec=parse_codebook(text), mapping=mapping)
    return caught.value.messages


def test_every_mapping_problem_names_its_dimension_and_path():
    mapping = {
        "root-cause": {
            "memory": ["memory", "memory"],
            "memory/unreleased": ["other/lek"],
            "memroy": ["memory"],
        },
        "symptom": {"slow": []},
    }

    assert revise_problems(mapping) == [
        "dimension 'symptom': version 2.1 has no such dimension (it has: root-cause, impact)",
        "dimension 'root-cause': 'memroy' is not a category of version 2.1",
        "dimension 'root-cause': 'memory' maps to the same path twice",
        "dimension 'root-cause': 'memory/unreleased' maps to 'other/lek', which is not a "
        "category of version 3.0",
        "dimension 'root-cause': 'other' of version 2.1 is not mapped; map it to [] if it is "
        "removed",
        "dimension 'impact': not in the mapping; map each of its categories (speed), to [] if "
        "removed",
    ]
    assert list(Codebook.objects.values_list("version", flat=True)) == ["2.1"]


def test_a_revision_of_another_key_or_naming_another_version_is_refused():
    text = V3.replace("key: perf", "key: speed").replace(
        "dimensions:\n", "revises:\n  version: '1.0'\n  mapping: {}\ndimensions:\n", 1
    )

    problems = revise_problems(V3_MAPPING, text)

    assert problems[:2] == [
        "the revision's key 'speed' is not the key of the version it revises ('perf')",
        "the revision says it revises version 1.0, not 2.1",
    ]


def test_paths_mapped_into_a_dropped_dimension_are_refused():
    without_impact = V3.split("  - key: impact\n")[0]

    assert revise_problems(V3_MAPPING, without_impact) == [
        "dimension 'impact': 'speed' maps to speed, but version 3.0 has no dimension 'impact'"
    ]
    base = Codebook.objects.get(version="2.1")
    dropped = codebook_revise(
        base=base,
        spec=parse_codebook(without_impact),
        mapping={**V3_MAPPING, "impact": {"speed": []}},
    )
    assert list(dropped.dimensions.values_list("key", flat=True)) == ["root-cause"]
