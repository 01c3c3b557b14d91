"""In a real headless Chromium: a study's export page shows its datasheet and downloads the
dataset in each format, as its researchers and leads may and its annotators may not."""

import csv
import io
import json

import pytest
from playwright.sync_api import expect

from tests.browser.downloads import download
from tests.labeler.final_labels import ITEMS, decided_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_researcher_reads_the_datasheet_and_downloads_each_format(
    offline, sign_in, annotator, lead, researcher, make_user
):
    page = offline
    decided_study(annotator=annotator, lead=lead, researcher=researcher, make_user=make_user)
    sign_in(researcher)
    page.goto("/studies/perf/")
    page.get_by_test_id("export").click()

    expect(page.get_by_role("heading", level=1)).to_contain_text("Export ")
    sheet = page.get_by_test_id("datasheet")
    # The datasheet's Markdown drawn as HTML: its headings and tables, not its source.
    for heading in ("Composition", "Codebook", "Collection", "Labels", "Agreement"):
        expect(sheet.get_by_role("heading", name=heading, exact=True)).to_have_count(1)
    expect(sheet.locator("table").first).to_be_visible()
    expect(sheet).not_to_contain_text("## ")
    # Usernames are the leads' to ask for.
    expect(page.locator("input[name=names]")).to_have_count(0)
    page.screenshot(path="test-artifacts/study-export.png", full_page=True)

    downloads = page.get_by_test_id("downloads")
    name, text = download(page, downloads.get_by_test_id("download").click)
    assert name == "perf.csv"
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert len(rows) == len(ITEMS)
    # Four items the annotators agree on are final; the disputed one and the one labelled
    # once are not, and their labels are empty.
    assert sorted(row["final"] for row in rows) == ["false"] * 2 + ["true"] * 4
    assert {row["root-cause"] for row in rows if row["final"] == "false"} == {""}
    assert not any(column.startswith("A1.") for column in rows[0])

    downloads.get_by_label("JSON (with the datasheet)").check()
    downloads.get_by_label("Only final items").check()
    downloads.get_by_label("Each annotator's labels (by pseudonym)").check()
    name, text = download(page, downloads.get_by_test_id("download").click)
    assert name == "perf.json"
    data = json.loads(text)
    assert data["datasheet"]["options"] == {
        "include_annotators": True,
        "final_only": True,
        "annotator_names": "pseudonyms",
    }
    assert len(data["records"]) == 4
    assert all(set(record["annotators"]) == {"A1", "A2"} for record in data["records"])
    assert "ann2" not in text

    downloads.get_by_label("JSON Lines").check()
    downloads.get_by_label("Only final items").uncheck()
    name, text = download(page, downloads.get_by_test_id("download").click)
    assert name == "perf.jsonl"
    assert len([json.loads(line) for line in text.splitlines()]) == len(ITEMS)

    name, text = download(page, downloads.get_by_test_id("datasheet-md").click)
    assert name.endswith(".datasheet.md") and text.startswith("# Datasheet: ")


def test_a_lead_may_name_the_annotators(offline, sign_in, annotator, lead, researcher, make_user):
    page = offline
    decided_study(annotator=annotator, lead=lead, researcher=researcher, make_user=make_user)
    sign_in(lead)
    page.goto("/studies/perf/export/")
    downloads = page.get_by_test_id("downloads")
    downloads.get_by_label("JSON (with the datasheet)").check()
    downloads.get_by_label("Each annotator's labels (by pseudonym)").check()
    downloads.get_by_label("Usernames instead of pseudonyms (with annotators' labels)").check()
    _, text = download(page, downloads.get_by_test_id("download").click)
    records = json.loads(text)["records"]
    assert set().union(*(record["annotators"] for record in records)) == {"ann", "ann2"}


def test_an_annotator_has_no_export(offline, sign_in, annotator, lead, researcher, make_user):
    page = offline
    decided_study(annotator=annotator, lead=lead, researcher=researcher, make_user=make_user)
    sign_in(annotator)
    page.goto("/studies/perf/")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    expect(page.get_by_test_id("export")).to_have_count(0)
    response = page.request.get("/studies/perf/export/")
    assert response.status == 403
    response = page.request.get("/api/studies/perf/export/?format=csv")
    assert response.status == 403
