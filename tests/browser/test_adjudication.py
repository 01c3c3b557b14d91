"""In a real headless Chromium, by keyboard: two annotators disagree, the lead opens the queue,
reads the item side by side (pseudonyms, then names), picks an answer with a rationale and a
reason, the item becomes final, and the agreement page counts the reason and draws its charts
from their tables (offline: nothing is fetched from anywhere else)."""

import re

import pytest
from playwright.sync_api import expect

from labeler.adjudication.services import item_adjudicate
from labeler.models import FinalLabel, StudyItem
from tests.labeler.factories import LabellingStudyFactory
from tests.labeler.final_labels import decided_study, items_of
from tests.mining.factories import BugReportFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RATIONALE = "Two threads race on the cache"


@pytest.fixture
def wide_offline(offline):
    """The shared `offline` page (tests/browser/conftest.py), wide enough for the queue."""
    offline.set_viewport_size({"width": 1400, "height": 900})
    return offline


def test_a_lead_adjudicates_a_disagreement_by_keyboard(
    wide_offline, sign_in, annotator, lead, researcher, make_user
):
    page = wide_offline
    study = decided_study(
        annotator=annotator, lead=lead, researcher=researcher, make_user=make_user
    )
    disputed = items_of(study)[3]
    sign_in(lead)
    page.goto("/studies/perf/")
    expect(page.get_by_test_id("adjudicate-link")).to_have_text("Adjudicate (1 to decide)")
    page.get_by_test_id("adjudicate-link").click()

    queue = page.get_by_test_id("queue")
    expect(queue.locator("tbody tr.current")).to_have_attribute("data-item", str(disputed.pk))
    page.screenshot(path="test-artifacts/adjudicate-queue.png", full_page=True)
    page.keyboard.press("Enter")

    expect(page).to_have_url(re.compile(rf"/studies/perf/adjudicate/{disputed.pk}/$"))
    expect(page.get_by_test_id("report-title")).to_have_text(disputed.report.title)
    rows = page.get_by_test_id("annotator-row")
    expect(rows).to_have_count(2)
    expect(rows.locator("th")).to_have_text(["A1", "A2"])
    root = page.get_by_test_id("dimension-root-cause")
    expect(root).to_have_class(re.compile(r"\bdisputed\b"))
    expect(root.locator(".codebook dt")).to_contain_text(["memory/leak", "threading"])
    expect(page.get_by_test_id("dimension-impact")).not_to_have_class(re.compile(r"\bdisputed\b"))
    page.get_by_test_id("names-toggle").click()
    expect(rows.locator("th")).to_have_text(["ann", "ann2"])

    answers = root.get_by_test_id("answer")
    expect(answers).to_have_count(2)
    expect(answers.nth(1)).to_contain_text("threading")
    # `o` offers every category of the scheme; Escape leaves the picker.
    page.keyboard.press("o")
    other = page.get_by_test_id("other-root-cause")
    expect(other).to_be_focused()
    offered = other.locator("option").evaluate_all("options => options.map(o => o.value)")
    assert offered == ["", "memory/leak", "memory/bloat", "threading"]  # leaves only
    page.keyboard.press("Escape")
    page.keyboard.press("2")
    expect(other).to_be_hidden()
    expect(answers.nth(1)).to_have_class(re.compile(r"\bpicked\b"))
    page.keyboard.press("r")
    page.keyboard.type(RATIONALE)
    page.keyboard.press("Escape")
    page.keyboard.press("c")
    expect(root.locator('input[value="codebook_ambiguity"]')).to_be_checked()
    page.screenshot(path="test-artifacts/adjudicate-item.png", full_page=True)
    page.keyboard.press("Enter")

    # The item is final and the desk says that no disagreement is left.
    expect(page).to_have_url(re.compile(r"/studies/perf/adjudicate/$"))
    expect(page.get_by_test_id("desk-empty")).to_be_visible()
    final = FinalLabel.objects.get(item=disputed, dimension__key="root-cause")
    assert (final.values, final.method, final.reason, final.rationale) == (
        ["threading"],
        "adjudicated",
        "codebook_ambiguity",
        RATIONALE,
    )
    assert StudyItem.objects.get(pk=disputed.pk).adjudicated_at is not None

    page.goto(f"/studies/perf/items/{disputed.pk}/history/")
    expect(page.get_by_test_id("final-root-cause")).to_contain_text(RATIONALE)
    expect(page.get_by_test_id("decisions")).to_contain_text("codebook ambiguity")
    page.screenshot(path="test-artifacts/item-history-final.png", full_page=True)

    page.goto("/studies/perf/")
    page.get_by_test_id("agreement-link").click()
    categories = page.get_by_test_id("categories-root-cause-path")
    threading = categories.locator("tbody tr").filter(has_text="threading")
    expect(threading.get_by_test_id("reasons-total")).to_have_text("1")
    figures = page.locator("figure[data-chart]")
    assert figures.count() == 3 * 3  # pairs, confusion, trend: root cause x 2 levels, impact
    for index in range(figures.count()):
        figure = figures.nth(index)
        expect(figure.locator(".chart-plot svg.main-svg").first).to_be_visible()
        expect(figure.locator("table")).to_have_count(1)
    # Values written on the cells, not colour alone.
    confusion = page.get_by_test_id("confusion-root-cause-path")
    expect(confusion.locator("svg text").filter(has_text="2")).not_to_have_count(0)
    page.screenshot(path="test-artifacts/agreement.png")

    # Reopening puts the item back in the queue.
    page.goto(f"/studies/perf/adjudicate/{disputed.pk}/")
    expect(page.get_by_test_id("reopen-box")).to_be_visible()
    page.fill("#reopen-rationale", "second thoughts")
    page.get_by_test_id("reopen").click()
    expect(page.get_by_test_id("status")).to_contain_text("Reopened")
    assert StudyItem.objects.get(pk=disputed.pk).adjudicated_at is None


def test_the_agreement_page_keeps_up_as_decisions_come_in(
    wide_offline, sign_in, annotator, lead, researcher, make_user
):
    page = wide_offline
    study = decided_study(
        annotator=annotator, lead=lead, researcher=researcher, make_user=make_user
    )
    sign_in(researcher)
    page.goto("/studies/perf/agreement/")
    threading = (
        page.get_by_test_id("categories-root-cause-path")
        .locator("tbody tr")
        .filter(has_text="threading")
    )
    expect(threading.get_by_test_id("reasons-total")).to_have_text("0")
    expect(page.get_by_test_id("confusion-root-cause-path")).to_contain_text("A1 (rows) and A2")

    item_adjudicate(
        item_id=items_of(study)[3].pk,
        user=lead,
        decisions={
            "root-cause": {"value": "threading", "rationale": RATIONALE, "reason": "report_unclear"}
        },
    )
    page.evaluate("window.dispatchEvent(new Event('focus'))")

    expect(threading.get_by_test_id("reasons-total")).to_have_text("1")
    confusion = page.get_by_test_id("confusion-root-cause-path")
    expect(confusion.locator(".chart-plot svg.main-svg").first).to_be_visible()
    expect(confusion.locator("table")).to_have_count(1)


def test_the_agreement_page_names_each_bands_scale_and_colours_kappas_from_0_to_1(
    wide_offline, sign_in, annotator, lead, researcher, make_user
):
    page = wide_offline
    decided_study(annotator=annotator, lead=lead, researcher=researcher, make_user=make_user)
    sign_in(lead)
    page.goto("/studies/perf/agreement/")

    legend = page.get_by_test_id("band-legend")
    expect(legend).to_contain_text("Krippendorff (2004), for Krippendorff's alpha")
    expect(legend).to_contain_text("Landis and Koch (1977), for Cohen's kappa (mean over pairs)")
    expect(legend).to_contain_text("tentative 0.667 to below 0.800")
    coefficients = page.get_by_test_id("coefficients-root-cause-path")
    alpha = coefficients.locator("tr").filter(has_text="Krippendorff's alpha")
    expect(alpha.get_by_test_id("band-scale")).to_have_text("Krippendorff (2004)")
    fleiss = coefficients.locator("tr").filter(has_text="Fleiss' kappa")
    expect(fleiss.get_by_test_id("band-scale")).to_have_text("Landis and Koch (1977)")
    pairs = page.get_by_test_id("pairs-root-cause-path").locator(".chart-plot")
    expect(pairs.locator("svg.main-svg").first).to_be_visible()
    drawn = pairs.evaluate("plot => [plot._fullData[0].zmin, plot._fullData[0].zmax]")
    assert drawn == [0, 1]
    page.screenshot(path="test-artifacts/agreement-bands.png")
    pairs.scroll_into_view_if_needed()
    page.screenshot(path="test-artifacts/agreement-pairs.png")


def test_a_lead_chooses_fleiss_scale_for_the_kappas_bands(
    wide_offline, sign_in, annotator, lead, researcher, make_user
):
    page = wide_offline
    decided_study(annotator=annotator, lead=lead, researcher=researcher, make_user=make_user)
    sign_in(lead)
    page.goto("/studies/perf/agreement/")

    form = page.get_by_test_id("kappa-scale-form")
    form.get_by_label("Bands of the kappas and Gwet's AC1: the scale").select_option("fleiss")
    form.get_by_test_id("kappa-scale-save").click()

    expect(page.get_by_text("bands now come from Fleiss (1981)")).to_be_visible()
    legend = page.get_by_test_id("band-legend")
    expect(legend).to_contain_text("Fleiss (1981), for Cohen's kappa (mean over pairs)")
    expect(legend).to_contain_text("fair to good 0.40 to 0.75")
    coefficients = page.get_by_test_id("coefficients-root-cause-path")
    fleiss = coefficients.locator("tr").filter(has_text="Fleiss' kappa")
    expect(fleiss.get_by_test_id("band-scale")).to_have_text("Fleiss (1981)")
    alpha = coefficients.locator("tr").filter(has_text="Krippendorff's alpha")
    expect(alpha.get_by_test_id("band-scale")).to_have_text("Krippendorff (2004)")
    legend.scroll_into_view_if_needed()
    page.screenshot(path="test-artifacts/agreement-fleiss-scale.png")
    coefficients.scroll_into_view_if_needed()
    page.screenshot(path="test-artifacts/agreement-fleiss-bands.png")


def test_an_empty_studys_agreement_page_says_why_it_is_empty(
    wide_offline, sign_in, lead, make_study
):
    page = wide_offline
    make_study(
        [BugReportFactory(), BugReportFactory()],
        factory=LabellingStudyFactory,
        slug="empty",
        overlap=2,
        lead=lead,
    )
    sign_in(lead)
    page.goto("/studies/empty/agreement/")

    nothing = page.get_by_test_id("agreement-nothing-yet")
    expect(nothing).to_contain_text("No annotator has submitted a label yet.")
    expect(page.get_by_test_id("agreement-body").locator("table")).to_have_count(0)
    expect(page.get_by_test_id("band-legend")).to_have_count(0)
    page.screenshot(path="test-artifacts/agreement-empty.png")
