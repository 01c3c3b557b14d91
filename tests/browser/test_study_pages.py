"""In a real headless Chromium at 1400x900: the study and report pages say things in their
own words. The reports filter has human labels, date pickers and a visible error for a bad
value; the label import shows an example built from the study's codebook and one problem
per typo; the set-up page names its fields as it labels them and filters the repositories;
every page leads on to the next one (start labelling, the items, back from the API docs)."""

import pytest
from playwright.sync_api import expect

from labeler.models import Assignment
from tests.browser.test_label_controls import assert_on_screen
from tests.mining.factories import BugReportFactory, RepositoryFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo_study(make_study, lead):
    repository = RepositoryFactory(owner="pytorch", name="pytorch")
    reports = [
        BugReportFactory(repository=repository, number=number, has_fix=number == 1)
        for number in range(1, 4)
    ]
    return make_study(
        reports,
        builtin="dl-performance-root-causes",
        lead=lead,
        slug="demo",
        name="Demo study",
        overlap=2,
    )


def test_the_reports_filter_speaks_plainly_and_shows_a_bad_value(wide, sign_in, lead, demo_study):
    page = wide
    sign_in(lead)
    page.goto("/reports/")
    form = page.get_by_test_id("report-filters")
    labels = form.locator("label").all_inner_texts()

    assert labels == [
        "Repository",
        "State",
        "Candidate kind",
        "Fix",
        "GitHub label",
        "Opened from",
        "Opened before",
        "Closed from",
        "Closed before",
        "Text",
    ]
    expect(form.get_by_label("Fix").locator("option")).to_have_text(
        ["either", "with a linked fix", "without a fix"]
    )
    expect(form.get_by_label("Opened from")).to_have_attribute("type", "date")
    expect(page.get_by_test_id("report-table").locator("tbody tr")).to_have_count(3)
    form.get_by_label("Fix").select_option(label="with a linked fix")
    form.get_by_role("button", name="Filter").click()
    expect(page.get_by_test_id("report-table").locator("tbody tr")).to_have_count(1)
    expect(page.get_by_label("Fix")).to_have_value("true")

    page.goto("/reports/?created_after=garbage")
    expect(page.get_by_test_id("filter-errors")).to_have_text(
        "No reports shown until the filter is fixed: Opened from: not a date (YYYY-MM-DD) or "
        "an ISO 8601 date and time."
    )
    expect(page.get_by_test_id("error-created_after")).to_be_visible()
    expect(page.get_by_test_id("report-table")).to_contain_text("Fix the filter above")
    page.screenshot(path="test-artifacts/reports-bad-filter.png")


def upload(page, name, text, create_missing=False):
    page.locator("#id_file").set_input_files(
        {"name": name, "mimeType": "text/csv", "buffer": text.encode()}
    )
    if create_missing:
        page.get_by_label("Create placeholders for reports not imported yet").check()
    page.get_by_role("button", name="Check and import").click()


def test_the_import_page_shows_this_studys_format_and_one_problem_per_typo(
    wide, sign_in, lead, demo_study
):
    page = wide
    sign_in(lead)
    page.goto("/studies/demo/import/")
    sample = page.get_by_test_id("sample-csv")
    example = sample.inner_text()

    assert example.splitlines()[0] == "item,annotator,dimension,value,note"
    assert "pytorch/pytorch#1,alice,root-cause,memory-inefficiency/" in example
    assert "memory/leak" not in example
    clipped = sample.evaluate("(box) => box.scrollWidth > box.clientWidth")
    assert not clipped
    page.screenshot(path="test-artifacts/import-page.png", full_page=True)

    # One typo (#11 for #1) is one problem, in the page's own words.
    typo = example.replace("pytorch/pytorch#1,alice,impact", "pytorch/pytorch#11,alice,impact")
    upload(page, "labels.csv", typo)
    problems = page.get_by_test_id("import-problems")
    expect(problems.locator("li")).to_have_count(1)
    expect(problems).to_contain_text(
        "item pytorch/pytorch#11 looks like a typo of pytorch/pytorch#1"
    )

    missing = example.replace("pytorch/pytorch#1,", "pytorch/pytorch#99,")
    upload(page, "labels.csv", missing)
    expect(problems).to_contain_text(
        "or tick “Create placeholders for reports not imported yet” to create it as a placeholder"
    )
    expect(problems).not_to_contain_text("--create-missing-reports")

    lines = example.splitlines()
    alice = "\n".join([lines[0], *(line for line in lines[1:] if ",alice," in line)])
    upload(page, "labels.csv", alice)
    expect(page.locator(".messages")).to_contain_text(
        "Imported 1 submission (2 rows): 0 new items, 1 new annotator."
    )
    assert Assignment.objects.filter(annotator__username="alice", status="submitted").count() == 1


def test_the_set_up_page_names_fields_as_it_labels_them_and_filters_repositories(
    wide, sign_in, researcher, demo_study
):
    page = wide
    for name in ("keras-team/keras", "tensorflow/tensorflow", "jax-ml/jax"):
        owner, repo = name.split("/")
        RepositoryFactory(owner=owner, name=repo)
    sign_in(researcher)
    page.goto("/studies/new/")
    expect(page.locator("[data-field=item_order]")).to_contain_text(
        "The default is the first: every annotator gets the items in the same seeded random order"
    )
    expect(page.get_by_label("random (seeded), the same order for every annotator")).to_be_checked()

    repositories = page.locator("[data-field=repositories]")
    expect(repositories.locator("input[type=checkbox]")).to_have_count(4)
    repositories.get_by_test_id("checklist-filter").fill("tens")
    expect(repositories.locator("input[type=checkbox]:visible")).to_have_count(1)
    repositories.get_by_label("tensorflow/tensorflow").check()
    expect(repositories.get_by_test_id("checklist-count")).to_have_text("1 ticked · 1 of 4 shown")
    repositories.get_by_test_id("checklist-filter").fill("")
    repositories.get_by_label("jax-ml/jax").check()
    expect(repositories.get_by_test_id("checklist-count")).to_have_text("2 ticked")

    page.get_by_label("Opened from").fill("2024-05-01")
    page.get_by_label("Opened until").fill("2024-04-01")
    page.get_by_role("button", name="Preview the sample").click()
    expect(page.get_by_test_id("error-created_to")).to_have_text("must not be before “Opened from”")
    expect(repositories.get_by_label("tensorflow/tensorflow")).to_be_checked()
    expect(repositories.get_by_label("jax-ml/jax")).to_be_checked()
    page.screenshot(path="test-artifacts/study-setup-errors.png", full_page=True)


def test_every_page_leads_on(wide, sign_in, annotator, lead, demo_study):
    page = wide
    sign_in(annotator)
    start = page.get_by_test_id("start-labelling-demo")
    expect(start).to_have_text("Start labelling: 3 items waiting")
    page.screenshot(path="test-artifacts/home-annotator.png")
    start.click()
    expect(page.locator("#label-app")).to_have_attribute("data-state", "label")
    page.goto("/")
    expect(start).to_have_text("Start labelling: 3 items waiting")

    page.context.clear_cookies()
    sign_in(lead)
    page.goto("/studies/demo/")
    page.get_by_test_id("items-link").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Items of Demo study")

    page.goto("/docs/api/")
    bar = page.get_by_test_id("api-docs-bar")
    assert_on_screen(page, bar)
    bar.get_by_role("link", name="← Bug labeler").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Welcome, lead")
