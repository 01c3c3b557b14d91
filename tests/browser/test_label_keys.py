"""In a real headless Chromium: two-digit number keys reach options 10 and up, keyboard only."""

import datetime as dt
import re

import pytest
from playwright.sync_api import expect

from labeler.models import Assignment
from tests.labeler.factories import StudyFactory, StudyItemFactory, StudyMemberFactory
from tests.mining.factories import BugReportFactory
from tests.taxonomy.factories import CategoryFactory, CodebookFactory, DimensionFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

START = dt.datetime(2024, 5, 1, 12, tzinfo=dt.UTC)
TITLES = ["First report", "Second report", "Third report"]


@pytest.fixture
def study(annotator):
    """A root-cause dimension with 12 top-level categories, as the built-in codebook has,
    followed by a severity dimension with 3."""
    codebook = CodebookFactory()
    root_cause = DimensionFactory(
        codebook=codebook, key="root-cause", name="Root cause", position=0
    )
    for number in range(1, 13):
        CategoryFactory(
            dimension=root_cause,
            key=f"cause-{number:02}",
            name=f"Cause {number}",
            parent=None,
            position=number,
        )
    severity = DimensionFactory(
        codebook=codebook, key="severity", name="Severity", required=False, position=1
    )
    for position, key in enumerate(["low", "medium", "high"]):
        CategoryFactory(dimension=severity, key=key, name=key, parent=None, position=position)
    study = StudyFactory(slug="keys", codebook=codebook, overlap=1)
    study.dimensions.set([root_cause, severity])
    for position, title in enumerate(TITLES):
        StudyItemFactory(study=study, report=BugReportFactory(title=title), position=position)
    StudyMemberFactory(study=study, user=annotator, role="annotator")
    return study


def next_item(page, previous: str | None = None) -> str:
    """Waits for the next item to be ready for labelling and returns its report's title."""
    title = page.get_by_test_id("report-title")
    if previous is not None:
        expect(title).not_to_have_text(previous)
    expect(title).to_have_text(re.compile("|".join(TITLES)))
    expect(page.locator("#label-app")).to_have_attribute("data-state", "label")
    return title.inner_text()


def test_two_digits_pick_options_10_and_up(page, sign_in, annotator, study):
    # Timers under the test's control: what a key does before and after the pause is certain.
    page.clock.install(time=START)
    sign_in(annotator)
    page.goto("/studies/keys/label/")
    first = next_item(page)
    page.clock.pause_at(START + dt.timedelta(minutes=1))

    root_cause = page.get_by_test_id("dim-root-cause")
    chosen = page.get_by_test_id("chosen-root-cause").locator(".chip")
    expect(root_cause.locator(".option kbd")).to_have_text([str(n) for n in range(1, 13)])

    # "1" then "2": the 12th cause; severity has 3 options, so "3" picks at once.
    page.keyboard.press("1")
    page.keyboard.press("2")
    expect(chosen).to_have_attribute("data-path", "cause-12")
    expect(page.get_by_test_id("dim-severity")).to_have_attribute("aria-current", "true")
    page.keyboard.press("3")
    expect(page.get_by_test_id("chosen-severity").locator(".chip")).to_have_text("high")
    page.keyboard.press("Enter")

    # "1" alone waits for a second digit, then picks the 1st.
    second = next_item(page, first)
    page.keyboard.press("1")
    expect(page.get_by_test_id("status")).to_have_text("1… a second digit picks 10 to 12.")
    expect(root_cause.locator(".option.highlighted kbd")).to_have_text("1")
    page.screenshot(path="test-artifacts/label-two-digit-keys.png", full_page=False)
    page.clock.run_for(599)
    expect(chosen).to_have_count(0)
    page.clock.run_for(1)
    expect(chosen).to_have_attribute("data-path", "cause-01")
    expect(page.get_by_test_id("status")).to_have_text("")
    page.keyboard.press("Enter")

    # No number from 10 to 12 starts with 2: "2" picks the 2nd at once, Enter submits.
    third = next_item(page, second)
    page.keyboard.press("2")
    expect(chosen).to_have_attribute("data-path", "cause-02")
    page.keyboard.press("?")
    expect(page.get_by_test_id("shortcuts")).to_contain_text("1 then 2: the 12th")
    page.screenshot(path="test-artifacts/label-two-digit-shortcuts.png", full_page=False)
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("done")).to_be_visible()

    labels = {
        a.item.report.title: dict(a.annotations.values_list("dimension__key", "values"))
        for a in Assignment.objects.filter(annotator=annotator, status="submitted").select_related(
            "item__report"
        )
    }
    assert labels == {
        first: {"root-cause": ["cause-12"], "severity": ["high"]},
        second: {"root-cause": ["cause-01"]},
        third: {"root-cause": ["cause-02"]},
    }
