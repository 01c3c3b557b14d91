"""In a real headless Chromium at 390x844 (a phone), and at 880 px (a narrow window): no page
is wider than the screen, the navigation keeps "Sign out" on it, and on the labelling page
the report and the controls stack, with nothing covering the options."""

import pytest
from playwright.sync_api import expect

from labeler.labelling.services import assignment_next, assignment_submit
from tests.labeler.conftest import GOOD_LABELS
from tests.labeler.factories import LabellingStudyFactory
from tests.mining.factories import BugReportFactory, RepositoryFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
LONG = "\n\n".join(
    f"Paragraph {n}: `torch.compile(model, mode='max-autotune')`." for n in range(30)
)


@pytest.fixture
def long_report_study(make_study, lead):
    repository = RepositoryFactory(
        owner="tensorflow-lite-demo-organisation", name="tensorflow-lite"
    )
    reports = [
        BugReportFactory(repository=repository, body=LONG, title=f"Report {position}")
        for position in range(3)
    ]
    study = make_study(
        reports,
        factory=LabellingStudyFactory,
        lead=lead,
        slug="perf",
        name="Performance bugs of deep-learning frameworks",
    )
    held = assignment_next(study=study, user=lead)
    assignment_submit(assignment_id=held.pk, user=lead, labels=GOOD_LABELS, note="done")
    return study


def assert_fits_the_screen(page, width):
    assert page.evaluate("document.documentElement.scrollWidth") <= width, page.url
    sign_out = page.get_by_role("button", name="Sign out")
    box = sign_out.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, (page.url, box)


def test_the_labelling_page_on_a_phone(page, sign_in, annotator, long_report_study):
    page.set_viewport_size(PHONE)
    sign_in(annotator)
    page.goto("/studies/perf/label/")
    expect(page.locator("#label-app")).to_have_attribute("data-state", "label")
    assert_fits_the_screen(page, 390)

    report = page.get_by_test_id("report").bounding_box()
    controls = page.get_by_test_id("controls")
    controls.scroll_into_view_if_needed()
    assert controls.bounding_box()["y"] + page.evaluate("scrollY") >= report["y"] + report["height"]
    page.keyboard.press("ArrowDown")  # highlight option 1: its definition shows
    first = page.locator(".dim.focused .option").first
    definition = page.get_by_test_id("definition")
    expect(definition).not_to_be_empty()
    one, two = first.bounding_box(), definition.bounding_box()
    assert one["y"] + one["height"] <= two["y"] or two["y"] + two["height"] <= one["y"]
    first.scroll_into_view_if_needed()
    page.screenshot(path="test-artifacts/label-phone.png")
    first.click()  # memory: most specific only, so it opens its sub-categories
    expect(page.locator(".dim.focused .crumbs")).to_be_visible()
    page.locator(".dim.focused .option").first.click()
    expect(page.get_by_test_id("chosen-root-cause").locator(".chip")).to_have_attribute(
        "data-path", "memory/leak"
    )


@pytest.mark.parametrize(
    ("user", "path"),
    [
        ("annotator", "/"),
        ("annotator", "/studies/perf/"),
        ("lead", "/studies/perf/"),
        ("lead", "/studies/perf/items/"),
        ("lead", "/studies/perf/import/"),
        ("lead", "/studies/perf/members/"),
        ("lead", "/reports/"),
        ("lead", "/studies/new/"),
    ],
)
def test_no_page_is_wider_than_a_phone(
    page, sign_in, long_report_study, annotator, lead, user, path
):
    page.set_viewport_size(PHONE)
    sign_in({"annotator": annotator, "lead": lead}[user])
    page.goto(path)
    assert_fits_the_screen(page, 390)
    name = path.strip("/").replace("/", "-") or "home"
    page.screenshot(path=f"test-artifacts/phone-{user}-{name}.png", full_page=True)


def test_report_and_controls_stack_below_900_pixels(page, sign_in, annotator, long_report_study):
    page.set_viewport_size({"width": 880, "height": 900})
    sign_in(annotator)
    page.goto("/studies/perf/label/")
    expect(page.locator("#label-app")).to_have_attribute("data-state", "label")

    report = page.get_by_test_id("report").bounding_box()
    controls = page.get_by_test_id("controls").bounding_box()
    assert controls["y"] >= report["y"] + report["height"]
    assert controls["width"] == pytest.approx(report["width"], abs=2)
    assert_fits_the_screen(page, 880)
