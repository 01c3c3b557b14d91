"""In a real headless Chromium: sign in, open a codebook, search it, download its file and
open the diff with another version from its form."""

import pytest
from playwright.sync_api import expect

from taxonomy.codebook_file import parse_codebook
from taxonomy.services import codebook_load, codebook_revise
from tests.taxonomy.test_codebook_file import GOOD
from tests.taxonomy.test_services import V3, V3_MAPPING

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


def test_the_codebook_page_form_opens_the_diff_and_its_file_downloads(page, sign_in, annotator):
    base, _ = codebook_load(spec=parse_codebook(GOOD))
    codebook_revise(base=base, spec=parse_codebook(V3), mapping=V3_MAPPING)
    sign_in(annotator)
    page.goto("/codebooks/perf/3.0/")

    with page.expect_download() as download:
        page.get_by_role("link", name="Download the codebook file (YAML)").click()
    assert download.value.suggested_filename == "perf-3.0.yaml"
    with open(download.value.path(), encoding="utf-8") as file:
        assert parse_codebook(file.read()).revises.version == "2.1"

    page.get_by_label("Compare with version").select_option("2.1")
    page.get_by_role("button", name="Show the changes").click()

    expect(page).to_have_url("/codebooks/perf/diff/2.1/3.0/")
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "Performance root causes: version 2.1 → 3.0"
    )
    root_cause = page.get_by_test_id("diff-root-cause")
    expect(root_cause.get_by_role("heading", level=3)).to_have_text(
        ["Added (1)", "Removed (1)", "Split (1)"]
    )
    expect(root_cause.locator(".diff-split li")).to_have_text(
        "memory/unreleased Unreleased memory → split into other/leak Leak, other Other"
    )
    expect(page.get_by_test_id("diff-impact")).to_contain_text("No change in this dimension.")
    page.screenshot(path="test-artifacts/codebook-diff.png", full_page=True)
