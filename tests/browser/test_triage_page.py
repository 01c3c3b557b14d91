"""In a real headless Chromium at 1400x900: a lead trains a screening model on the study's page,
reads its quality, estimates and ranked reports, and adds a prioritised batch from it; a class
with too few labels is refused on the form."""

import os

import pytest
from playwright.sync_api import expect

from labeler.models import StudyBatch, TriageRun
from tests.labeler.factories import CategoryFactory, DimensionFactory
from tests.labeler.screening.conftest import world  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOT = os.environ.get("TRIAGE_SCREENSHOT")


def test_a_lead_trains_reads_and_adds_a_prioritised_batch(wide, offline, sign_in, lead, world):  # noqa: F811
    sign_in(lead)
    page = wide
    page.goto(f"/studies/{world.study.slug}/")
    page.get_by_test_id("triage-link").click()
    expect(page.locator("h1")).to_have_text(f"Screening in {world.study.name}")
    page.locator("select[name=positive]").select_option("memory")
    page.get_by_test_id("triage-start").click()

    quality = page.get_by_test_id("triage-quality")
    expect(quality).to_be_visible()
    expect(page.get_by_test_id("keyword-row")).to_contain_text("keyword rule (any candidates)")
    expect(page.get_by_test_id("prevalence-ppi")).to_contain_text("prediction-powered")
    expect(page.get_by_test_id("prevalence-random")).to_contain_text("Wilson")
    expect(page.get_by_test_id("remaining")).to_contain_text("Positives not yet labelled")
    expect(page.get_by_test_id("ranked-row")).to_have_count(100)
    if SCREENSHOT:  # the page in parts a reader can see: TRIAGE_SCREENSHOT=/tmp/triage
        for part, top in enumerate((0, 1100, 2200)):
            clip = {"x": 0, "y": top, "width": 1400, "height": 1100}
            page.screenshot(path=f"{SCREENSHOT}-{part}.png", full_page=True, clip=clip)

    page.locator("input[name=count]").fill("7")
    page.get_by_test_id("batch-add").click()
    expect(page.get_by_text("7 prioritised reports, marked non-random")).to_be_visible()
    batch = StudyBatch.objects.get(study=world.study, prioritised__isnull=False)
    assert batch.sample_size == 7


def test_a_class_with_too_few_labels_is_refused_on_the_form(wide, offline, sign_in, lead, world):  # noqa: F811
    sign_in(lead)
    page = wide
    page.goto(f"/studies/{world.study.slug}/triage/")
    page.locator("select[name=positive]").select_option("memory/bloat")
    page.get_by_test_id("triage-start").click()
    errors = page.get_by_test_id("triage-errors")
    expect(errors).to_contain_text(
        "positive: too few labels to train on: 0 positive and 100 negative final labels; "
        "each class needs at least 10 (root-cause = memory/bloat)"
    )
    expect(errors).to_be_in_viewport()
    expect(page.locator("select[name=positive]")).to_have_value("memory/bloat")
    assert not TriageRun.objects.exists()
    if SCREENSHOT:
        page.screenshot(path=f"{SCREENSHOT}-refused.png")


def test_the_positive_class_is_chosen_among_the_chosen_dimensions_categories(
    wide,
    offline,
    sign_in,
    lead,
    world,  # noqa: F811
):
    # A second single-select dimension beside root-cause.
    symptom_dimension = DimensionFactory(
        codebook=world.study.codebook, key="symptom", name="Symptom", position=2
    )
    CategoryFactory(dimension=symptom_dimension, key="slow", parent=None, position=0)
    CategoryFactory(dimension=symptom_dimension, key="crash", parent=None, position=1)
    world.study.dimensions.add(symptom_dimension)
    sign_in(lead)
    page = wide
    page.goto(f"/studies/{world.study.slug}/triage/")
    dimension = page.locator("select[name=dimension]")
    positive = page.locator("select[name=positive]")
    expect(dimension).to_have_value("root-cause")
    root_cause = positive.locator("optgroup[data-dimension=root-cause]")
    symptom = positive.locator("optgroup[data-dimension=symptom]")
    expect(root_cause).to_be_enabled()
    expect(symptom).to_be_disabled()
    positive.select_option("memory/leak")

    dimension.select_option("symptom")
    expect(root_cause).to_be_disabled()
    expect(symptom).to_be_enabled()
    expect(positive).to_have_value("slow")

    dimension.select_option("root-cause")
    expect(positive).to_have_value("memory")
    positive.select_option("memory")
    page.get_by_test_id("triage-start").click()
    expect(page.get_by_test_id("triage-quality")).to_be_visible()
    assert TriageRun.objects.get().dimension == "root-cause"
