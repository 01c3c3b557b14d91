"""In a real headless Chromium: two annotators code reports of an open-coding study by
keyboard only, offered their own codes while typing (and the others' once the study shares
them); the lead reads the round's saturation."""

import csv
import io

import pytest
from playwright.sync_api import expect

from labeler.models import AnnotationVersion, Code, CodeUse, Study
from tests.browser.label_page import code_chips, code_offers, wait_for_item
from tests.labeler.factories import OpenStudyFactory
from tests.mining.factories import BugReportFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TITLES = ["Memory grows every epoch", "Loader threads deadlock", "Slow first step"]


@pytest.fixture
def open_coding_study(make_study, lead):
    return make_study(
        [BugReportFactory(title=title) for title in TITLES],
        factory=OpenStudyFactory,
        lead=lead,
        slug="open",
        name="Open round",
        overlap=2,
    )


@pytest.fixture
def watched(page):
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    assert errors == [], errors


def type_code(page, text):
    page.keyboard.type(text)


def test_two_annotators_code_by_keyboard_offered_their_own_codes_then_everyones(
    watched, sign_in, annotator, add_second_annotator, lead, open_coding_study
):
    second = add_second_annotator(open_coding_study)
    page = watched
    sign_in(annotator)
    page.goto("/studies/open/label/")

    # Report 1: c goes into the root cause's code box; Enter adds, Tab goes on to the next
    # dimension's box, and from the last one to the memo.
    wait_for_item(page, TITLES[0])
    expect(page.locator(".note-label")).to_contain_text("Memo")
    page.keyboard.press("c")
    expect(page.get_by_test_id("code-input-root-cause")).to_be_focused()
    expect(page.get_by_test_id("code-input-root-cause")).to_have_value("")
    type_code(page, "memory  leak ")
    page.keyboard.press("Enter")
    type_code(page, "cache never shrinks")
    page.keyboard.press("Enter")
    expect(code_chips(page, "root-cause")).to_have_text(["memory leak", "cache never shrinks"])
    type_code(page, "Memory Leak")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("status")).to_contain_text("“Memory Leak” is given already")
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.press("Tab")
    expect(page.get_by_test_id("code-input-symptom")).to_be_focused()
    expect(page.get_by_test_id("dim-symptom")).to_have_attribute("aria-current", "true")
    type_code(page, "OOM")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    expect(page.get_by_test_id("note")).to_be_focused()
    page.keyboard.type("The cache keeps every tensor.")
    page.keyboard.press("Control+Enter")

    # Report 2: the first annotator's own codes are offered; arrows pick, Backspace in the
    # empty box takes the last code back.
    wait_for_item(page, TITLES[1])
    expect(code_chips(page, "root-cause")).to_have_count(0)
    page.keyboard.press("c")
    type_code(page, "mem")
    expect(code_offers(page, "root-cause")).to_have_text(["memory leak"])
    page.screenshot(path="test-artifacts/open-coding-offers.png")
    page.keyboard.press("ArrowDown")
    expect(code_offers(page, "root-cause").first).to_have_class("code-offer highlighted")
    page.keyboard.press("Enter")
    expect(code_chips(page, "root-cause")).to_have_text(["memory leak"])
    page.keyboard.press("Tab")
    type_code(page, "slow")
    page.keyboard.press("Enter")
    page.keyboard.press("Backspace")
    expect(code_chips(page, "symptom")).to_have_count(0)
    type_code(page, "hangs")
    page.keyboard.press("Control+Enter")  # the code still typed goes with the submission
    wait_for_item(page, TITLES[2])

    # Codes not submitted yet survive a reload; a revision opens with the codes it had.
    page.keyboard.press("c")
    type_code(page, "first step compiles")
    page.keyboard.press("Enter")
    page.reload()
    wait_for_item(page, TITLES[2])
    expect(code_chips(page, "root-cause")).to_have_text(["first step compiles"])
    page.keyboard.press("p")
    wait_for_item(page, TITLES[1])
    expect(page.get_by_test_id("revising")).to_be_visible()
    expect(code_chips(page, "root-cause")).to_have_text(["memory leak"])
    expect(code_chips(page, "symptom")).to_have_text(["hangs"])
    page.keyboard.press("Escape")
    wait_for_item(page, TITLES[2])

    first = AnnotationVersion.objects.filter(annotator=annotator).order_by("created_at")
    assert [v.codes for v in first] == [
        {"root-cause": ["memory leak", "cache never shrinks"], "symptom": ["OOM"]},
        {"root-cause": ["memory leak"], "symptom": ["hangs"]},
    ]
    assert first[0].note == "The cache keeps every tensor."

    # The second annotator: blind to the first one's codes while the study keeps them apart.
    page.context.clear_cookies()
    sign_in(second)
    page.goto("/studies/open/label/")
    wait_for_item(page, TITLES[0])
    page.keyboard.press("c")
    with page.expect_response(lambda response: "q=mem" in response.url) as codes_in_use:
        type_code(page, "mem")
    assert codes_in_use.value.json()["results"] == []  # none of the first annotator's
    expect(code_offers(page, "root-cause")).to_have_count(0)
    expect(page.get_by_test_id("code-offers-root-cause")).to_be_hidden()
    type_code(page, "ory bloat")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    type_code(page, "oom")
    page.keyboard.press("Enter")
    page.keyboard.press("Control+Enter")

    wait_for_item(page, TITLES[1])
    page.keyboard.press("c")
    type_code(page, "m")
    expect(code_offers(page, "root-cause")).to_have_text(["memory bloat"])
    page.keyboard.press("Escape")  # closes the offers, then leaves the box
    expect(page.get_by_test_id("code-offers-root-cause")).to_be_hidden()
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("code-input-root-cause")).not_to_be_focused()

    # Once the study shares codes, everyone's are offered.
    Study.objects.filter(pk=open_coding_study.pk).update(codes_shared=True)
    page.keyboard.press("c")
    page.keyboard.press("Backspace")  # the "m" typed before
    type_code(page, "mem")
    # Most used first: the first annotator's memory leak (twice), then their own.
    expect(code_offers(page, "root-cause")).to_have_text(["memory leak", "memory bloat"])
    page.keyboard.press("ArrowUp")  # from the end: memory bloat
    page.keyboard.press("ArrowUp")  # and up to memory leak
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    type_code(page, "OOM")
    page.keyboard.press("Enter")
    page.keyboard.press("Control+Enter")
    wait_for_item(page, TITLES[2])

    uses = sorted(CodeUse.objects.values_list("annotator__username", "written_as", "code__name"))
    assert uses == [
        ("ann", "OOM", "OOM"),
        ("ann", "cache never shrinks", "cache never shrinks"),
        ("ann", "hangs", "hangs"),
        ("ann", "memory leak", "memory leak"),
        ("ann", "memory leak", "memory leak"),
        ("ann2", "OOM", "OOM"),
        ("ann2", "memory bloat", "memory bloat"),
        ("ann2", "memory leak", "memory leak"),
        ("ann2", "oom", "OOM"),
    ]
    assert Code.objects.count() == 5

    # The lead: the round's saturation as a chart with its table and CSV.
    page.context.clear_cookies()
    sign_in(lead)
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto("/studies/open/")
    figure = page.get_by_test_id("saturation")
    expect(figure.locator(".chart-plot svg.main-svg").first).to_be_visible()
    # The caption reads at the size of its card's text, not larger.
    size = "element => getComputedStyle(element).fontSize"
    card_text = page.get_by_test_id("open-coding").locator("p.small").first
    assert figure.locator("figcaption").evaluate(size) == card_text.evaluate(size)
    page.get_by_test_id("open-coding").screenshot(path="test-artifacts/open-coding-card.png")
    table = page.get_by_test_id("saturation-table")
    expect(table.locator("thead th")).to_have_text(["Reports coded", "team", "ann", "ann2"])
    # Report 1: memory leak, cache never shrinks, OOM (ann), memory bloat, OOM again (ann2);
    # report 2: memory leak again, hangs (ann), memory leak and OOM again (ann2).
    expect(table.locator("tbody tr")).to_have_text(["1432", "2543"])
    figure.screenshot(path="test-artifacts/open-coding-saturation.png")
    with page.expect_download() as caught:
        table.locator("xpath=following-sibling::p[1]/a").click()
    with open(caught.value.path(), encoding="utf-8", newline="") as file:
        rows = list(csv.reader(io.StringIO(file.read())))
    assert rows == [
        ["Reports coded", "team", "ann", "ann2"],
        ["1", "4", "3", "2"],
        ["2", "5", "4", "3"],
    ]


def test_the_saturation_chart_of_a_round_not_started_says_there_is_nothing_to_draw(
    watched, sign_in, lead, open_coding_study
):
    page = watched
    sign_in(lead)
    page.goto("/studies/open/")
    figure = page.get_by_test_id("saturation")
    expect(figure.locator(".chart-plot")).to_have_text("Nothing to draw: the table has no values.")
    expect(page.get_by_test_id("saturation-table").locator("tbody")).to_have_text(
        "Nothing coded yet."
    )
