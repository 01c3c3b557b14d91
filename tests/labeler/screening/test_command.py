import csv
import json

import pytest
from django.core.management import CommandError, call_command

from labeler.models import TriageRun
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


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--dimension", "root-cause", "--positive", "memory/bloat"], "0 positive"),
        (["--dimension", "cause", "--positive", "memory"], "dimension:"),
        (["--dimension", "root-cause", "--positive", "memory", "--reports", "x=1"], "reports.x"),
    ],
)
def test_the_command_refuses_saying_why(world, arguments, message):
    with pytest.raises(CommandError, match=message):
        call_command("triage", world.study.slug, *arguments)
