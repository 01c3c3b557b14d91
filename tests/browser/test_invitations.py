"""In a real headless Chromium at 1400x900: a lead invites a new person by a link; the
invitee opens it in a browser of their own, chooses a username and password, and labels; with
fewer annotators than the overlap, everyone is told so instead of "All done"."""

import pytest
from playwright.sync_api import expect

from labeler.models import StudyInvitation, StudyMember
from tests.browser.label_page import wait_for_item
from tests.conftest import BROWSER_TIMEOUT_MS
from tests.labeler.factories import LabellingStudyFactory
from tests.mining.factories import BugReportFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDE = {"width": 1400, "height": 900}
PASSWORD = "a-long-enough-pass-29"


@pytest.fixture
def invitation_study(make_study, lead):
    reports = [BugReportFactory(title="Memory grows every epoch"), BugReportFactory(title="Slow")]
    return make_study(
        reports,
        factory=LabellingStudyFactory,
        slug="perf",
        name="Performance bugs",
        overlap=2,
        lead=lead,
    )


def test_lead_invites_and_the_invitee_joins_and_labels(
    wide, sign_in, browser, live_server, lead, annotator, invitation_study
):
    page = wide
    sign_in(lead)
    page.goto("/studies/perf/members/")
    warning = page.get_by_test_id("overlap-warning")
    expect(warning).to_contain_text("overlap 2) and the study has only 1")

    page.get_by_role("button", name="Remove ann as annotator").click()
    expect(page.get_by_test_id("member-ann-annotator")).to_have_count(0)
    expect(warning).to_contain_text("no annotator yet")
    page.locator("#id_invite_role").select_option("annotator")
    page.get_by_role("button", name="Make an invitation link").click()
    link = page.get_by_test_id("invitation-link").input_value()
    assert "/invitations/" in link and StudyInvitation.objects.get().state() == "open"
    expect(page.get_by_test_id("invitations")).to_contain_text("annotator")
    page.screenshot(path="test-artifacts/members-invitation-link.png", full_page=True)

    context = browser.new_context(viewport=WIDE, base_url=live_server.url)
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    invitee = context.new_page()
    try:
        invitee.goto(link)
        expect(invitee.get_by_role("heading", level=1)).to_have_text("Join Performance bugs")
        invitee.locator("#id_username").fill("newbie")
        invitee.locator("#id_password").fill("123")
        invitee.locator("#id_password_again").fill("123")
        invitee.get_by_role("button", name="Join the study").click()
        expect(invitee.get_by_test_id("error-password").first).to_contain_text("too short")
        invitee.screenshot(path="test-artifacts/invitation-weak-password.png", full_page=True)
        invitee.locator("#id_password").fill(PASSWORD)
        invitee.locator("#id_password_again").fill(PASSWORD)
        invitee.get_by_role("button", name="Join the study").click()

        expect(invitee.get_by_role("heading", level=1)).to_have_text("Performance bugs")
        expect(invitee.get_by_test_id("overlap-warning")).to_contain_text("only 1")
        assert StudyMember.objects.filter(
            study=invitation_study, user__username="newbie", role="annotator"
        ).exists()
        invitee.screenshot(path="test-artifacts/invitee-study-page.png", full_page=True)
        invitee.get_by_test_id("start-labelling").click()
        for title in ("Memory grows every epoch", "Slow"):
            wait_for_item(invitee, title)
            invitee.keyboard.press("1")
            invitee.keyboard.press("1")
            invitee.keyboard.press("Tab")
            invitee.keyboard.press("1")
            invitee.keyboard.press("Enter")
        title = invitee.get_by_test_id("done-title")
        expect(title).to_have_text("Nothing more for you: items wait for other annotators")
        expect(invitee.get_by_test_id("done-text")).to_contain_text("2 items wait")
        invitee.screenshot(path="test-artifacts/invitee-waits-for-others.png", full_page=True)

        invitee.goto("/")
        expect(invitee.get_by_test_id("study-perf")).to_contain_text("annotator")
        expect(invitee.get_by_test_id("your-roles")).not_to_contain_text("none yet")
        invitee.screenshot(path="test-artifacts/invitee-home.png", full_page=True)
        invitee.goto(link)
        expect(invitee.get_by_test_id("invitation-gone")).to_be_visible()
    finally:
        context.close()

    page.goto("/studies/perf/members/")
    expect(page.get_by_test_id("member-newbie-annotator").get_by_test_id("progress")).to_have_text(
        "2 / 2"
    )
    page.screenshot(path="test-artifacts/members-progress.png", full_page=True)
