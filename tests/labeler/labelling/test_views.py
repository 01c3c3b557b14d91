"""The labelling page: for the study's annotators, with the scheme and the API's addresses,
and nobody's labels."""

import json
import re

import pytest

from tests.labeler.submissions import OTHER_LABELS, submitted

pytestmark = pytest.mark.django_db


def test_label_page_needs_the_annotator_role_in_the_study(client, study, lead, annotator):
    client.force_login(lead)
    assert client.get("/studies/perf/label/").status_code == 403
    client.force_login(annotator)
    assert client.get("/studies/perf/label/").status_code == 200


def label_config(html: str) -> dict:
    match = re.search(r'<script id="label-config" type="application/json">(.*?)</script>', html)
    return json.loads(match.group(1))


def test_label_page_ships_the_scheme_and_api_addresses_but_no_labels(
    client, study, annotator, second_annotator
):
    submitted(study, second_annotator, labels=OTHER_LABELS, note="ann2 thinks threads")
    client.force_login(annotator)

    html = client.get("/studies/perf/label/").content.decode()

    config = label_config(html)
    root_cause, impact = config["dimensions"]
    assert [c["path"] for c in root_cause["categories"]] == [
        "memory",
        "memory/leak",
        "memory/bloat",
        "threading",
    ]
    assert root_cause["categories"][1]["parent"] == "memory"
    assert root_cause["leafOnly"] is True and impact["multiple"] is True
    assert root_cause["categories"][0]["definition"] == "What this category means."
    assert config["urls"]["next"] == "/api/studies/perf/next/"
    assert config["urls"]["submit"] == "/api/assignments/{id}/submit/"
    assert config["urls"]["report"] == "/studies/perf/items/{id}/report/"
    assert [r["value"] for r in config["skipReasons"]] == [
        "not_a_bug",
        "not_enough_information",
        "cannot_judge",
    ]
    assert "ann2 thinks threads" not in html
    assert "ann2" not in html
    assert 'src="/static/js/label.js"' in html
    assert "Keyboard shortcuts" in html
