"""migrate_study_codebook from the command line."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from labeler.models import CodebookMigration, Study
from tests.labeler.codebook_revisions import labelled_study, revise_v2

pytestmark = pytest.mark.django_db


@pytest.fixture
def labelled(annotator, make_user, lead):
    study = labelled_study(annotator=annotator, second=make_user(username="ann2"), lead=lead)
    revise_v2(study.codebook)
    return study


def run(*args):
    out = StringIO()
    call_command("migrate_study_codebook", *args, stdout=out)
    return out.getvalue()


def test_a_dry_run_prints_the_counts_and_writes_nothing(labelled):
    out = run("perf", "2.0", "--dry-run")
    assert "would move study perf from perf v1.0 to v2.0:" in out
    assert "  11 labels carried over\n" in out
    assert "  3 labels to label again\n" in out
    assert "  1 final labels reopened\n" in out
    assert "dry run: nothing was written" in out
    assert CodebookMigration.objects.count() == 0
    assert Study.objects.get(slug="perf").codebook.version == "1.0"


def test_it_migrates_without_a_user(labelled):
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
def test_bad_arguments_are_refused_saying_why(labelled, args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)
    assert CodebookMigration.objects.count() == 0
