import csv
import json
import re

import pytest
from django.core.management import CommandError, call_command

from labeler.models import TriageRun
from labeler.screening import command
from tests.labeler.screening.conftest import LABELLED, REPORTS

pytestmark = pytest.mark.django_db


def test_the_command_gives_the_apis_json_and_a_csv(world, tmp_path, capsys):
    output = tmp_path / "scores.csv"
    call_command(
        "triage",
        world.study.slug,
        "--dimension",
        "root-cause",
        "--positive",
        "memory",
        "--json",
        "--output",
        str(output),
    )
    answer = json.loads(capsys.readouterr().out)
    assert answer["model"]["labels"] == LABELLED
    assert len(answer["scores"]) == REPORTS
    with output.open(encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert rows[0] == {
        "repository": answer["scores"][0]["repository"],
        "number": str(answer["scores"][0]["number"]),
        "score": str(answer["scores"][0]["score"]),
    }
    assert len(rows) == REPORTS
    assert TriageRun.objects.get().state == "done"


def test_the_command_prints_a_summary_naming_the_methods(world, capsys):
    call_command(
        "triage",
        world.study.slug,
        "--dimension",
        "root-cause",
        "--positive",
        "memory",
        "--reports",
        "state=closed",
    )
    text = capsys.readouterr().out
    assert "cross-validated (5 folds): AUC" in text
    assert "keyword rule (any candidates)" in text
    assert "Wilson" in text and "prediction-powered" in text
    assert "positives not yet labelled among" in text


ARGUMENTS = ["--dimension", "root-cause", "--positive", "memory"]


@pytest.mark.parametrize(
    ("slug", "arguments", "message"),
    [
        ("nope", ARGUMENTS, "no study with the slug 'nope'"),
        ("screen", ["--dimension", "cause", "--positive", "memory"], "dimension: the study"),
        ("screen", ["--dimension", "impact", "--positive", "speed"], "several categories"),
        ("screen", ["--dimension", "root-cause", "--positive", "nope"], "positive: 'nope' is not"),
        (
            "screen",
            ["--dimension", "root-cause", "--positive", "memory/bloat"],
            f"positive: too few labels to train on: 0 positive and {LABELLED} negative",
        ),
        ("screen", [*ARGUMENTS, "--reports", "x=1"], "reports.x: unknown parameter 'x'"),
        ("screen", [*ARGUMENTS, "--reports", "state=maybe"], "reports.state"),
        (
            "screen",
            [*ARGUMENTS, "--reports", "q=zzzz"],
            "reports: the query 'q=zzzz' selects no imported report",
        ),
        ("screen", [*ARGUMENTS, "--threshold", "1"], "threshold: must be between 0 and 1"),
    ],
)
def test_the_command_refuses_saying_why_and_records_nothing(world, slug, arguments, message):
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("triage", slug, *arguments)
    assert not TriageRun.objects.exists()


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("missing/scores.csv", "no folder"),
        ("folder", "a folder, not a file"),
        ("/proc/scores.csv", "cannot write in '/proc'"),
    ],
)
def test_an_output_that_cannot_be_written_is_refused_before_any_work(
    world, tmp_path, where, message
):
    (tmp_path / "folder").mkdir()
    target = tmp_path / where  # an absolute `where` stays as it is
    with pytest.raises(CommandError, match=f"--output {re.escape(str(target))}: {message}"):
        call_command("triage", world.study.slug, *ARGUMENTS, "--output", str(target))
    assert not TriageRun.objects.exists()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["folder"]


def test_a_failed_write_leaves_the_old_file_as_it_was(world, tmp_path, monkeypatch):
    output = tmp_path / "scores.csv"
    output.write_text("old\n", encoding="utf-8")

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(command.csv, "writer", broken)
    with pytest.raises(OSError, match="disk full"):
        call_command("triage", world.study.slug, *ARGUMENTS, "--output", str(output))
    assert output.read_text(encoding="utf-8") == "old\n"
    assert [path.name for path in tmp_path.iterdir()] == ["scores.csv"]


def test_the_help_names_every_flag_and_the_refusals(capsys):
    with pytest.raises(SystemExit):
        call_command("triage", "--help")
    text = " ".join(capsys.readouterr().out.split())
    for part in (
        "The study's slug.",
        "A single-select dimension's key",
        "Key path of the positive category",
        "as a /api/reports/ query",
        "default: the study's frame",
        "The candidate flag to compare with",
        "(default 0.5)",
        "Print the API's JSON",
        "--output FILE.csv",
        "fewer than 10 final labels of either class",
    ):
        assert part in text, part
