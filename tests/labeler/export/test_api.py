"""The export API for every role, its formats read by the standard readers, and its options."""

import csv
import io
import json

import pytest

from tests.labeler.role_calls import statuses

pytestmark = pytest.mark.django_db

EXPORT = "/api/studies/{slug}/export/"
DATASHEET = "/api/studies/{slug}/export/datasheet/"


def body(response) -> str:
    return b"".join(response.streaming_content).decode("utf-8")


@statuses(
    annotator=403,
    other_annotator=403,
    lead=200,
    researcher=200,
    outsider=404,
    anonymous=401,
    staff=200,
)
@pytest.mark.parametrize("path", [EXPORT, DATASHEET])
def test_who_exports(call, role, expected, path):
    response = call(role, "get", path)
    assert response.status_code == expected
    if expected != 200:
        assert set(response.json()) == {"message", "fields"}


@statuses(
    annotator=403,
    other_annotator=403,
    lead=200,
    researcher=403,
    outsider=404,
    anonymous=401,
    staff=200,
)
def test_only_leads_see_annotators_names(call, role, expected):
    response = call(role, "get", EXPORT + "?format=jsonl&annotators=true&names=real")
    assert response.status_code == expected
    if expected == 200:
        first = json.loads(body(response).splitlines()[0])
        assert set(first["annotators"]) == {"ann", "ann2"}


def test_each_format_streams_and_is_read_by_its_reader(call):
    response = call("researcher", "get", EXPORT + "?format=csv&annotators=true")
    assert response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="perf.csv"'
    rows = list(csv.DictReader(io.StringIO(body(response), newline="")))
    assert len(rows) == 4
    assert {row["final"] for row in rows} == {"true", "false"}
    assert "A1.root-cause" in rows[0]

    response = call("researcher", "get", EXPORT + "?format=json&final_only=true")
    assert response["Content-Type"] == "application/json"
    found = json.loads(body(response))
    assert found["datasheet"]["options"]["final_only"] is True
    assert [r["final"] for r in found["records"]] == [True]

    response = call("researcher", "get", EXPORT + "?format=jsonl")
    assert response["Content-Type"] == "application/x-ndjson"
    lines = body(response).splitlines()
    assert [json.loads(line)["number"] for line in lines] == [
        r["number"]
        for r in json.loads(body(call("lead", "get", EXPORT + "?format=json")))["records"]
    ]


def test_the_datasheet_in_markdown_and_json(call):
    response = call("researcher", "get", DATASHEET)
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    assert response.content.decode().startswith("# Datasheet: ")
    response = call("researcher", "get", DATASHEET + "?format=json&export_format=jsonl")
    sheet = response.json()
    assert (sheet["format"], sheet["annotators"]) == ("jsonl", 2)


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("?format=xlsx", "format"),
        ("?names=real", "names"),
        ("?final=1", "final"),
        ("?annotators=maybe", "annotators"),
    ],
)
def test_a_bad_query_is_refused_naming_the_field(call, query, field):
    response = call("lead", "get", EXPORT + query)
    assert response.status_code == 400
    assert field in response.json()["fields"]
