"""The export of an open-coding study: each annotator's codes as written, their memo, and each
code's category on the code board, in CSV (from COPY), JSON and JSON Lines, and the datasheet
says how."""

import csv
import io
import json

import pytest

from labeler.export.dataset import ExportOptions
from labeler.export.markdown import datasheet_markdown
from labeler.export.pipeline import Export
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import Board, Code, Theme
from tests.labeler.export.test_pipeline import _cell
from tests.labeler.factories import OpenStudyFactory, StudyItemFactory, UserFactory

pytestmark = pytest.mark.django_db

DIMENSIONS = ["root-cause", "symptom"]


def exported(study, fmt):
    options = ExportOptions(include_annotators=True, real_names=False)
    return "".join(Export(study=study, fmt=fmt, options=options).pieces())


@pytest.fixture
def coded_export_study():
    """Two items coded by alice then bob; the board sorts "leak" under memory/leak, "cache,
    too big" is merged into "leak", and "lock; race" is under no category."""
    study = OpenStudyFactory(slug="pilot", overlap=2)
    for position in range(2):
        StudyItemFactory(study=study, position=position)
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    answers = [
        (alice, {"root-cause": ["leak", "lock; race"], "symptom": ["slow"]}, "memo, with a comma"),
        (bob, {"root-cause": ["cache, too big"], "symptom": ["oom"]}, 'says "why"'),
        (alice, {"root-cause": ["leak"], "symptom": ["slow"]}, ""),
        (bob, {"root-cause": ["lock; race"], "symptom": ["hang"]}, "second line\nhere"),
    ]
    for user, codes, memo in answers:
        held = assignment_next(study=study, user=user)
        assignment_submit(assignment_id=held.pk, user=user, labels={}, codes=codes, note=memo)
    board = Board.objects.get(study=study)
    root_cause = study.dimensions.get(key="root-cause")
    memory = Theme.objects.create(board=board, dimension=root_cause, key="memory", name="Memory")
    leak_theme = Theme.objects.create(
        board=board, dimension=root_cause, parent=memory, key="leak", name="Leak"
    )
    leak = Code.objects.get(board=board, name="leak")
    Code.objects.filter(pk=leak.pk).update(theme=leak_theme)
    Code.objects.filter(board=board, name="cache, too big").update(merged_into=leak)
    return study


def test_json_and_jsonl_carry_each_annotators_codes_memo_and_categories(coded_export_study):
    records = json.loads(exported(coded_export_study, "json"))["records"]
    first, second = records
    assert list(first["annotators"]) == ["A1", "A2"]
    alice, bob = first["annotators"]["A1"], first["annotators"]["A2"]
    assert alice["codes"] == {
        "root-cause": [
            {"code": "leak", "category": "memory/leak"},
            {"code": "lock; race", "category": None},
        ],
        "symptom": [{"code": "slow", "category": None}],
    }
    assert alice["note"] == "memo, with a comma"
    assert bob["codes"]["root-cause"] == [{"code": "cache, too big", "category": "memory/leak"}]
    assert second["annotators"]["A2"]["codes"]["symptom"] == [{"code": "hang", "category": None}]
    lines = [json.loads(line) for line in exported(coded_export_study, "jsonl").splitlines()]
    assert [line["annotators"] for line in lines] == [r["annotators"] for r in records]


def _csv_cells(found: dict, header: list[str]) -> dict[str, str]:
    """The annotators' CSV cells of a JSON record, from the record alone."""
    cells = {}
    for name, given in found["annotators"].items():
        for key in DIMENSIONS:
            cells[f"{name}.{key}"] = _cell(given["labels"][key])
            cells[f"{name}.{key}.codes"] = _cell([c["code"] for c in given["codes"][key]])
            cells[f"{name}.{key}.categories"] = _cell([c["category"] for c in given["codes"][key]])
        cells[f"{name}.note"] = _cell(given["note"])
        cells[f"{name}.unsure"] = _cell(given["unsure"])
        cells[f"{name}.seconds"] = _cell(given["seconds"])
    return cells


def test_csv_from_copy_has_the_codes_as_csv_writer_writes_the_records(coded_export_study):
    text = exported(coded_export_study, "csv")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    header = rows[0]
    first = header.index("A1.root-cause")
    assert header[first:] == [
        "A1.root-cause",
        "A1.symptom",
        "A1.root-cause.codes",
        "A1.symptom.codes",
        "A1.root-cause.categories",
        "A1.symptom.categories",
        "A1.note",
        "A1.unsure",
        "A1.seconds",
        *(column.replace("A1", "A2") for column in header[first : first + 9]),
    ]
    records = json.loads(exported(coded_export_study, "json"))["records"]
    for row, found in zip(rows[1:], records, strict=True):
        expected = _csv_cells(found, header)
        assert dict(zip(header[first:], row[first:], strict=True)) == expected
    by_column = dict(zip(header, rows[1], strict=True))
    assert by_column["A1.root-cause.codes"] == "leak;lock; race"
    assert by_column["A1.root-cause.categories"] == "memory/leak;"
    assert by_column["A2.root-cause.categories"] == "memory/leak"
    # Byte for byte: each line is csv.writer's over the cells.
    expected = io.StringIO(newline="")
    csv.writer(expected, lineterminator="\r\n").writerows(rows)
    assert text == expected.getvalue()


def test_the_datasheet_says_where_the_codes_are(coded_export_study):
    export = Export(
        study=coded_export_study, fmt="json", options=ExportOptions(include_annotators=True)
    )
    sheet = json.loads("".join(export.pieces()))["datasheet"]
    assert "A1.<dimension>.codes" in sheet["composition"]["codes"]
    assert "Codes of an open-coding round" in datasheet_markdown(sheet)


def test_a_closed_study_has_no_code_columns(labelled_study):
    text = exported(labelled_study["study"], "csv")
    header = next(csv.reader(io.StringIO(text, newline="")))
    assert not any(column.endswith((".codes", ".categories")) for column in header)
    record = json.loads(exported(labelled_study["study"], "json"))["records"][0]
    assert all("codes" not in given for given in record["annotators"].values())
