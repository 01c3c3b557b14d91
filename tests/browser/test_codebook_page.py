"""In a real headless Chromium: sign in, open a codebook, search it."""

import pytest
from playwright.sync_api import expect

from taxonomy.codebook_file import parse_codebook
from taxonomy.services import codebook_load
from tests.taxonomy.test_codebook_file import GOOD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_sign_in_and_read_and_search_a_codebook(page, sign_in, annotator):
    codebook_load(spec=parse_codebook(GOOD))

    page.goto("/codebooks/")
    expect(page).to_have_url("/accounts/login/?next=/codebooks/")
    sign_in(annotator)
    page.goto("/codebooks/")
    page.get_by_role("link", name="Performance root causes").click()
    page.wait_for_load_state("load")

    expect(page.get_by_role("heading", level=1)).to_have_text("Performance root causes")
    dimension = page.get_by_test_id("dimension-root-cause")
    expect(dimension.locator(".category-path")).to_have_text(
        ["memory", "memory/unreleased", "other"]
    )
    expect(dimension).to_contain_text("Memory is wasted.")

    page.keyboard.press("/")
    page.keyboard.type("unreleased")
    expect(dimension.locator("li.category:visible .category-path")).to_have_text(
        ["memory", "memory/unreleased"]
    )
    page.keyboard.press("Control+A")
    page.keyboard.type("no-such-thing")
    expect(page.locator("#search-empty")).to_be_visible()
    page.screenshot(path="test-artifacts/codebook-page.png", full_page=True)
