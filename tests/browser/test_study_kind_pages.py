"""In a real headless Chromium at 1400x900, pages that fit the kind of study: an open round's
page shows its board, codes and saturation and none of a closed study's controls; freezing a
board asks first and then says what it made; a closed study made from it starts from
guidelines for applying the frozen scheme; a revision board speaks of categories and labels;
the new-study page fills the slug in from the name."""

import re

import pytest
from playwright.sync_api import expect

from labeler.roles import Role
from labeler.services.assignment import assignment_next, assignment_submit
from tests.labeler.factories import OpenStudyFactory, StudyItemFactory, StudyMemberFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def open_round(annotator, lead, make_user):
    """An open round of three reports, two annotators having coded the first."""
    second = make_user(Role.ANNOTATOR, username="ann2")
    study = OpenStudyFactory(slug="open", name="Open round", overlap=2)
    for position in range(3):
        StudyItemFactory(study=study, position=position)
    for user, role in ((annotator, "annotator"), (second, "annotator"), (lead, "lead")):
        StudyMemberFactory(study=study, user=user, role=role)
    for user, codes in ((annotator, ["leak", "cache"]), (second, ["leak"])):
        held = assignment_next(study=study, user=user)
        assignment_submit(
            assignment_id=held.pk,
            user=user,
            labels={},
            codes={"root-cause": codes, "symptom": ["slow"]},
            note="",
        )
    return study


def test_an_open_rounds_page_shows_the_round_and_no_closed_study_controls(
    offline, wide, sign_in, lead, open_round
):
    page = offline
    sign_in(lead)
    page.goto("/studies/open/")

    head = page.locator(".page-head")
    expect(page.get_by_test_id("study-coding")).to_have_text(
        "open coding of root cause, symptom: no codebook yet, the codes become one on the board"
    )
    expect(head).not_to_contain_text("vopen")
    for closed_only in ("policy", "agreement-link", "adjudicate-link"):
        expect(page.get_by_test_id(closed_only)).to_have_count(0)
    expect(page.get_by_test_id("open-coded")).to_have_text(
        "1 of 3 reports complete · 2 of 6 codings submitted"
    )
    expect(page.get_by_test_id("open-codes")).to_have_text(
        "3 codes on the board · 5 uses on 1 report"
    )
    expect(page.get_by_test_id("open-categories")).to_have_text(
        "none yet · 3 codes under no category"
    )
    expect(page.get_by_test_id("open-board-state")).to_have_text("being sorted: not frozen yet")
    expect(
        page.get_by_test_id("saturation").locator(".chart-plot svg.main-svg").first
    ).to_be_visible()
    page.screenshot(path="test-artifacts/open-round-page.png", full_page=True)
    page.get_by_test_id("board-link").click()
    expect(page).to_have_url(re.compile(r"/studies/open/board/$"))
