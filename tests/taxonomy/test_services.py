"""Loading codebooks into the database: create, update, idempotence, frozen versions."""

import dataclasses

import pytest
from django.core.exceptions import ValidationError

from taxonomy.codebook_file import RevisesSpec, parse_codebook
from taxonomy.models import Category, Codebook, Dimension
from taxonomy.services import codebook_freeze, codebook_load, codebook_spec_hash
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
