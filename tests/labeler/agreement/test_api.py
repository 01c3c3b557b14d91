"""The agreement API for every role, and its query."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from tests.labeler.role_calls import statuses

pytestmark = pytest.mark.django_db

PATH = "/api/studies/{slug}/agreement/"


@statuses(
    annotator=403,
    other_annotator=403,
    lead=200,
    researcher=200,
    outsider=404,
    anonymous=401,
    staff=200,
)
def test_agreement(call, role, expected):
    response = call(role, "get", PATH + "?bootstrap=10")
    assert response.status_code == expected
    if expected == 200:
        body = response.json()
        assert body["study"] == "perf"
        assert [(d["dimension"], d["level"]) for d in body["dimensions"]] == [
            ("root-cause", "top"),
            ("root-cause", "path"),
            ("impact", "path"),
        ]
        path = body["dimensions"][1]
        assert (path["items"], path["annotators"], path["percent_agreement"]) == (2, 2, 0.5)
        # Researchers see who agrees with whom by pseudonym only.
        names = path["cohen_kappa_pairs"][0]["annotators"]
        assert names == (["A1", "A2"] if role == "researcher" else ["ann", "ann2"])
    else:
        assert set(response.json()) == {"message", "fields"}


def test_the_api_answers_what_the_command_prints(call, study):
    out = StringIO()
    call_command("agreement", "perf", "--json", "--bootstrap", "30", stdout=out)
    assert call("lead", "get", PATH + "?bootstrap=30").json() == json.loads(out.getvalue())


def test_per_batch_and_per_window(call):
    body = call("lead", "get", PATH + "?by=batch&dimension=root-cause&bootstrap=0").json()
    assert body["by"] == "batch"
    assert [b["batch"] for b in body["batches"]] == [1]
    assert [d["dimension"] for d in body["batches"][0]["dimensions"]] == ["root-cause"] * 2

    body = call("lead", "get", PATH + "?window=2&dimension=impact").json()
    assert (body["by"], body["window"]) == ("window", 2)
    (impact,) = body["dimensions"]
    assert [(w["first"], w["last"]) for w in impact["windows"]] == [(1, 2)]


@pytest.mark.parametrize(
    ("query", "field", "words"),
    [
        ("?dimension=root-kause", "dimension", "did you mean 'root-cause'"),
        ("?by=window", "window", "number of items per window"),
        ("?by=batch&window=5", "window", "only with by=window"),
        ("?window=1", "window", "greater than or equal to 2"),
        ("?by=month", "by", "not a valid choice"),
        ("?bootstrap=-1", "bootstrap", "greater than or equal to 0"),
        ("?bootstrap=100000", "bootstrap", "less than or equal to 10000"),
        ("?windows=5", "windows", "did you mean 'window'"),
        ("?half_width=2", "half_width", "less than or equal to 0.999"),
        ("?half_width=wide", "half_width", "valid number"),
    ],
)
def test_a_bad_query_is_named(call, query, field, words):
    response = call("lead", "get", PATH + query)
    assert response.status_code == 400
    assert words in response.json()["fields"][field][0]


PLAN = "/api/agreement/plan/?expected=0.7&shares=0.2,0.3,0.5&half_width=0.1"


@statuses(
    annotator=200,
    other_annotator=200,
    lead=200,
    researcher=200,
    outsider=200,
    anonymous=401,
    staff=200,
)
def test_the_double_coding_plan(call, role, expected):
    response = call(role, "get", PLAN + "&annotators=3&seed=2")
    assert response.status_code == expected
    if expected == 200:
        plan = response.json()
        assert plan["annotators"] == 3 and plan["seed"] == 2 and plan["draws"] == 400
        assert plan["items"] > 0
        assert plan["half_width"] == pytest.approx(0.1, rel=0.05)
        assert "bootstrap" in plan["method"]


@pytest.mark.parametrize(
    ("query", "field", "words"),
    [
        ("?expected=0.7&shares=0.5&half_width=0.1", "shares", "2 to 50 positive shares"),
        ("?expected=0.7&shares=a,b&half_width=0.1", "shares", "numbers separated by commas"),
        ("?expected=1.5&shares=0.5,0.5&half_width=0.1", "expected", "less than or equal to"),
        ("?expected=0.7&shares=0.5,0.5", "half_width", "required"),
        ("?expected=0.7&shares=0.5,0.5&half_width=0.1&coefficient=ac1", "coefficient", "valid"),
    ],
)
def test_a_bad_plan_query_is_named(call, query, field, words):
    response = call("lead", "get", "/api/agreement/plan/" + query)
    assert response.status_code == 400
    assert words in response.json()["fields"][field][0]
