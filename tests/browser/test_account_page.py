"""The account page in a browser: reached from the username on every page; a password changed,
the API token revoked, and every session ended, each without the admin."""

import pytest
from playwright.sync_api import expect
from rest_framework.authtoken.models import Token

from tests.labeler.factories import TEST_PASSWORD, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)
NEW_PASSWORD = "a-longer-new-passphrase-42"


def test_a_person_changes_their_password_and_signs_out_everywhere(page, sign_in):
    ann = UserFactory(username="ann")
    token = Token.objects.create(user=ann)
    page.set_viewport_size({"width": 1400, "height": 900})
    sign_in(ann)
    page.get_by_test_id("username").click()
    expect(page.get_by_role("heading", name="Your account")).to_be_visible()
    expect(page.get_by_test_id("token-prefix")).to_have_text(token.key[:8])
    page.screenshot(path="test-artifacts/account.png", full_page=True)

    page.fill("#id_old_password", "not it")
    page.fill("#id_new_password1", NEW_PASSWORD)
    page.fill("#id_new_password2", NEW_PASSWORD)
    page.get_by_role("button", name="Change password").click()
    expect(page.locator("#id_old_password-error")).to_contain_text("incorrectly")

    page.fill("#id_old_password", TEST_PASSWORD)
    page.fill("#id_new_password1", NEW_PASSWORD)
    page.fill("#id_new_password2", NEW_PASSWORD)
    page.get_by_role("button", name="Change password").click()
    expect(page.locator(".messages")).to_contain_text("Your password is changed.")
    # The new password revoked the token; this session stays.
    expect(page.get_by_test_id("no-token")).to_be_visible()
    assert not Token.objects.filter(user=ann).exists()

    page.get_by_role("button", name="Sign out everywhere").click()
    expect(page.locator("#id_username")).to_be_visible()
    page.goto("/accounts/")
    expect(page).to_have_url("/accounts/login/?next=/accounts/")
