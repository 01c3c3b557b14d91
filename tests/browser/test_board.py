"""In a real headless Chromium, under the production Content-Security-Policy and offline: a
lead sorts an open round's codes on the board, once by keyboard (merge, rename, categories,
group, split, undo) and once by mouse (drag and drop onto categories, buttons, a category
dragged under another), then freezes it and follows its links to the new codebook, the
carry-over and a closed study on the new version."""

import re

import pytest
from playwright.sync_api import expect

from labeler.adjudication.services import item_adjudicate
from labeler.common.permissions import codebook_owner_of
from labeler.common.roles import Role
from labeler.models import Board, Code, Theme
from taxonomy.models import Codebook
from taxonomy.services import codebook_key_give
from tests.labeler.board_factories import code_uses, items_of, open_study_with_items
from tests.labeler.final_labels import decided_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# What production sends (config/settings/production.py): no inline script or style runs.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)


@pytest.fixture
def board_page(offline):
    """The shared `offline` page (tests/browser/conftest.py: nothing from elsewhere, no script
    error), with the CSP on the board's pages; fails on any policy violation."""
    page = offline
    violations = []

    def with_csp(route):
        response = route.fetch()
        route.fulfill(
            response=response, headers={**response.headers, "content-security-policy": CSP}
        )

    page.set_viewport_size({"width": 1400, "height": 900})
    page.route(re.compile(r"/studies/[^/]+/board/$"), with_csp)
    page.on(
        "console",
        lambda message: (
            violations.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    yield page
    assert violations == [], violations


@pytest.fixture
def round_coded(make_user):
    """Two annotators' codes on four reports of the open study "open"."""
    ann, ann2 = (
        make_user(Role.ANNOTATOR, username="ann"),
        make_user(Role.ANNOTATOR, username="ann2"),
    )
    lead = make_user(Role.LEAD, username="lead")
    study, board = open_study_with_items(
        members=[(ann, "annotator"), (ann2, "annotator"), (lead, "lead")]
    )
    items = items_of(study)
    code_uses(board, annotator=ann, item=items[0], names=["slow loop", "leaky cache"])
    code_uses(board, annotator=ann, item=items[1], names=["slow loop"])
    code_uses(board, annotator=ann2, item=items[2], names=["Slow-loop", "cache thrash"])
    code_uses(board, annotator=ann2, item=items[3], names=["inefficient loop"])
    code_uses(board, annotator=ann2, item=items[3], dimension="symptom", names=["hangs"])
    return {"study": study, "board": board, "lead": lead}


def names_shown(page):
    return page.get_by_test_id("code").get_by_test_id("code-name")


def current_name(page):
    return page.locator(".code-card.current").get_by_test_id("code-name")


def test_a_lead_sorts_the_codes_by_keyboard(board_page, sign_in, round_coded):
    page = board_page
    board = round_coded["board"]
    sign_in(round_coded["lead"])
    page.goto("/studies/open/")
    page.get_by_test_id("board-link").click()
    expect(page).to_have_url(re.compile(r"/studies/open/board/$"))
    expect(names_shown(page)).to_have_text(
        ["cache thrash", "inefficient loop", "leaky cache", "slow loop", "Slow-loop"]
    )
    expect(current_name(page)).to_have_text("cache thrash")
    expect(page.locator(".code-card.current")).to_be_focused()
    expect(page.get_by_test_id("board-keys")).to_contain_text("merge the selected codes")

    # Select "inefficient loop" and "Slow-loop", then merge them into "slow loop".
    page.keyboard.press("ArrowDown")
    page.keyboard.press(" ")
    for _ in range(3):
        page.keyboard.press("ArrowDown")
    page.keyboard.press(" ")
    expect(page.get_by_test_id("selection-tools")).to_contain_text("2 codes selected")
    page.keyboard.press("ArrowUp")
    expect(current_name(page)).to_have_text("slow loop")
    page.keyboard.press("m")
    expect(names_shown(page)).to_have_text(["cache thrash", "leaky cache", "slow loop"])
    loop = page.get_by_test_id("code").filter(has_text="slow loop")
    expect(loop.get_by_test_id("code-counts")).to_have_text("4 uses · 4 reports")
    expect(loop.get_by_test_id("code-merged")).to_have_text(
        "also written as Slow-loop, inefficient loop"
    )
    expect(loop.get_by_test_id("code-annotators")).to_have_text("by A1, A2")
    expect(page.get_by_test_id("status")).to_contain_text(
        "merged “inefficient loop”, “Slow-loop” into “slow loop”"
    )

    # r renames the current code.
    page.keyboard.press("r")
    dialog = page.get_by_test_id("dialog")
    expect(dialog).to_be_visible()
    page.keyboard.type("redundant loop")
    page.keyboard.press("Enter")
    expect(dialog).to_be_hidden()
    expect(current_name(page)).to_have_text("redundant loop")

    # n makes a category, then a sub-category under it (Tab to "Under", an arrow picks it).
    page.keyboard.press("n")
    page.keyboard.type("Computation")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("theme")).to_have_count(1)
    page.keyboard.press("n")
    page.keyboard.type("Loops")
    for _ in range(6):
        page.keyboard.press("Tab")
    expect(page.locator("#dialog-parent")).to_be_focused()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("theme").get_by_test_id("theme-name")).to_have_text(
        ["Computation", "Loops"]
    )
    expect(page.get_by_test_id("theme").nth(1)).to_have_attribute("data-path", "computation/loops")

    # g groups the current code: its first offer is the first category.
    page.keyboard.press("g")
    expect(page.locator("#dialog-body input[value][type=radio]:checked")).to_be_focused()
    page.keyboard.press("ArrowDown")  # Loops
    page.keyboard.press("Enter")
    expect(current_name(page)).to_have_text("redundant loop")
    loops = page.locator('[data-path="computation/loops"]')
    expect(loops.get_by_test_id("chip")).to_have_text(["redundant loop (4)"])
    expect(page.locator('[data-path="computation"]').get_by_test_id("theme-counts")).to_have_text(
        "1 code · 4 uses · 4 reports"
    )

    # s splits off the uses on the first report as a new code, under the same category.
    page.keyboard.press("s")
    expect(page.get_by_test_id("split-use")).to_have_count(4)
    page.keyboard.type("busy loop")
    page.keyboard.press("Tab")
    page.keyboard.press(" ")  # every use on octo/torch#1
    page.keyboard.press("Enter")
    expect(dialog).to_be_hidden()
    expect(loops.get_by_test_id("chip")).to_have_text(["busy loop (1)", "redundant loop (3)"])
    page.screenshot(path="test-artifacts/board-keyboard.png", full_page=True)

    # u takes the split back; undoing again, the grouping before it.
    page.keyboard.press("u")
    expect(loops.get_by_test_id("chip")).to_have_text(["redundant loop (4)"])
    expect(page.get_by_test_id("history-entry").first).to_contain_text(
        "undid: split “redundant loop”"
    )
    page.keyboard.press("u")
    expect(loops.get_by_test_id("chip")).to_have_count(0)
    expect(
        page.get_by_test_id("history-entry").filter(
            has_text=re.compile("· grouped “redundant loop”")
        )
    ).to_have_class(re.compile(r"\bundone\b"))
    grouped = page.get_by_test_id("history-entry").filter(has_text="· grouped “redundant loop”")
    # As it reads on screen: a space before "(undone by".
    assert re.search(r"\S \(undone by \S", grouped.inner_text()), grouped.inner_text()
    page.locator("#history").screenshot(path="test-artifacts/board-history-undone.png")

    # ] goes to the next dimension; Esc in a dialog leaves everything as it was.
    page.keyboard.press("]")
    expect(names_shown(page)).to_have_text(["hangs"])
    page.keyboard.press("r")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(current_name(page)).to_have_text("hangs")
    assert Code.objects.get(board=board, name="redundant loop").theme is None
    assert not Code.objects.filter(board=board, name="busy loop").exists()


def test_a_key_pressed_as_a_dialog_closes_reaches_the_board(board_page, sign_in, round_coded):
    # The dialog's OK re-draws the board and closes the dialog; the next key must reach the
    # board at once. Focus left on the closed dialog's field until the dialog's "close" event
    # (a later task, late on a loaded machine) made the board ignore that key as typing.
    page = board_page
    sign_in(round_coded["lead"])
    page.goto("/studies/open/board/")
    expect(page.locator(".code-card.current")).to_be_focused()
    page.evaluate(
        """() => {
            window.focusAtClose = [];
            const dialog = document.getElementById("dialog");
            new MutationObserver(() => {
                if (!dialog.open) {
                    const at = document.activeElement;
                    window.focusAtClose.push(at.dataset.id ? "card " + at.dataset.id : at.tagName);
                }
            }).observe(dialog, { attributes: true, attributeFilter: ["open"] });
        }"""
    )
    page.keyboard.press("r")
    expect(page.get_by_test_id("dialog")).to_be_visible()
    page.keyboard.type("thrashing cache")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("dialog")).to_be_hidden()
    current = page.locator(".code-card.current").get_attribute("data-id")
    assert page.evaluate("window.focusAtClose") == [f"card {current}"]


def test_a_lead_sorts_the_codes_by_mouse_and_freezes_the_board(board_page, sign_in, round_coded):
    page = board_page
    board, study = round_coded["board"], round_coded["study"]
    sign_in(round_coded["lead"])
    page.goto("/studies/open/board/")
    dialog = page.get_by_test_id("dialog")
    code = page.get_by_test_id("code")
    expect(code).to_have_count(5)

    # Two categories from the toolbar button.
    for name in ("Memory", "Computation"):
        page.get_by_test_id("new-theme").click()
        dialog.get_by_label("Name", exact=True).fill(name)
        page.get_by_test_id("dialog-ok").click()
        expect(dialog).to_be_hidden()
    memory = page.locator('[data-path="memory"]')
    computation = page.locator('[data-path="computation"]')

    # Ticked codes merge into the one clicked last; a code dragged onto a category joins it.
    code.filter(has_text="Slow-loop").get_by_role("checkbox").click()
    code.filter(has_text="inefficient loop").get_by_role("checkbox").click()
    code.filter(has_text="slow loop").get_by_test_id("code-name").click()
    page.get_by_test_id("merge").click()
    expect(names_shown(page)).to_have_text(["cache thrash", "leaky cache", "slow loop"])
    code.filter(has_text="slow loop").drag_to(computation)
    expect(computation.get_by_test_id("chip")).to_have_text(["slow loop (4)"])
    code.filter(has_text="leaky cache").get_by_role("checkbox").click()
    code.filter(has_text="cache thrash").get_by_role("checkbox").click()
    code.filter(has_text="leaky cache").drag_to(memory)
    expect(memory.get_by_test_id("chip")).to_have_text(["cache thrash (1)", "leaky cache (1)"])

    # A sub-category made with a category's + button; a chip dragged onto it.
    memory.get_by_test_id("theme-add").click()
    dialog.get_by_label("Name", exact=True).fill("Caches")
    dialog.get_by_label("Definition").fill("Cached data kept too long.")
    page.get_by_test_id("dialog-ok").click()
    caches = page.locator('[data-path="memory/caches"]')
    expect(caches).to_contain_text("Cached data kept too long.")
    memory.get_by_test_id("chip").filter(has_text="cache thrash").drag_to(caches)
    expect(caches.get_by_test_id("chip")).to_have_text(["cache thrash (1)"])

    # A category dragged onto another goes under it; ↑ puts it first among its siblings.
    computation.locator(".theme-head").drag_to(memory)
    expect(page.locator('[data-path="memory/computation"]')).to_be_visible()
    page.locator('[data-path="memory/computation"]').get_by_test_id("theme-up").click()
    expect(page.get_by_test_id("theme").locator("code")).to_have_text(
        ["memory", "memory/computation", "memory/caches"]
    )
    # …and back to the top level by the Top level zone.
    page.locator('[data-path="memory/computation"] .theme-head').drag_to(
        page.get_by_test_id("top-zone")
    )
    expect(page.get_by_test_id("theme").locator("code")).to_have_text(
        ["memory", "memory/caches", "computation"]
    )

    # Rename and split by their buttons; undo by its button.
    code.filter(has_text="slow loop").get_by_test_id("rename-button").click()
    dialog.get_by_label("New name").fill("redundant loop")
    page.get_by_test_id("dialog-ok").click()
    expect(computation.get_by_test_id("chip")).to_have_text(["redundant loop (4)"])
    code.filter(has_text="redundant loop").get_by_test_id("split-button").click()
    dialog.get_by_label("Name of the new code").fill("busy loop")
    dialog.get_by_label("Every use on octo/torch#4").check()
    page.get_by_test_id("dialog-ok").click()
    expect(computation.get_by_test_id("chip")).to_have_text(["busy loop (1)", "redundant loop (3)"])
    page.get_by_test_id("undo").click()
    expect(computation.get_by_test_id("chip")).to_have_text(["redundant loop (4)"])

    # Real names on asking; the other dimension by its tab, its code dragged into a new category.
    page.get_by_test_id("names-toggle").click()
    expect(code.filter(has_text="redundant loop").get_by_test_id("code-annotators")).to_have_text(
        "by ann, ann2"
    )
    page.get_by_test_id("dimensions").get_by_role("button", name=re.compile("Symptom")).click()
    page.get_by_test_id("new-theme").click()
    dialog.get_by_label("Name", exact=True).fill("Stalls")
    page.get_by_test_id("dialog-ok").click()
    code.filter(has_text="hangs").drag_to(page.locator('[data-path="stalls"]'))
    expect(page.get_by_test_id("freeze-ungrouped")).to_have_text("Every code is under a category.")
    page.screenshot(path="test-artifacts/board-mouse.png", full_page=True)

    # The freeze: a bad key is named, so is the owner of another's key; then the board is
    # frozen, with its links.
    page.get_by_test_id("freeze-key").fill("Open Perf")
    page.get_by_test_id("freeze-submit").click()
    page.get_by_test_id("freeze-confirm-ok").click()
    expect(page.get_by_test_id("status")).to_contain_text("key 'Open Perf' must be lowercase")
    Codebook.objects.create(key="shipped-causes", version="1", name="Shipped", content_hash="0")
    page.get_by_test_id("freeze-key").fill("shipped-causes")
    page.get_by_test_id("freeze-submit").click()
    page.get_by_test_id("freeze-confirm-ok").click()
    expect(page.get_by_test_id("status")).to_contain_text(
        "codebook 'shipped-causes' belongs to the admins (a built-in codebook, or one loaded "
        "from a codebook file): only the admins may add a version to it"
    )
    expect(page.get_by_test_id("freeze")).to_be_visible()
    page.get_by_test_id("freeze-key").fill("open-perf")
    page.get_by_test_id("freeze-name").fill("Open perf causes")
    page.get_by_test_id("freeze-submit").click()
    page.get_by_test_id("freeze-confirm-ok").click()
    expect(page.get_by_test_id("frozen")).to_contain_text("Open perf causes (open-perf v1)")
    expect(page.get_by_test_id("undo")).to_have_count(0)
    expect(code.first.get_by_test_id("rename-button")).to_have_count(0)
    page.screenshot(path="test-artifacts/board-frozen.png", full_page=True)
    board = Board.objects.get(pk=board.pk)
    assert board.frozen_map == {
        "root-cause": {
            "redundant loop": "computation",
            "Slow-loop": "computation",
            "inefficient loop": "computation",
            "leaky cache": "memory",
            "cache thrash": "memory/caches",
        },
        "symptom": {"hangs": "stalls"},
    }
    assert Theme.objects.filter(board=board).count() == 4

    page.get_by_test_id("frozen-codebook").click()
    expect(page).to_have_url(re.compile(r"/codebooks/open-perf/1/$"))
    expect(page.locator("main")).to_contain_text("Caches")
    page.go_back()
    page.get_by_test_id("closed-study-same").click()
    expect(page).to_have_url(re.compile(r"/studies/new/\?codebook=open-perf"))
    expect(page.locator("#id_codebook option:checked")).to_have_text(re.compile(r"open-perf"))
    expect(page.locator("#id_slug")).to_have_value(f"{study.slug}-closed")
    page.goto("/studies/open/board/carry-over/")
    rows = page.get_by_test_id("carry-over").locator("tbody tr")
    expect(rows.first).to_contain_text("octo/torch#1")
    expect(rows.first).to_contain_text("computation")


def test_a_lead_revises_a_closed_studys_codebook_on_a_board(
    board_page, sign_in, annotator, lead, researcher, make_user
):
    page = board_page
    study = decided_study(
        annotator=annotator, lead=lead, researcher=researcher, make_user=make_user
    )
    disputed = items_of(study)[3]
    item_adjudicate(
        item_id=disputed.pk,
        user=lead,
        decisions={
            "root-cause": {
                "value": "threading",
                "rationale": "The fix adds a lock.",
                "reason": "codebook_ambiguity",
            }
        },
    )
    # The study's own codebook (its board made it), so its lead may revise it.
    codebook_key_give(key=study.codebook.key, owner=codebook_owner_of(study))
    sign_in(lead)
    page.goto("/studies/perf/")
    page.get_by_test_id("board-link").click()
    page.get_by_test_id("start-revision").click()
    code = page.get_by_test_id("code")
    expect(code).to_have_count(4)
    threading = code.filter(has=page.get_by_text("threading", exact=True))
    expect(threading.get_by_test_id("final-labels")).to_have_text(
        "3 final labels in this study on threading"
    )
    expect(threading).to_contain_text("codebook ambiguity 1")
    threading.get_by_text("Rationales (1)").click()
    expect(threading).to_contain_text("The fix adds a lock.")

    # The threading card is split: its copy goes under a new category "Deadlock".
    threading.get_by_test_id("split-button").click()
    page.get_by_test_id("dialog").get_by_label("Name of the copy").fill("Threading: deadlocks")
    page.keyboard.press("Enter")
    expect(code).to_have_count(5)
    copy = code.filter(has_text="Threading: deadlocks")
    copy.get_by_test_id("code-name").click()
    page.keyboard.press("g")
    page.locator('#dialog-body input[value="new"]').check()
    page.get_by_test_id("dialog").locator("input[name=new_name]").fill("Deadlock")
    page.keyboard.press("Enter")
    expect(page.locator('[data-path="deadlock"]').get_by_test_id("chip")).to_have_text(
        ["Threading: deadlocks (3)"]
    )
    page.screenshot(path="test-artifacts/board-revision.png", full_page=True)
    page.get_by_test_id("freeze-version").fill("2.0")
    page.get_by_test_id("freeze-submit").click()
    page.get_by_test_id("freeze-confirm-ok").click()
    expect(page.get_by_test_id("frozen")).to_contain_text("v2.0")
    revised = Codebook.objects.get(key=study.codebook.key, version="2.0")
    assert revised.derived_from == study.codebook
    assert revised.mapping["root-cause"]["threading"] == ["deadlock", "threading"]
