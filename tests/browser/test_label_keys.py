"""In a real headless Chromium, at 1400x900: number keys in lists of more than 9 options. Every
option there takes two digits, shown beside it, so no key waits to see whether another
follows: "1" then "2" is the 12th option, however quickly or slowly typed, never the 2nd
sub-category of the 1st."""

import datetime as dt
import re

import pytest
from playwright.sync_api import expect

from labeler.models import Assignment
from tests.mining.factories import BugReportFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

START = dt.datetime(2024, 5, 1, 12, tzinfo=dt.UTC)
TITLES = ["First report", "Second report", "Third report"]


@pytest.fixture
def root_cause_study(make_study):
    """The built-in root-cause codebook: 12 top-level root causes, the first with two
    sub-categories, and an impact dimension with 3 options."""
    reports = [BugReportFactory(title=title) for title in TITLES]
    return make_study(reports, builtin="dl-performance-root-causes", slug="keys", overlap=1)


def next_item(page, previous: str | None = None) -> str:
    """Waits for the next item to be ready for labelling and returns its report's title."""
    title = page.get_by_test_id("report-title")
    if previous is not None:
        expect(title).not_to_have_text(previous)
    expect(title).to_have_text(re.compile("|".join(TITLES)))
    expect(page.locator("#label-app")).to_have_attribute("data-state", "label")
    return title.inner_text()


def test_two_digits_in_a_long_list_and_one_in_a_short_one(
    page, sign_in, annotator, root_cause_study
):
    # Timers under the test's control: a pause between the two digits changes nothing.
    page.clock.install(time=START)
    page.set_viewport_size({"width": 1400, "height": 900})
    sign_in(annotator)
    page.goto("/studies/keys/label/")
    first = next_item(page)
    page.clock.pause_at(START + dt.timedelta(minutes=1))
    root_cause = page.get_by_test_id("dim-root-cause")
    chosen = page.get_by_test_id("chosen-root-cause").locator(".chip")
    status = page.get_by_test_id("status")
    expect(root_cause.locator(".option kbd")).to_have_text([f"{n:02}" for n in range(1, 13)])

    # "1" waits for its second digit as long as it takes, showing what it can lead to.
    page.keyboard.press("1")
    expect(status).to_have_text("1… and a second digit: 10 to 12.")
    expect(root_cause.locator(".option.candidate kbd")).to_have_text(["10", "11", "12"])
    page.clock.run_for(60_000)
    expect(chosen).to_have_count(0)
    page.screenshot(path="test-artifacts/label-two-digit-keys.png", full_page=False)
    page.keyboard.press("2")
    expect(chosen).to_have_attribute("data-path", "other")
    expect(status).to_have_text("")

    # "0" "1": the first root cause, which opens its two sub-categories, numbered with one digit;
    # then "2" is its 2nd sub-category.
    page.keyboard.press("0")
    page.keyboard.press("1")
    expect(root_cause.locator(".crumbs")).to_contain_text("Memory inefficiency")
    expect(root_cause.locator(".option kbd")).to_have_text(["1", "2"])
    page.keyboard.press("2")
    expect(chosen).to_have_attribute(
        "data-path", "memory-inefficiency/unnecessary-memory-allocation"
    )
    # Choosing never moves the focus: Tab does.
    expect(root_cause).to_have_attribute("aria-current", "true")
    page.keyboard.press("Tab")
    impact = page.get_by_test_id("dim-impact")
    expect(impact.locator(".option kbd")).to_have_text(["1", "2", "3"])
    page.keyboard.press("3")
    expect(page.get_by_test_id("chosen-impact").locator(".chip")).to_have_text("Both")
    page.keyboard.press("Enter")

    # In the long list: no number starts with 5; a first digit lets go with any other key.
    second = next_item(page, first)
    page.keyboard.press("5")
    expect(status).to_have_text(
        "Root cause: its options have two digits, 01 to 12; none starts with 5."
    )
    page.keyboard.press("1")
    page.keyboard.press("Escape")
    expect(status).to_have_text("")
    page.keyboard.press("1")
    page.keyboard.press("0")
    expect(chosen).to_have_attribute("data-path", "inefficient-caching")
    page.keyboard.press("Tab")
    page.keyboard.press("1")
    page.keyboard.press("?")
    expect(page.get_by_test_id("shortcuts")).to_contain_text("0 then 7 chooses the 7th")
    page.screenshot(path="test-artifacts/label-two-digit-shortcuts.png", full_page=False)
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")
    third = next_item(page, second)
    assert third

    labels = {
        a.item.report.title: dict(a.annotations.values_list("dimension__key", "values"))
        for a in Assignment.objects.filter(annotator=annotator, status="submitted").select_related(
            "item__report"
        )
    }
    assert labels == {
        first: {
            "root-cause": ["memory-inefficiency/unnecessary-memory-allocation"],
            "impact": ["both"],
        },
        second: {"root-cause": ["inefficient-caching"], "impact": ["speed"]},
    }
