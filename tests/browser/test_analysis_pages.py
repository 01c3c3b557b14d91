"""In a real headless Chromium: the study analysis page and the report comparison page draw
every chart from its table (offline: nothing is fetched from anywhere else), write values on
the charts, and each table downloads as CSV."""

import csv
import io

import pytest
from playwright.sync_api import expect

from tests.browser.downloads import download
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory, StudyMemberFactory
from tests.labeler.final_labels import decided_study
from tests.mining.factories import BugReportFactory, RepositoryFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


NOTHING = "Nothing to draw: the table has no values."
MEASURES = (
    "time_to_fix_days",
    "fix_size_lines",
    "time_to_first_comment_hours",
    "comments",
    "commenters",
    "participants",
)


def expect_every_chart_drawn_with_its_table(page, empty=()):
    """Every chart drawn (an SVG in its plot), but those named by test id in `empty`, whose
    table has no value and which say so; each chart with one table."""
    figures = page.locator("figure[data-chart]")
    assert figures.count() > 0
    for index in range(figures.count()):
        figure = figures.nth(index)
        expect(figure.locator("table")).to_have_count(1)
        if figure.get_attribute("data-testid") in empty:
            expect(figure.locator(".chart-plot")).to_have_text(NOTHING)
        else:
            expect(figure.locator(".chart-plot svg.main-svg").first).to_be_visible()
    tables = page.locator("table[data-csv]")
    for index in range(tables.count()):
        link = tables.nth(index).locator("xpath=following-sibling::p[1]/a")
        expect(link).to_have_text("Download CSV")
        expect(link).to_have_attribute("download", tables.nth(index).get_attribute("data-csv"))


def download_csv(page, table):
    link = table.locator("xpath=following-sibling::p[1]/a")
    name, text = download(page, link.click)
    return name, list(csv.reader(io.StringIO(text, newline="")))


def test_a_lead_reads_the_study_analysis(offline, sign_in, annotator, lead, researcher, make_user):
    page = offline
    page.set_viewport_size({"width": 1400, "height": 900})
    decided_study(annotator=annotator, lead=lead, researcher=researcher, make_user=make_user)
    sign_in(lead)
    page.goto("/studies/perf/")
    page.get_by_test_id("analysis-link").click()

    expect(page.get_by_role("heading", level=1)).to_contain_text("Analysis of ")
    # Nobody commented on the reports: no time to a first comment to draw.
    expect_every_chart_drawn_with_its_table(page, empty={"box-time_to_first_comment_hours"})
    counts = page.get_by_test_id("counts-root-cause")
    # Values on the bars, not colour alone.
    expect(counts.locator("svg text").filter(has_text="2 (50.0%)")).to_have_count(2)
    name, rows = download_csv(page, counts.locator("table"))
    assert name == "perf-root-cause-counts.csv"
    assert rows[0] == ["Category", "Path", "Items", "Share"]
    assert [row[1:] for row in rows[1:5]] == [
        ["memory", "2", "0.5"],
        ["memory/leak", "1", "0.25"],
        ["memory/bloat", "1", "0.25"],
        ["threading", "2", "0.5"],
    ]
    assert rows[-1] == ["Items with a final label", "", "4", ""]
    # The parent's row counts its sub-categories' items too (50% + 25% + 25% + 50%): said.
    expect(counts.get_by_test_id("counts-nested")).to_contain_text(
        "the shares add up to more than 100%"
    )
    counts.scroll_into_view_if_needed()
    page.screenshot(path="test-artifacts/study-analysis-counts.png")
    heatmap = page.get_by_test_id("crosstab-chart")
    expect(heatmap.locator("svg text").filter(has_text="2")).not_to_have_count(0)
    box = page.get_by_test_id("box-fix_size_lines")
    expect(box.locator("svg text").filter(has_text="median 20")).to_have_count(1)
    page.screenshot(path="test-artifacts/study-analysis.png", full_page=True)

    page.locator("#id_columns").select_option("repository")
    page.get_by_test_id("crosstab").get_by_role("button", name="Show").click()
    expect(page.get_by_test_id("crosstab-table").locator("thead")).to_contain_text("octo/torch")
    expect_every_chart_drawn_with_its_table(page, empty={"box-time_to_first_comment_hours"})
    name, rows = download_csv(page, page.get_by_test_id("crosstab-table"))
    assert rows[0][1:] == ["octo/tf", "octo/torch", "Total"]
    assert rows[1][1:] == ["0", "2", "2"] and rows[2][1:] == ["2", "0", "2"]


def test_a_study_without_final_labels_says_there_is_nothing_to_draw(offline, sign_in, lead):
    page = offline
    study = LabellingStudyFactory(slug="fresh")
    StudyItemFactory(study=study)
    StudyMemberFactory(study=study, user=lead, role="lead")
    sign_in(lead)
    page.goto("/studies/fresh/analysis/")

    expect(page.get_by_test_id("final-items")).to_contain_text("0 of 1 item have")
    # The shares and measures are none; the cross-tabulation's counts are zeros, drawn.
    empty = {"counts-root-cause", "counts-impact"} | {f"box-{key}" for key in MEASURES}
    expect_every_chart_drawn_with_its_table(page, empty=empty)
    expect(page.get_by_test_id("crosstab-chart").locator("svg text").first).to_have_text("0")


def test_anyone_compares_two_groups_of_reports(offline, sign_in, annotator):
    page = offline
    repo = RepositoryFactory(full_name="octo/vision")
    for number in range(8):
        BugReportFactory(
            repository=repo,
            is_performance_candidate=number < 4,
            has_fix=True,
            fix_size=3 * number + 1,
            fix_hours=12.0 * (number + 1),
            comment_count=number,
        )
    sign_in(annotator)
    page.goto("/reports/")
    page.get_by_role("link", name="Compare", exact=True).click()
    page.locator("#id_a-candidate").select_option("performance")
    page.locator("#id_b-candidate").select_option("none")
    page.get_by_role("button", name="Compare").click()

    expect(page.get_by_test_id("query-a")).to_have_text("candidate=performance")
    expect(page.get_by_test_id("query-b")).to_have_text("candidate=none")
    expect_every_chart_drawn_with_its_table(page, empty={"box-time_to_first_comment_hours"})
    expect(page.get_by_test_id("box-fix_size_lines").locator("svg text")).to_contain_text(
        ["median 5.50", "median 17.50"]
    )
    name, rows = download_csv(page, page.get_by_test_id("comparison-table"))
    assert name == "comparison.csv"
    assert rows[0][:3] == ["Measure", "A n", "A median"]
    size = next(row for row in rows if row[0] == "Fix size (lines added + deleted)")
    # a: 1, 4, 7, 10; b: 13, 16, 19, 22; every a below every b.
    assert size[1:3] == ["4", "5.5"] and size[6:8] == ["4", "17.5"]
    assert size[13:] == ["-1.0", "large"]
    name, rows = download_csv(page, page.get_by_test_id("trend-table"))
    assert rows[0] == ["Month", "A count", "A share", "B count", "B share", "All"]
    assert rows[1][1:] == ["4", "0.5", "4", "0.5", "8"]
    page.screenshot(path="test-artifacts/reports-compare.png", full_page=True)
