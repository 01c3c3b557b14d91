"""In a real headless Chromium at 1400x900, pages that fit the kind of study: an open round's
page shows its board, codes and saturation and none of a closed study's controls; freezing a
board asks first and then says what it made; a closed study made from it starts from
guidelines for applying the frozen scheme; a revision board speaks of categories and labels;
the new-study page fills the slug in from the name."""

import re

import pytest
from playwright.sync_api import expect

from labeler.coding.board.themes import codes_group, theme_create
from labeler.common.permissions import codebook_owner_of
from labeler.common.roles import Role
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import Board, Study
from taxonomy.models import Codebook
from taxonomy.services import codebook_key_give
from tests.labeler.factories import OpenStudyFactory, StudyItemFactory, StudyMemberFactory
from tests.labeler.final_labels import decided_study

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
    page.goto("/studies/")
    expect(page.get_by_test_id("open-coding-badge")).to_have_text("open coding")
    expect(page.get_by_test_id("study-list")).not_to_contain_text("vopen")
    page.screenshot(path="test-artifacts/study-list-open-round.png")


def sorted_board(study, lead):
    """The open round's board with every code under a category, ready to freeze."""
    board = Board.objects.get(study=study)
    for dimension, name in (("root-cause", "Memory"), ("symptom", "Slowness")):
        theme = theme_create(board=board, dimension_key=dimension, name=name, user=lead)
        codes = board.codes.filter(dimension__key=dimension).values_list("pk", flat=True)
        codes_group(board=board, code_ids=list(codes), theme_id=theme.pk, user=lead)
    return board


def test_freezing_asks_first_then_says_what_was_frozen_and_the_closed_study_applies_it(
    offline, wide, sign_in, lead, open_round
):
    page = offline
    Study.objects.filter(pk=open_round.pk).update(
        guidelines="Write a short code for what went wrong."
    )
    board = sorted_board(open_round, lead)
    sign_in(lead)
    page.goto("/studies/open/board/")
    expect(page.get_by_test_id("freeze-ungrouped")).to_have_text("Every code is under a category.")
    page.get_by_test_id("freeze-key").fill("open-sorted")
    dialog = page.get_by_test_id("freeze-confirm")

    # Enter presses the default button, Cancel; so does Esc: nothing is frozen.
    for key in ("Enter", "Escape"):
        page.get_by_test_id("freeze-submit").click()
        expect(dialog).to_be_visible()
        expect(dialog.get_by_test_id("freeze-confirm-text")).to_have_text(
            "This creates codebook open-sorted v1 (Open round), frozen: it no longer changes, "
            "and neither does the board."
        )
        expect(dialog.get_by_test_id("freeze-cancel")).to_be_focused()
        expect(dialog.get_by_test_id("freeze-confirm-ok")).to_have_text(
            "Freeze into open-sorted v1"
        )
        if key == "Enter":
            page.screenshot(path="test-artifacts/board-freeze-confirm.png")
        page.keyboard.press(key)
        expect(dialog).to_be_hidden()
        expect(page.get_by_test_id("freeze-submit")).to_be_focused()
    board.refresh_from_db()
    assert board.frozen_into is None
    assert not Codebook.objects.filter(key="open-sorted").exists()

    page.get_by_test_id("freeze-submit").click()
    dialog.get_by_test_id("freeze-confirm-ok").click()
    expect(page.get_by_test_id("frozen-head")).to_have_text("Frozen into open-sorted v1")
    expect(page.get_by_test_id("frozen-codebook")).to_have_attribute(
        "href", "/codebooks/open-sorted/1/"
    )
    expect(page.locator(".board-tree > p")).to_contain_text(
        "The hierarchy as it was frozen into open-sorted v1"
    )
    expect(page.get_by_test_id("freeze")).to_have_count(0)
    expect(page.get_by_test_id("code")).to_have_count(2)  # cache and leak, drawn
    page.screenshot(path="test-artifacts/board-frozen-into.png", full_page=True)

    # The closed study on the new version: guidelines for applying it, the lead's to edit.
    page.get_by_test_id("closed-study-same").click()
    guidelines = page.locator("#id_guidelines")
    expect(guidelines).to_have_value(
        re.compile(r"^Label each report with the codebook \[Open round \(open-sorted v1\)\]")
    )
    expect(guidelines).to_have_value(re.compile("choose the category whose definition fits"))
    expect(guidelines).not_to_have_value(re.compile("Write a short code"))
    guidelines.scroll_into_view_if_needed()
    page.screenshot(path="test-artifacts/new-closed-study-guidelines.png")


def test_a_revision_board_speaks_of_categories_and_offers_the_label_move(
    offline, wide, sign_in, annotator, lead, researcher, make_user
):
    page = offline
    study = decided_study(
        annotator=annotator, lead=lead, researcher=researcher, make_user=make_user
    )
    codebook_key_give(key=study.codebook.key, owner=codebook_owner_of(study))
    sign_in(lead)
    page.goto("/studies/perf/board/")
    page.get_by_test_id("start-revision").click()
    expect(page.get_by_role("heading", name="Cards", exact=True)).to_be_visible()
    names = {
        code.source_path: code.name
        for code in Board.objects.get(study=study).codes.filter(dimension__key="root-cause")
    }
    cards = page.get_by_test_id("code")

    def card(path):
        return cards.filter(has=page.get_by_text(names[path], exact=True))

    # memory/bloat, final on one item, merged into memory/leak.
    card("memory/bloat").get_by_role("checkbox").click()
    expect(page.locator("#selection-count")).to_have_text("1 card selected")
    card("memory/leak").get_by_test_id("code-name").click()
    page.get_by_test_id("merge").click()
    expect(page.get_by_test_id("status")).to_have_text(
        f"merged category “{names['memory/bloat']}” into “{names['memory/leak']}” "
        "(Root cause): 1 final label moved (u undoes it)"
    )
    page.screenshot(path="test-artifacts/board-revision-merge.png", full_page=True)

    page.get_by_test_id("freeze-version").fill("2.0")
    page.get_by_test_id("freeze-submit").click()
    page.get_by_test_id("freeze-confirm-ok").click()
    key = study.codebook.key
    expect(page.get_by_test_id("frozen-head")).to_have_text(f"Frozen into {key} v2.0")
    frozen = page.get_by_test_id("frozen")
    expect(frozen).not_to_contain_text("open round")
    expect(page.get_by_test_id("closed-study-same")).to_have_count(0)
    expect(page.get_by_test_id("frozen-migration")).to_contain_text(
        "This study still labels with v1.0."
    )
    expect(cards).to_have_count(3)  # the root cause's cards after the merge, drawn
    expect(card("memory/leak").get_by_test_id("code-merged")).to_have_text(
        f"merged into it: {names['memory/bloat']}"
    )
    page.screenshot(path="test-artifacts/board-revision-frozen.png", full_page=True)
    page.get_by_test_id("migrate-link").click()
    expect(page).to_have_url(re.compile(r"/studies/perf/codebook/2\.0/$"))


def test_the_new_study_page_fills_the_slug_in_from_the_name(offline, wide, sign_in, lead):
    page = offline
    sign_in(lead)
    page.goto("/studies/new/")
    name, slug = page.locator("#id_name"), page.locator("#id_slug")

    name.press_sequentially("Perf pilot: Über round 2")
    expect(slug).to_have_value("perf-pilot-uber-round-2")
    page.screenshot(path="test-artifacts/new-study-slug.png")
    # The lead's own slug stays as the name changes; the server still checks it.
    slug.fill("Not a slug!")
    name.fill("Perf pilot: round 3")
    expect(name).to_have_value("Perf pilot: round 3")
    expect(slug).to_have_value("Not a slug!")
    page.get_by_role("button", name="Preview the sample").click()
    expect(page.locator("#id_slug").locator("xpath=..")).to_contain_text(
        "Enter a valid “slug” consisting of letters, numbers, underscores or hyphens."
    )
    expect(page.locator("#id_slug")).to_have_value("Not a slug!")
    # An emptied slug follows the name again.
    page.wait_for_load_state("load")  # the page's script listens from then on
    page.locator("#id_slug").fill("")
    page.locator("#id_name").fill("Second try")
    expect(page.locator("#id_slug")).to_have_value("second-try")
