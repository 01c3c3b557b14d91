"""`manage.py export_codebook`: the codebook file of a version, and its round trip through
`load_codebook` into an empty database, lineage included."""

import io

import pytest
from django.core.management import CommandError, call_command

from taxonomy.codebook_file import codebook_yaml, parse_codebook
from taxonomy.models import Category, Codebook
from taxonomy.services import codebook_load, codebook_revise
from tests.taxonomy.test_codebook_file import GOOD
from tests.taxonomy.test_services import V3, V3_MAPPING

pytestmark = pytest.mark.django_db


def run(command, *args) -> str:
    out = io.StringIO()
    call_command(command, *args, stdout=out)
    return out.getvalue()


def empty_the_database() -> None:
    Codebook.objects.exclude(derived_from=None).delete()
    Codebook.objects.all().delete()
    assert not Category.objects.exists()


def test_prints_the_codebook_file_of_a_version():
    codebook_load(spec=parse_codebook(GOOD))

    text = run("export_codebook", "perf", "2.1")

    assert text == codebook_yaml(parse_codebook(GOOD))
    assert "revises" not in text


def test_a_revised_version_round_trips_with_its_lineage(tmp_path):
    base, _ = codebook_load(spec=parse_codebook(GOOD))
    codebook_revise(base=base, spec=parse_codebook(V3), mapping=V3_MAPPING)
    first, revised = tmp_path / "perf-2.1.yaml", tmp_path / "perf-3.0.yaml"
    assert run("export_codebook", "perf", "2.1", "--output", str(first)) == (
        f"exported: perf v2.1 ({first})\n"
    )
    run("export_codebook", "perf", "3.0", "--output", str(revised))
    exported = revised.read_text(encoding="utf-8")
    assert "revises:\n  version: '2.1'\n  mapping:\n    root-cause:\n" in exported
    assert "      memory/unreleased:\n        - other/leak\n        - other\n      other: []\n" in (
        exported
    )

    empty_the_database()
    run("load_codebook", str(first), str(revised))

    loaded = Codebook.objects.get(version="3.0")
    assert loaded.derived_from == Codebook.objects.get(version="2.1")
    assert loaded.mapping == V3_MAPPING
    assert run("export_codebook", "perf", "3.0") == exported
    assert run("export_codebook", "perf", "2.1") == first.read_text(encoding="utf-8")


def test_unknown_codebook_or_version_is_named():
    codebook_load(spec=parse_codebook(GOOD))

    with pytest.raises(CommandError, match=r"^no codebook 'speed'$"):
        run("export_codebook", "speed", "2.1")
    with pytest.raises(
        CommandError, match=r"^codebook 'perf' has no version '3' \(it has: 2\.1\)$"
    ):
        run("export_codebook", "perf", "3")


def test_a_file_that_cannot_be_written_is_named(tmp_path):
    codebook_load(spec=parse_codebook(GOOD))
    target = tmp_path / "missing-folder" / "perf.yaml"

    with pytest.raises(CommandError, match=rf"^{target}: No such file or directory$"):
        run("export_codebook", "perf", "2.1", "--output", str(target))
