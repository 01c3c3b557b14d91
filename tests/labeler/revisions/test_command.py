"""migrate_study_codebook from the command line."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from labeler.models import CodebookMigration, Study

pytestmark = pytest.mark.django_db


def run(*args):
    out = StringIO()
    call_command("migrate_study_codebook", *args, stdout=out)
    return out.getvalue()


def test_a_dry_run_prints_the_counts_and_writes_nothing(labelled_with_v2):
    out = run("perf", "2.0", "--dry-run")
    assert "would move study perf from perf v1.0 to v2.0:" in out
    assert "  11 labels carried over\n" in out
    assert "  3 labels to label again\n" in out
    assert "  1 final labels reopened\n" in out
    assert "dry run: nothing was written" in out
    assert CodebookMigration.objects.count() == 0
    assert Study.objects.get(slug="perf").codebook.version == "1.0"


def test_it_migrates_without_a_user(labelled_with_v2):
    out = run("perf", "2.0")
    assert "moved study perf from perf v1.0 to v2.0:" in out
    record = CodebookMigration.objects.get()
    assert record.migrated_by is None
    assert record.reason == "codebook migration from v1.0 to v2.0"
    assert Study.objects.get(slug="perf").codebook.version == "2.0"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nope", "2.0"), "no study 'nope'"),
        (("perf", "9.9"), r"codebook 'perf' has no version '9.9' \(it has: 1.0, 2.0\)"),
        (("perf", "1.0"), "on perf v1.0 already"),
    ],
)
def test_bad_arguments_are_refused_saying_why(labelled_with_v2, args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)
    assert CodebookMigration.objects.count() == 0
