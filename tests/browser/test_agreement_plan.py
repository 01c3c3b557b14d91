"""A lead plans, before labelling, how many items to double-code: from the agreement page to
the plan page, a filled-in form, and the answer with its method and seed (offline, at
1400x900)."""

import re

import pytest
from playwright.sync_api import expect

from tests.labeler.final_labels import decided_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_lead_plans_the_double_coding(
    offline, wide, sign_in, annotator, lead, researcher, make_user
):
    page = offline
    decided_study(annotator=annotator, lead=lead, researcher=researcher, make_user=make_user)
    sign_in(lead)
    page.goto("/studies/perf/agreement/")
    page.get_by_test_id("plan-link").click()
    expect(page).to_have_url(re.compile(r"/studies/perf/agreement/plan/$"))

    form = page.get_by_test_id("plan-form")
    form.get_by_label("Coefficient").select_option("fleiss_kappa")
    form.get_by_label("Agreement expected").fill("0.75")
    form.get_by_label("Categories' expected shares").fill("0.1, 0.3, 0.6")
    form.get_by_label("Half-width of the 95% interval wanted").fill("0.08")
    form.get_by_label("Annotators per item").fill("3")
    form.get_by_label("Seed").fill("7")
    page.get_by_test_id("plan-submit").click()

    result = page.get_by_test_id("plan-result")
    expect(result).to_be_visible()
    items = int(page.get_by_test_id("plan-items").inner_text())
    assert 20 < items < 2000
    half_width = page.get_by_test_id("plan-half-width").inner_text()
    # The simulations' half-width at the items answered (the search's last round), near the
    # one wanted (the search stops after 4 rounds, within 5% or not).
    last_round = page.get_by_test_id("plan-rounds").locator("tbody tr").last.locator("td")
    expect(last_round.nth(1)).to_have_text(str(items))
    expect(last_round.nth(2)).to_have_text(half_width)
    assert float(half_width) == pytest.approx(0.08, rel=0.2)
    expect(page.get_by_test_id("plan-method")).to_contain_text("seed 7")
    expect(page.get_by_test_id("plan-method")).to_contain_text("400 bootstrap draws")
    # The form keeps what was asked, so the plan can be re-run with one change.
    expect(form.get_by_label("Categories' expected shares")).to_have_value("0.1, 0.3, 0.6")
    page.screenshot(path="test-artifacts/agreement-plan.png", full_page=True)

    form.get_by_label("Categories' expected shares").fill("0.5")
    page.get_by_test_id("plan-submit").click()
    expect(page.get_by_test_id("error-shares")).to_contain_text("2 to 50 positive shares")
    expect(page.get_by_test_id("plan-result")).to_have_count(0)
