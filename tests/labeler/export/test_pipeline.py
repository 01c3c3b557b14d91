"""The export's records, field by field, in every format, read back by the standard readers."""

import csv
import datetime as dt
import io
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from labeler.export.dataset import ExportOptions
from labeler.export.pipeline import Export
from labeler.export.records import MULTI_SEPARATOR, REPORT_FIELDS
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import Assignment

pytestmark = pytest.mark.django_db


def exported(study, fmt, **options):
    return "".join(Export(study=study, fmt=fmt, options=ExportOptions(**options)).pieces())


def by_number(records):
    return {r["number"]: r for r in records}


def test_a_record_says_everything_about_its_item(labelled_study):
    study = labelled_study["study"]
    records = by_number(json.loads(exported(study, "json"))["records"])
    assert len(records) == 5
    report = labelled_study["unanimous"].report
    found = records[report.number]
    assert found == {
        "repository": report.repository.full_name,
        "number": report.number,
        "url": report.html_url,
        "title": report.title,
        "state": "closed",
        "state_reason": "completed",
        "github_labels": ["type:bug", "module: performance"],
        "created_at": "2021-01-05T12:00:00Z",
        "closed_at": "2021-01-20T12:00:00Z",
        "time_to_fix_hours": 360.0,
        "fix_size": 12,
        "time_to_first_comment_hours": 24.0,
        "comments": 3,
        "commenters": 2,
        "participants": 3,
        "fixes": [
            {
                "commit": labelled_study["sha"],
                "pull_request": None,
                "evidence": "closed_by_commit",
                "strength": "strong",
                "reverted": False,
            },
            {
                "commit": None,
                "pull_request": 77,
                "evidence": "closing_reference",
                "strength": "weak",
                "reverted": True,
            },
        ],
        "candidates": {
            "performance": True,
            "accuracy": False,
            "non_bug": False,
            "rules": {"performance": ["label:module: performance", "keyword:slow"]},
        },
        "final": True,
        "labels": {
            "root-cause": {
                "values": ["memory/leak"],
                "names": ["Memory > Leak"],
                "method": "unanimous",
                "reason": "",
                "rationale": "",
            },
            "impact": {
                "values": ["speed"],
                "names": ["Speed"],
                "method": "unanimous",
                "reason": "",
                "rationale": "",
            },
        },
    }


def test_how_each_label_was_reached_and_items_not_final(labelled_study):
    records = by_number(json.loads(exported(labelled_study["study"], "json"))["records"])
    adjudicated = records[labelled_study["adjudicated"].report.number]
    assert adjudicated["final"] is True
    assert adjudicated["labels"]["root-cause"] == {
        "values": ["threading"],
        "names": ["Threading"],
        "method": "adjudicated",
        "reason": "annotator_slip",
        "rationale": "the trace shows lock contention",
    }
    for name in ("disputed", "half", "untouched"):
        found = records[labelled_study[name].report.number]
        assert found["final"] is False
        assert found["labels"]["root-cause"]["method"] is None
        assert found["fixes"] == []
    # The disputed item's impact was not unanimous either; the half-labelled one has nothing.
    assert records[labelled_study["disputed"].report.number]["labels"]["impact"]["values"] == []
    assert "annotators" not in adjudicated


def test_final_only_leaves_out_items_not_final(labelled_study):
    records = json.loads(exported(labelled_study["study"], "json", final_only=True))["records"]
    assert {r["number"] for r in records} == {
        labelled_study["unanimous"].report.number,
        labelled_study["adjudicated"].report.number,
    }


def test_annotators_under_pseudonyms_or_usernames(labelled_study):
    study = labelled_study["study"]
    records = by_number(json.loads(exported(study, "json", include_annotators=True))["records"])
    unanimous = records[labelled_study["unanimous"].report.number]
    assert unanimous["annotators"] == {
        "A1": {
            "labels": {"root-cause": ["memory/leak"], "impact": ["speed"]},
            "note": "clear leak, naïve",
            "unsure": False,
            "seconds": 40,
        },
        "A2": {
            "labels": {"root-cause": ["memory/leak"], "impact": ["speed"]},
            "note": "",
            "unsure": True,
            "seconds": 55,
        },
    }
    half = records[labelled_study["half"].report.number]
    assert list(half["annotators"]) == ["A1"]
    assert records[labelled_study["untouched"].report.number]["annotators"] == {}
    real = json.loads(
        exported(study, "jsonl", include_annotators=True, real_names=True).split("\n")[0]
    )
    assert set(real["annotators"]) == {"ann", "ann2"}


def test_csv_is_read_by_the_csv_module_one_column_per_dimension(labelled_study):
    text = exported(labelled_study["study"], "csv", include_annotators=True)
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert len(rows) == 5
    header = next(csv.reader(io.StringIO(text)))
    annotator_columns = ["root-cause", "impact", "note", "unsure", "seconds"]
    assert header == [
        "repository",
        "number",
        "url",
        "title",
        "state",
        "state_reason",
        "github_labels",
        "created_at",
        "closed_at",
        "time_to_fix_hours",
        "fix_size",
        "time_to_first_comment_hours",
        "comments",
        "commenters",
        "participants",
        "fix_commits",
        "fix_pull_requests",
        "fix_evidence",
        "fix_reverted",
        "performance_candidate",
        "accuracy_candidate",
        "non_bug",
        "candidate_rules",
        "final",
        "root-cause",
        "root-cause.names",
        "root-cause.method",
        "root-cause.reason",
        "root-cause.rationale",
        "impact",
        "impact.names",
        "impact.method",
        "impact.reason",
        "impact.rationale",
        *(f"A1.{name}" for name in annotator_columns),
        *(f"A2.{name}" for name in annotator_columns),
    ]
    row = {r["number"]: r for r in rows}[str(labelled_study["unanimous"].report.number)]
    assert row["github_labels"] == "type:bug;module: performance"
    assert row["fix_commits"] == labelled_study["sha"]
    assert row["fix_pull_requests"] == "77"
    assert row["fix_evidence"] == "closed_by_commit;closing_reference"
    assert row["fix_reverted"] == "false;true"
    assert (
        row["candidate_rules"] == "performance:label:module: performance;performance:keyword:slow"
    )
    assert (row["performance_candidate"], row["non_bug"], row["final"]) == ("true", "false", "true")
    assert (row["root-cause"], row["root-cause.names"], row["root-cause.method"]) == (
        "memory/leak",
        "Memory > Leak",
        "unanimous",
    )
    assert (row["A1.note"], row["A1.seconds"], row["A2.unsure"]) == (
        "clear leak, naïve",
        "40",
        "true",
    )
    disputed = {r["number"]: r for r in rows}[str(labelled_study["adjudicated"].report.number)]
    assert (disputed["root-cause.method"], disputed["root-cause.reason"]) == (
        "adjudicated",
        "annotator_slip",
    )
    assert disputed["root-cause.rationale"] == "the trace shows lock contention"
    assert (row["root-cause.reason"], row["root-cause.rationale"]) == ("", "")
    assert disputed["A2.impact"] == "speed;memory-use"
    assert disputed["A2.note"] == "locks; see #3"
    untouched = {r["number"]: r for r in rows}[str(labelled_study["untouched"].report.number)]
    assert (untouched["final"], untouched["root-cause"], untouched["A1.seconds"]) == (
        "false",
        "",
        "",
    )


def _cell(value) -> str:
    """A JSON record's value as its CSV cell: lists joined with `;`, flags as true/false."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return MULTI_SEPARATOR.join(_cell(element) for element in value)
    return str(value)


def _csv_cells(found: dict, dimensions: list[str], annotators: list[str]) -> list[str]:
    """The CSV cells of a JSON record, written here from the record alone."""
    fixes = found["fixes"]
    cells = [_cell(found[name]) for name in REPORT_FIELDS]
    cells += [
        _cell([fix["commit"] for fix in fixes if fix["commit"]]),
        _cell([fix["pull_request"] for fix in fixes if fix["pull_request"] is not None]),
        _cell([fix["evidence"] for fix in fixes]),
        _cell([fix["reverted"] for fix in fixes]),
        _cell(found["candidates"]["performance"]),
        _cell(found["candidates"]["accuracy"]),
        _cell(found["candidates"]["non_bug"]),
        _cell(
            [
                f"{kind}:{rule}"
                for kind, rules in found["candidates"]["rules"].items()
                for rule in rules
            ]
        ),
        _cell(found["final"]),
    ]
    for key in dimensions:
        label = found["labels"][key]
        cells += [_cell(label[field]) for field in ("values", "names", "method")]
        cells += [_cell(label["reason"]), _cell(label["rationale"])]
    for name in annotators:
        given = found["annotators"].get(name)
        if given is None:
            cells += [""] * (len(dimensions) + 3)
            continue
        cells += [_cell(given["labels"][key]) for key in dimensions]
        cells += [_cell(given["note"]), _cell(given["unsure"]), _cell(given["seconds"])]
    return cells


def test_csv_is_csv_writers_text_of_the_json_records(labelled_study):
    """Byte for byte what csv.writer writes of the records' cells: quoted only where a cell
    holds a comma, a quote or a line break, nothing for an empty cell, lines ended with
    CRLF, whatever the titles and notes hold."""
    from labeler.models import Assignment

    study = labelled_study["study"]
    titles = {
        "unanimous": 'Slow "fused" op,\r\nthen a crash',
        "adjudicated": "two\nlines",
        "disputed": "",
        "half": " leading space; «ünïcode» and a tab\t",
        "untouched": '"',
    }
    for key, title in titles.items():
        report = labelled_study[key].report
        report.title = title
        report.fix_hours = 0.1 if key == "half" else report.fix_hours
        report.save(update_fields=["title", "fix_hours"])
    Assignment.objects.filter(item=labelled_study["adjudicated"], note="").update(
        note='line one\nsaid "two", then\rthree'
    )
    text = exported(study, "csv", include_annotators=True)
    header = next(csv.reader(io.StringIO(text, newline="")))
    annotators = [column.removesuffix(".note") for column in header if column.endswith(".note")]
    records = json.loads(exported(study, "json", include_annotators=True))["records"]
    expected = io.StringIO(newline="")
    writer = csv.writer(expected, lineterminator="\r\n")
    writer.writerow(header)
    for found in records:
        writer.writerow(_csv_cells(found, ["root-cause", "impact"], annotators))
    assert text == expected.getvalue()
    assert '"Slow ""fused"" op,\r\nthen a crash"' in text


def test_text_that_a_spreadsheet_takes_for_a_formula_is_kept_as_it_is_and_said(labelled_study):
    """A dataset is the reports' text as GitHub has it: no quote or apostrophe is added to a
    title beginning with = + - @ (pandas and R would read it back changed); the datasheet
    says to open such a CSV with text columns."""
    study = labelled_study["study"]
    report = labelled_study["unanimous"].report
    report.title = '=HYPERLINK("http://example.invalid","x")'
    report.save(update_fields=["title"])
    text = exported(study, "csv")
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert report.title in [row["title"] for row in rows]
    export = Export(study=study, fmt="csv", options=ExportOptions())
    assert "formula" in export.datasheet["composition"]["text"]
    assert "begins with =, +, - or @" in export.datasheet_markdown()
    header = next(csv.reader(io.StringIO(text, newline="")))
    documented = export.datasheet["composition"]["final_label"]
    for column in ("root-cause.reason", "root-cause.rationale"):
        assert column in header
        assert column.replace("root-cause", "<dimension>") in documented
        assert f"`{column.replace('root-cause', '<dimension>')}`" in export.datasheet_markdown()


def test_json_lines_is_one_record_per_line(labelled_study):
    study = labelled_study["study"]
    lines = exported(study, "jsonl").splitlines()
    assert [json.loads(line) for line in lines] == json.loads(exported(study, "json"))["records"]


def test_no_email_password_or_token_in_any_export(labelled_study, annotator):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=annotator)
    for fmt in ("csv", "json", "jsonl"):
        text = exported(labelled_study["study"], fmt, include_annotators=True, real_names=True)
        assert "@example.org" not in text
        assert annotator.password not in text
        assert token.key not in text
        assert "pbkdf2" not in text


def test_each_chunk_costs_the_same_queries(labelled_study):
    """No query per item: five items in chunks of one, two or five cost the same per chunk."""
    study = labelled_study["study"]
    counts = {}
    for chunk in (1, 2, 5):
        export = Export(study=study, fmt="json", options=ExportOptions(include_annotators=True))
        export.chunk = chunk
        with CaptureQueriesContext(connection) as queries:
            assert sum(len(records) for records in export.records()) == 5
        counts[chunk] = len(queries)
    # Per chunk one query: items with reports, fix links, final labels, assignments and
    # annotations folded in; then one query that finds no further item.
    assert counts == {1: 5 + 1, 2: 3 + 1, 5: 1 + 1}


def test_a_csv_chunk_is_one_query(labelled_study):
    """The CSV folds fix links, final labels and annotators' answers into the items' query."""
    study = labelled_study["study"]
    counts = {}
    for chunk in (1, 2, 5):
        export = Export(
            study=study, fmt="csv", options=ExportOptions(include_annotators=True), chunk=chunk
        )
        pieces = export.pieces()
        next(pieces)  # the header, read before any item
        with CaptureQueriesContext(connection) as queries:
            assert sum(piece.count("\r\n") for piece in pieces) == 5
        counts[chunk] = sum("labeler_studyitem" in query["sql"] for query in queries)
        assert len(queries) == counts[chunk] + 1, [
            q["sql"] for q in queries
        ]  # + the savepoint released
    # One query a chunk, then one that finds no further item.
    assert counts == {1: 5 + 1, 2: 3 + 1, 5: 1 + 1}


def _decided_meanwhile(labelled_study, pieces, then=lambda: None) -> list[str]:
    """The export's pieces, the disputed item decided by a lead (committed, in another
    connection) after the first chunk was read; `then` called once it is."""
    import threading

    from django.db import connections

    from labeler.adjudication.services import item_adjudicate

    def decide():
        try:
            item_adjudicate(
                item_id=labelled_study["disputed"].pk,
                user=labelled_study["study"].members.get(role="lead").user,
                decisions={
                    "root-cause": {"value": "threading", "rationale": "r", "reason": "other"},
                    "impact": {"value": ["speed"], "rationale": "r", "reason": "other"},
                },
            )
        finally:
            connections.close_all()

    read = [next(pieces), next(pieces)]  # the header, then the first chunk's lines
    thread = threading.Thread(target=decide)
    thread.start()
    thread.join()
    then()
    return read + list(pieces)


@pytest.mark.django_db(transaction=True)
def test_a_csv_datasheet_counts_what_its_file_holds(labelled_study):
    """The side file's counts come from the snapshot the file was read from: a label decided
    while the file streams is in neither."""
    study = labelled_study["study"]
    export = Export(study=study, fmt="csv", options=ExportOptions(), chunk=2)

    lines = "".join(_decided_meanwhile(labelled_study, export.pieces(datasheet=True)))

    final_in_file = sum(row["final"] == "true" for row in csv.DictReader(io.StringIO(lines)))
    assert final_in_file == 2  # unanimous and adjudicated; not the disputed one
    assert export.datasheet["final_labels"]["final_items"] == 2
    # Built after the snapshot instead, it counts the item decided meanwhile.
    later = Export(study=study, fmt="csv", options=ExportOptions(), chunk=2)
    assert later.datasheet["final_labels"]["final_items"] == 3


@pytest.mark.django_db(transaction=True)
def test_the_side_files_datasheet_is_built_meanwhile_from_the_files_snapshot(
    labelled_study, monkeypatch
):
    """Built in another thread and connection while the file streams, and from the file's
    snapshot even when it starts only after a label was decided (committed)."""
    import threading

    from labeler.export import pipeline

    decided = threading.Event()
    built_in = []
    build = pipeline.study_datasheet

    def after_the_decision(**arguments):
        assert decided.wait(30)
        built_in.append(threading.current_thread())
        return build(**arguments)

    monkeypatch.setattr(pipeline, "study_datasheet", after_the_decision)
    export = Export(study=labelled_study["study"], fmt="csv", options=ExportOptions(), chunk=2)

    pieces = export.pieces(datasheet=True)
    lines = "".join(_decided_meanwhile(labelled_study, pieces, then=decided.set))

    assert built_in and built_in[0] is not threading.current_thread()
    final_in_file = sum(row["final"] == "true" for row in csv.DictReader(io.StringIO(lines)))
    assert final_in_file == export.datasheet["final_labels"]["final_items"] == 2


def test_a_record_lists_its_annotators_in_pseudonym_order(
    labelled_study, annotator, second_annotator
):
    """On the half-labelled item A2's submission is the earlier one: the record still lists
    A1, then A2 (and by username, in the same order)."""
    study, half = labelled_study["study"], labelled_study["half"]
    held = assignment_next(study=study, user=second_annotator)
    assert held.item_id == half.pk
    labels = {"root-cause": "threading", "impact": []}
    theirs = assignment_submit(assignment_id=held.pk, user=second_annotator, labels=labels)
    Assignment.objects.filter(item=half, annotator=annotator).update(
        submitted_at=theirs.submitted_at + dt.timedelta(seconds=1)
    )
    names = (annotator.username, second_annotator.username)
    for real_names, expected in ((False, ["A1", "A2"]), (True, list(names))):
        text = exported(study, "json", include_annotators=True, real_names=real_names)
        found = by_number(json.loads(text)["records"])[half.report.number]
        assert list(found["annotators"]) == expected
