"""The agreement page shows every coefficient's intervals (bootstrap and Gwet's), the items
still to double-code, and whiskers on the trend chart; the study page shows the double-coding
figure too (offline, at 1400x900)."""

import pytest
from playwright.sync_api import expect

from labeler.models import StudyItem
from tests.labeler.final_labels import decided_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_intervals_and_the_double_coding_figure(
    offline, wide, sign_in, annotator, lead, researcher, make_user
):
    page = offline
    study = decided_study(
        annotator=annotator, lead=lead, researcher=researcher, make_user=make_user
    )
    middle = study.items.order_by("position").values_list("position", flat=True)
    StudyItem.objects.filter(study=study, position__gte=len(middle) // 2).update(batch=2)
    sign_in(researcher)
    page.goto("/studies/perf/agreement/")

    alpha = page.get_by_test_id("coefficients-root-cause-path").get_by_test_id(
        "coefficient-krippendorff_alpha"
    )
    cells = alpha.locator("td")
    low, high = (float(cells.nth(i).get_attribute("data-value")) for i in (1, 2))
    value = float(cells.nth(0).get_attribute("data-value"))
    assert low <= value <= high
    ac1 = page.get_by_test_id("coefficients-root-cause-path").get_by_test_id("coefficient-gwet_ac1")
    assert ac1.locator("td").nth(3).get_attribute("data-value") != ""
    expect(page.get_by_test_id("interval-method-root-cause-path")).to_contain_text(
        "1000 draws seeded 0"
    )
    expect(page.get_by_test_id("double-coding-root-cause-path")).to_contain_text(
        "alpha's interval is ±"
    )
    trend = page.get_by_test_id("trend-root-cause-path")
    expect(trend.locator(".chart-plot svg.main-svg").first).to_be_visible()
    expect(trend.locator("g.errorbar").first).to_be_attached()
    expect(trend.locator("tbody tr")).to_have_count(2)
    page.get_by_test_id("coefficients-root-cause-path").scroll_into_view_if_needed()
    page.screenshot(path="test-artifacts/agreement-intervals.png")
    categories = page.get_by_test_id("categories-root-cause-path")
    expect(categories.locator("thead")).to_contain_text("Kappa 95% low")
    categories.screenshot(path="test-artifacts/agreement-categories.png")
    trend.scroll_into_view_if_needed()
    trend.screenshot(path="test-artifacts/agreement-trend-whiskers.png")

    page.goto("/studies/perf/")
    expect(page.get_by_test_id("double-coding")).to_contain_text("more would bring it to ±0.05")
    page.get_by_test_id("double-coding").screenshot(path="test-artifacts/study-double-coding.png")
