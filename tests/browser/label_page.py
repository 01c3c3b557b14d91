"""The labelling page as the browser tests read it: waiting for an item, the chosen
categories and the codes written, the codes offered while typing."""

from playwright.sync_api import expect


def wait_for_item(page, title):
    """The item titled `title` is shown and the page takes labels."""
    expect(page.get_by_test_id("report-title")).to_have_text(title)
    expect(page.locator("#label-app")).to_have_attribute("data-state", "label")


def chips(page, dimension):
    """The categories chosen in the dimension."""
    return page.get_by_test_id(f"chosen-{dimension}").locator(".chip")


def chosen_paths(page, dimension):
    return chips(page, dimension).evaluate_all("(chips) => chips.map((chip) => chip.dataset.path)")


def code_chips(page, dimension):
    """The names of the codes written in the dimension."""
    return page.get_by_test_id(f"chosen-{dimension}").locator(".chip.code .code-name")


def code_offers(page, dimension):
    """The codes in use offered under the dimension's code box."""
    return page.get_by_test_id(f"code-offers-{dimension}").locator(".code-offer")
