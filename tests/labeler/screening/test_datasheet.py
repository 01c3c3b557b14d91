"""A prioritised batch is marked where population figures are read: the datasheet says how it
was drawn, the analysis page that its shares include it."""

import pytest
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
