"""`manage.py load_codebook`: files, built-ins, and refusals that write nothing."""

import io

import pytest
from django.core.management import CommandError, call_command

from taxonomy.builtin import builtin_names, builtin_path
from taxonomy.codebook_file import read_codebook_file
from taxonomy.models import Category, Codebook, Dimension
from tests.taxonomy.test_codebook_file import GOOD, REVISION

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = io.StringIO()
    call_command("load_codebook", *args, stdout=out)
    return out.getvalue()


def test_loads_a_file_then_reports_it_unchanged(tmp_path):
    path = tmp_path / "perf.yaml"
    path.write_text(GOOD)

    assert run(str(path)) == f"loaded: perf v2.1 ({path})\n"
    assert run(str(path)) == f"unchanged: perf v2.1 ({path})\n"
    assert Codebook.objects.count() == 1


def test_one_bad_file_among_several_writes_nothing(tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text(GOOD)
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        GOOD.replace("key: perf", "key: other").replace("parent: memory", "parent: nope")
    )

    with pytest.raises(CommandError) as caught:
        run(str(good), str(bad))

    assert f"{bad}:17: dimensions[0].categories[1].parent: parent 'nope'" in str(caught.value)
    assert not Codebook.objects.exists()
    assert not Category.objects.exists()


def test_unknown_builtin_lists_the_shipped_ones():
    with pytest.raises(CommandError, match=r"--builtin nope: no such codebook \(shipped: .*all\)"):
        run("--builtin", "nope")


def test_no_arguments_is_an_error():
    with pytest.raises(CommandError, match="name at least one FILE or --builtin NAME"):
        run()


def test_all_builtins_load_and_reload_without_change():
    first = run("--builtin", "all")
    second = run("--builtin", "all")

    assert first.count("loaded:") == len(builtin_names()) >= 3
    assert second.count("unchanged:") == len(builtin_names())
    assert Codebook.objects.count() == len(builtin_names())


def root_cause_counts(name: str, dimension: str) -> tuple[int, int]:
    spec = read_codebook_file(builtin_path(name))
    (dim,) = [d for d in spec.dimensions if d.key == dimension]
    tops = [c for c in dim.categories if c.parent is None]
    subs = [c for c in dim.categories if c.parent is not None]
    return len(tops), len(subs)


def test_builtin_performance_root_causes_have_12_categories_and_19_subcategories():
    assert root_cause_counts("dl-performance-root-causes", "root-cause") == (12, 19)
    spec = read_codebook_file(builtin_path("dl-performance-root-causes"))
    impact = next(d for d in spec.dimensions if d.key == "impact")
    assert [c.key for c in impact.categories] == ["speed", "memory", "both"]


def test_builtin_dlperf_root_causes_have_5_categories_and_15_subcauses():
    assert root_cause_counts("dlperf", "root-cause") == (5, 15)
    spec = read_codebook_file(builtin_path("dlperf"))
    assert {d.key for d in spec.dimensions} >= {"symptom", "root-cause"}


def test_builtin_reporting_codebook_has_the_studied_dimensions_and_says_it_is_adapted():
    spec = read_codebook_file(builtin_path("dl-bug-reporting"))
    assert [d.key for d in spec.dimensions] == [
        "symptom",
        "stage",
        "information",
        "bug-relatedness",
        "resolution",
    ]
    assert "adapted" in spec.description.lower()


def test_every_builtin_category_has_a_definition():
    for name in builtin_names():
        spec = read_codebook_file(builtin_path(name))
        for dimension in spec.dimensions:
            for category in dimension.categories:
                assert len(category.definition) > 40, f"{name}:{dimension.key}:{category.path}"
    assert Dimension.objects.count() == 0


def test_a_file_with_a_revises_block_loads_as_a_revision_then_reports_it_unchanged(tmp_path):
    base = tmp_path / "perf.yaml"
    base.write_text(GOOD)
    revision = tmp_path / "perf-3.yaml"
    revision.write_text(REVISION)

    assert run(str(base), str(revision)) == (
        f"loaded: perf v2.1 ({base})\nloaded: perf v3.0 ({revision})\n"
    )
    assert run(str(revision)) == f"unchanged: perf v3.0 ({revision})\n"
    loaded = Codebook.objects.get(version="3.0")
    assert loaded.derived_from.version == "2.1"
    assert loaded.mapping["root-cause"]["memory/unreleased"] == ["memory/unreleased", "other"]


def test_a_revision_of_a_version_not_loaded_or_badly_mapped_writes_nothing(tmp_path):
    revision = tmp_path / "perf-3.yaml"
    revision.write_text(REVISION)

    with pytest.raises(CommandError, match=r"perf-3.yaml: revises version 2.1 of 'perf', which"):
        run(str(revision))

    base = tmp_path / "perf.yaml"
    base.write_text(GOOD)
    revision.write_text(REVISION.replace("      other: other\n", ""))
    with pytest.raises(CommandError) as caught:
        run(str(base), str(revision))
    assert str(caught.value) == (
        f"{revision}: dimension 'root-cause': 'other' of version 2.1 is not mapped; map it to "
        "[] if it is removed"
    )
    assert not Codebook.objects.exists()
