"""In a real headless Chromium: set a study up with a sample preview, then manage it."""

import pytest
from playwright.sync_api import expect

from labeler.models import Study, StudyMember
from tests.labeler.factories import labelling_codebook
from tests.mining.factories import BugReportFactory, RepositoryFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def frame():
    torch = RepositoryFactory(owner="pytorch", name="pytorch")
    tf = RepositoryFactory(owner="tensorflow", name="tensorflow")
    for number in range(1, 121):
        BugReportFactory(repository=torch if number <= 80 else tf, number=number)
    return labelling_codebook(name="Performance root causes")


def test_researcher_previews_the_sample_then_creates_the_study(
    page, sign_in, researcher, annotator, frame
):
    other = labelling_codebook(name="Another codebook")
    sign_in(researcher)
    page.goto("/studies/")
    page.get_by_role("link", name="New study").click()

    page.locator("#id_name").fill("Performance bugs 2024")
    page.locator("#id_slug").fill("perf-2024")
    page.locator("#id_codebook").select_option(label=str(frame))
    dimensions = page.locator("[data-field=dimensions]")
    expect(dimensions.get_by_label("Root cause (" + frame.key + " v1.0)")).to_be_visible()
    expect(dimensions.get_by_label("Root cause (" + other.key + " v1.0)")).to_be_hidden()
    page.get_by_label("enough for a confidence level and margin of error").check()
    expect(page.locator("#id_sample_size")).to_be_hidden()
    page.locator("#id_margin").fill("0.1")
    page.locator("#id_stratify").select_option("repository")
    page.locator("#id_guidelines").fill("## How to label\n\nRead it all. <script>x()</script>")
    expect(page.get_by_test_id("create-study")).to_have_count(0)

    page.get_by_role("button", name="Preview the sample").click()

    # n0 = 1.96^2 * 0.25 / 0.1^2 = 96.0; n = 96.0 / (1 + 95.0 / 120) = 53.6 -> 54
    expect(page.get_by_test_id("frame-size")).to_have_text("120")
    expect(page.get_by_test_id("sample-size")).to_have_text("54")
    expect(page.get_by_test_id("cochran")).to_contain_text("96.0")
    expect(page.get_by_test_id("strata").locator("tbody tr")).to_have_count(2)
    seed = page.locator("#id_seed").input_value()
    assert seed.isdigit()
    assert not Study.objects.exists()
    page.screenshot(path="test-artifacts/study-setup-preview.png", full_page=True)

    page.locator("#id_margin").fill("0.05")
    expect(page.get_by_test_id("create-study")).to_be_disabled()
    page.get_by_role("button", name="Preview the sample").click()
    expect(page.get_by_test_id("sample-size")).to_have_text("92")
    page.get_by_test_id("create-study").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Performance bugs 2024")
    expect(page.get_by_test_id("items-complete")).to_have_text("0 / 92")
    # "## How to label" under the card's own "Guidelines" <h2>: an <h4>.
    guidelines = page.get_by_test_id("guidelines")
    expect(guidelines.locator("h4", has_text="How to label")).to_be_visible()
    expect(guidelines).to_contain_text("<script>x()</script>")
    study = Study.objects.get(slug="perf-2024")
    assert study.items.count() == 92 and study.seed == int(seed)
    page.screenshot(path="test-artifacts/study-detail.png", full_page=True)

    page.get_by_role("link", name="Members").click()
    page.locator("#id_usernames").fill("ann")
    page.locator("#id_role").select_option("annotator")
    page.get_by_role("button", name="Add").click()
    expect(page.get_by_test_id("members")).to_contain_text("ann")
    assert StudyMember.objects.filter(study=study, user=annotator, role="annotator").exists()
    page.screenshot(path="test-artifacts/study-members.png", full_page=True)
