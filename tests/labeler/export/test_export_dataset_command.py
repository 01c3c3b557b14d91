"""export_dataset: the file, its datasheet side files, stdout, and its refusals."""

import csv
import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db


def test_csv_with_its_datasheet_beside_it(labelled_study, tmp_path):
    output = tmp_path / "perf.csv"
    err = StringIO()
    call_command(
        "export_dataset", "perf", "--format", "csv", "--output", str(output),
        "--include-annotators", stderr=err,
    )  # fmt: skip
    with output.open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == 5
    assert "A2.seconds" in rows[0]
    sheet = json.loads((tmp_path / "perf.datasheet.json").read_text("utf-8"))
    assert (sheet["format"], sheet["options"]["include_annotators"]) == ("csv", True)
    markdown = (tmp_path / "perf.datasheet.md").read_text("utf-8")
    assert markdown.startswith("# Datasheet: ")
    assert str(tmp_path / "perf.datasheet.md") in err.getvalue()


def test_json_holds_its_datasheet_and_writes_no_side_file(labelled_study, tmp_path):
    output = tmp_path / "perf.json"
    call_command(
        "export_dataset", "perf", "--format", "json", "--output", str(output), "--final-only"
    )
    found = json.loads(output.read_text("utf-8"))
    assert len(found["records"]) == 2
    assert found["datasheet"]["options"]["final_only"] is True
    assert sorted(p.name for p in tmp_path.iterdir()) == ["perf.json"]


def test_json_lines_to_stdout_with_real_names(labelled_study):
    out = StringIO()
    call_command(
        "export_dataset", "perf", "--format", "jsonl", "--include-annotators", "--real-names",
        stdout=out,
    )  # fmt: skip
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(records) == 5
    assert set(records[0]["annotators"]) == {"ann", "ann2"}


def test_refusals(labelled_study):
    with pytest.raises(CommandError, match="no study 'nope'"):
        call_command("export_dataset", "nope")
    with pytest.raises(CommandError, match="--real-names: only with --include-annotators"):
        call_command("export_dataset", "perf", "--real-names")
