"""A prioritised batch is marked where population figures are read: the datasheet says how it
was drawn, the analysis page that its shares include it, the compare page that a group of the
study's items does, and so do the compare API and command."""

import json
from io import StringIO
from urllib.parse import urlencode

import pytest
from django.core.management import call_command
from django.test import Client

from labeler.export.dataset import ExportOptions
from labeler.export.pipeline import Export
from labeler.screening.services import prioritised_batch_add

pytestmark = pytest.mark.django_db


@pytest.fixture
def prioritised(world, done):
    return prioritised_batch_add(study=world.study, run=done, count=12)


def test_the_datasheet_says_how_each_batch_was_drawn(world, prioritised):
    export = Export(study=world.study, fmt="csv", options=ExportOptions())
    text = export.datasheet_markdown()
    assert "| 1 | at random |" in text
    assert f"| {prioritised.number} | the 12 reports not yet in the study with the highest" in text
    assert "Batches drawn by a screening model are not random samples" in text


def test_a_study_without_one_says_nothing_of_it(world):
    text = Export(study=world.study, fmt="csv", options=ExportOptions()).datasheet_markdown()
    assert "| 1 | at random |" in text
    assert "screening model" not in text


def test_the_analysis_page_says_its_shares_include_the_prioritised_batch(world, lead, prioritised):
    client = Client()
    client.force_login(lead)
    text = client.get(f"/studies/{world.study.slug}/analysis/").content.decode()
    assert f"Batch {prioritised.number} was drawn by a screening model, not at random" in text
    prioritised.delete()
    text = client.get(f"/studies/{world.study.slug}/analysis/").content.decode()
    assert "drawn by a screening model" not in text


def test_the_compare_page_says_a_study_group_includes_model_drawn_items(world, lead, done):
    client = Client()
    client.force_login(lead)
    queries = {
        "a": f"study={world.study.slug}&final=root-cause:memory",
        "b": f"study={world.study.slug}&final_not=root-cause:memory",
    }
    url = "/reports/compare/?" + urlencode(queries)
    note = "some of its items were drawn by a screening model, not at random"
    before = client.get(url)
    assert before.status_code == 200 and 'data-testid="comparison"' in before.content.decode()
    assert note not in before.content.decode()
    prioritised_batch_add(study=world.study, run=done, count=6)
    text = client.get(url).content.decode()
    assert f"{world.study.slug}: {note}" in text
    api = client.get("/api/reports/compare/?" + url.split("?", 1)[1]).json()["prioritised"]
    assert api["studies"] == [world.study.slug]
    assert api["note"].startswith(f"{world.study.slug}: {note}")
    printed = StringIO()
    call_command("compare_reports", "--a", queries["a"], "--b", queries["b"], stdout=printed)
    assert f"Note: {world.study.slug}: {note}" in printed.getvalue()
    printed = StringIO()
    call_command(
        "compare_reports", "--a", queries["a"], "--b", queries["b"], "--json", stdout=printed
    )
    assert json.loads(printed.getvalue())["prioritised"] == api
    other = client.get("/reports/compare/?" + urlencode({"a": "state=open", "b": "state=closed"}))
    assert note not in other.content.decode()
