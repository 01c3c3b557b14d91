"""In a real headless Chromium, the whole loop from open coding to agreement, each person in a
browser context of their own and every step on the product's pages: a lead sets up an
open-coding study of ten reports; two annotators code them by keyboard, offered their own
codes; on the board the lead merges the synonyms, groups the codes into two categories with
sub-categories, reads the drawn hierarchy and freezes it; the lead then sets up a closed study
on the new version over the same reports; both annotators label them; the agreement page
shows the figures this test computes from what the annotators chose, and the codebook page
the frozen categories. Only the reports are made directly (as an import would)."""

import re

import pytest
from playwright.sync_api import expect
from sklearn.metrics import cohen_kappa_score

from labeler.common.roles import Role
from labeler.models import Annotation, Board, CodeUse, Study
from tests.browser.label_page import chips, chosen_paths, code_chips, code_offers
from tests.mining.factories import BugReportFactory, RepositoryFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DIMENSION = "root-cause"

# Each report, the sub-category it comes to sit under, and the code each annotator writes.
# The two annotators name the same things differently: the board merges each pair.
REPORTS = [
    ("Memory grows every epoch", "memory/leaks"),
    ("RSS climbs until the job is killed", "memory/leaks"),
    ("Tensors never freed after eval", "memory/leaks"),
    ("The cache holds every batch", "memory/bloat"),
    ("Huge buffers allocated up front", "memory/bloat"),
    ("Gradients computed twice", "computation/redundant-work"),
    ("Shapes checked on every call", "computation/redundant-work"),
    ("The same kernel compiled again", "computation/redundant-work"),
    ("Sorting the batch is quadratic", "computation/slow-algorithms"),
    ("Nested loop over every pair", "computation/slow-algorithms"),
]
# (code of the first annotator, code of the second), per sub-category; each annotator's codes
# start with three letters no other of theirs starts with, which is what they type to be
# offered it again.
CODES = {
    "memory/leaks": ("memory leak", "leaked tensors"),
    "memory/bloat": ("oversized cache", "big buffers"),
    "computation/redundant-work": ("recomputation", "duplicate work"),
    "computation/slow-algorithms": ("quadratic algorithm", "slow algorithm"),
}
# Categories as the lead makes them on the board: (name, definition, sub-categories).
CATEGORIES = [
    (
        "Memory",
        "Memory is held or used beyond what the work needs.",
        [
            ("Leaks", "Memory that is never released."),
            ("Bloat", "More memory held at once than needed."),
        ],
    ),
    (
        "Computation",
        "Time is spent on work that is not needed.",
        [
            ("Redundant work", "The same result computed again."),
            ("Slow algorithms", "An algorithm of a worse complexity than needed."),
        ],
    ),
]
PATHS = [
    path
    for name, _, subs in CATEGORIES
    for path in [name.lower()]
    + [f"{name.lower()}/{sub.lower().replace(' ', '-')}" for sub, _ in subs]
]
# In the closed round the second annotator departs from the open round's sorting twice: once
# within a category, once across.
SECOND_LABELS = {
    "Huge buffers allocated up front": "memory/leaks",
    "Nested loop over every pair": "memory/bloat",
}


@pytest.fixture
def people(make_user):
    return {
        "lead": make_user(Role.LEAD, username="lead"),
        "ann": make_user(Role.ANNOTATOR, username="ann"),
        "ann2": make_user(Role.ANNOTATOR, username="ann2"),
    }


@pytest.fixture
def reports():
    repository = RepositoryFactory(full_name="octo/torch", name="torch")
    return [
        BugReportFactory(repository=repository, number=number, title=title)
        for number, (title, _) in enumerate(REPORTS, start=1)
    ]


@pytest.fixture
def open_as(page_as):
    """A signed-in page per person; the test fails on any script error in any of them."""
    errors = []

    def open_page(user):
        page = page_as(user)
        page.set_viewport_size({"width": 1400, "height": 900})
        page.on("pageerror", lambda error: errors.append(f"{user.username}: {error}"))
        return page

    yield open_page
    assert errors == [], errors


def create_study(page, *, sample_size):
    """Preview the sample set on the new-study page, then create the study."""
    page.get_by_role("button", name="Preview the sample").click()
    expect(page.get_by_test_id("sample-size")).to_have_text(str(sample_size))
    page.get_by_test_id("create-study").click()


def add_annotators(page, usernames):
    page.get_by_role("link", name="Members").click()
    page.locator("#id_usernames").fill(" ".join(usernames))
    page.locator("#id_role").select_option("annotator")
    page.get_by_role("button", name="Add").click()
    for username in usernames:
        expect(page.get_by_test_id("members")).to_contain_text(username)


def current_title(page):
    expect(page.locator("#label-app")).to_have_attribute("data-state", "label")
    return page.get_by_test_id("report-title").inner_text()


def next_item(page, title):
    """After the submission of the item titled `title`: the next item, or the end."""
    moved_on = page.get_by_test_id("report-title").filter(has_not_text=title)
    expect(moved_on.or_(page.get_by_test_id("done")).first).to_be_visible()


def start_labelling(page, study_name):
    """From the list of the annotator's studies, through the study's page."""
    page.goto("/studies/")
    page.get_by_role("link", name=study_name, exact=True).click()
    page.get_by_test_id("start-labelling").click()


def side_by_side(*rounds):
    """Run the annotators' rounds in turns, one item each: while one page submits and loads
    its next item, the other annotator works on theirs."""
    going = list(rounds)
    while going:
        for round_ in list(going):
            if next(round_, None) is None:
                going.remove(round_)


def code_the_round(page, which):
    """Write the annotator's code on each report by keyboard: typed in full the first time,
    then picked from the codes offered after its first three letters. Gives way after each
    submission (see side_by_side)."""
    sub_category = dict(REPORTS)
    written = set()
    for _ in REPORTS:
        title = current_title(page)
        code = CODES[sub_category[title]][which]
        page.keyboard.press("c")
        expect(page.get_by_test_id(f"code-input-{DIMENSION}")).to_be_focused()
        if code in written:
            page.keyboard.type(code[:3])
            expect(code_offers(page, DIMENSION)).to_have_text([code])
            page.keyboard.press("ArrowDown")
            page.keyboard.press("Enter")
        else:
            page.keyboard.type(code)
            page.keyboard.press("Enter")
            written.add(code)
        expect(code_chips(page, DIMENSION)).to_have_text([code])
        page.keyboard.press("Control+Enter")
        yield title
        next_item(page, title)
    expect(page.get_by_test_id("done")).to_be_visible()


def label_the_round(page, labels):
    """Choose each report's category by keyboard (the top category's number, then the
    sub-category's), as `labels` (title -> path) says. Gives way after each submission."""
    tops = [path for path in PATHS if "/" not in path]
    for _ in REPORTS:
        title = current_title(page)
        path = labels[title]
        top, _, _ = path.partition("/")
        subs = [p for p in PATHS if p.startswith(top + "/")]
        page.keyboard.press(str(tops.index(top) + 1))
        page.keyboard.press(str(subs.index(path) + 1))
        expect(chips(page, DIMENSION)).to_have_count(1)
        assert chosen_paths(page, DIMENSION) == [path]
        page.keyboard.press("Enter")
        yield title
        next_item(page, title)
    expect(page.get_by_test_id("done")).to_be_visible()


def card(page, name):
    return page.get_by_test_id("code").filter(has=page.get_by_text(name, exact=True))


def coefficient(page, section, name):
    table = page.get_by_test_id(f"coefficients-{section}")
    return table.locator("tbody tr").filter(has=page.get_by_role("rowheader", name=name))


def test_open_coding_to_a_frozen_codebook_then_labels_and_their_agreement(open_as, people, reports):
    lead_page = open_as(people["lead"])

    # The lead sets up the open-coding study, with no codebook yet: it names its dimension.
    lead_page.goto("/studies/")
    lead_page.get_by_role("link", name="New study").click()
    lead_page.locator("#id_name").fill("Loop round")
    lead_page.locator("#id_slug").fill("loop")
    lead_page.locator("input[name=kind][value=open]").check()
    lead_page.locator("#id_dimension_names").fill("root cause")
    create_study(lead_page, sample_size=len(REPORTS))
    expect(lead_page.get_by_role("heading", level=1)).to_have_text("Loop round")
    expect(lead_page.get_by_test_id("codes-independent")).to_be_visible()
    add_annotators(lead_page, ["ann", "ann2"])

    # Both annotators code the ten reports at the same time, each in their own browser.
    rounds = []
    for which, username in enumerate(["ann", "ann2"]):
        page = open_as(people[username])
        start_labelling(page, "Loop round")
        rounds.append(code_the_round(page, which))
    side_by_side(*rounds)

    written = CodeUse.objects.values_list(
        "annotator__username", "item__report__title", "written_as"
    )
    assert sorted(written) == sorted(
        (username, title, CODES[path][which])
        for which, username in enumerate(["ann", "ann2"])
        for title, path in REPORTS
    )

    # The lead: saturation on the study page, then the board.
    lead_page.goto("/studies/loop/")
    saturation = lead_page.get_by_test_id("saturation-table").locator("tbody tr")
    expect(saturation).to_have_count(len(REPORTS))
    expect(saturation.last.locator("td").first).to_have_text("8")
    # Drawn before the lead moves on, as a reader would see it.
    chart = lead_page.get_by_test_id("saturation").locator(".chart-plot svg.main-svg").first
    expect(chart).to_be_visible()
    lead_page.get_by_test_id("board-link").click()
    expect(lead_page).to_have_url(re.compile(r"/studies/loop/board/$"))
    names = lead_page.get_by_test_id("code").get_by_test_id("code-name")
    expect(names).to_have_count(8)

    # Codes meaning the same thing: the second annotator's merged into the first one's.
    for first, second in CODES.values():
        card(lead_page, second).get_by_role("checkbox").click()
        card(lead_page, first).get_by_test_id("code-name").click()
        lead_page.get_by_test_id("merge").click()
        expect(card(lead_page, second)).to_have_count(0)
        expect(card(lead_page, first).get_by_test_id("code-merged")).to_have_text(
            f"also written as {second}"
        )
    expect(names).to_have_text(sorted(first for first, _ in CODES.values()))

    # Two categories with their definitions, each with two sub-categories; each code onto its
    # sub-category.
    dialog = lead_page.get_by_test_id("dialog")
    for name, definition, subs in CATEGORIES:
        lead_page.get_by_test_id("new-theme").click()
        dialog.get_by_label("Name", exact=True).fill(name)
        dialog.get_by_label("Definition").fill(definition)
        lead_page.get_by_test_id("dialog-ok").click()
        expect(dialog).to_be_hidden()
        category = lead_page.locator(f'[data-path="{name.lower()}"]')
        for sub, sub_definition in subs:
            category.locator(".theme-head").get_by_test_id("theme-add").click()
            dialog.get_by_label("Name", exact=True).fill(sub)
            dialog.get_by_label("Definition").fill(sub_definition)
            lead_page.get_by_test_id("dialog-ok").click()
            expect(dialog).to_be_hidden()
    themes = lead_page.get_by_test_id("theme")
    expect(themes.locator("code")).to_have_text(PATHS)
    # By mouse: the memory codes dragged onto their sub-categories.
    for path in ("memory/leaks", "memory/bloat"):
        code = card(lead_page, CODES[path][0])
        code.drag_to(lead_page.locator(f'[data-path="{path}"]'))
        expect(code.get_by_test_id("code-theme")).to_have_text(path)
    # By keyboard: g offers the categories from the first one the code is not under (memory),
    # in the tree's order; the arrows go down to the sub-category.
    for path in ("computation/redundant-work", "computation/slow-algorithms"):
        code = card(lead_page, CODES[path][0])
        code.get_by_test_id("code-name").click()
        lead_page.keyboard.press("g")
        expect(dialog).to_be_visible()
        for _ in range(PATHS.index(path)):
            lead_page.keyboard.press("ArrowDown")
        lead_page.keyboard.press("Enter")
        expect(dialog).to_be_hidden()
        expect(code.get_by_test_id("code-theme")).to_have_text(path)

    # The drawn hierarchy: each category with the codes under it and their counts.
    uses = {path: 2 * [p for _, p in REPORTS].count(path) for path in CODES}
    for path, (first, _) in CODES.items():
        node = lead_page.locator(f'[data-path="{path}"]')
        expect(node.get_by_test_id("chip")).to_have_text([f"{first} ({uses[path]})"])
    for name, definition, _ in CATEGORIES:
        node = lead_page.locator(f'[data-path="{name.lower()}"]')
        total = sum(n for path, n in uses.items() if path.startswith(name.lower() + "/"))
        expect(node.get_by_test_id("theme-counts").first).to_have_text(
            f"2 codes · {total} uses · {total // 2} reports"
        )
        expect(node.first).to_contain_text(definition)
    expect(lead_page.get_by_test_id("freeze-ungrouped")).to_have_text(
        "Every code is under a category."
    )
    lead_page.get_by_test_id("tree").screenshot(path="test-artifacts/loop-hierarchy.png")

    # Freeze, then a closed study on the new version over the same reports.
    lead_page.get_by_test_id("freeze-key").fill("loop-causes")
    lead_page.get_by_test_id("freeze-name").fill("Loop causes")
    lead_page.get_by_test_id("freeze-submit").click()
    lead_page.get_by_test_id("freeze-confirm-ok").click()
    expect(lead_page.get_by_test_id("frozen")).to_contain_text("Loop causes (loop-causes v1)")
    frozen_map = Board.objects.get(study__slug="loop").frozen_map
    assert frozen_map == {
        DIMENSION: {code: path for path, codes in CODES.items() for code in codes}
    }
    lead_page.get_by_test_id("closed-study-same").click()
    expect(lead_page.locator("#id_codebook option:checked")).to_have_text(re.compile("loop-causes"))
    expect(lead_page.locator("#id_slug")).to_have_value("loop-closed")
    create_study(lead_page, sample_size=len(REPORTS))
    expect(lead_page.get_by_test_id("items-complete")).to_have_text(f"0 / {len(REPORTS)}")
    closed = Study.objects.get(slug="loop-closed")
    assert closed.kind == Study.Kind.CLOSED
    assert set(closed.items.values_list("report_id", flat=True)) == {r.pk for r in reports}
    add_annotators(lead_page, ["ann", "ann2"])

    # Both annotators label the reports against the frozen scheme, at the same time.
    chosen = {
        "ann": dict(REPORTS),
        "ann2": {title: SECOND_LABELS.get(title, path) for title, path in REPORTS},
    }
    rounds = []
    for username, labels in chosen.items():
        page = open_as(people[username])
        start_labelling(page, "Loop round: closed round")
        rounds.append(label_the_round(page, labels))
    side_by_side(*rounds)

    stored = Annotation.objects.filter(item__study=closed).values_list(
        "annotator__username", "item__report__title", "values"
    )
    assert sorted(stored) == sorted(
        (username, title, [path])
        for username, labels in chosen.items()
        for title, path in labels.items()
    )

    # The agreement page's figures, computed here from the labels chosen (categories: 8 of 10
    # the same, kappa 0.726; top-level categories: 9 of 10, kappa 0.8).
    titles = [title for title, _ in REPORTS]
    lead_page.goto("/studies/loop-closed/")
    lead_page.get_by_test_id("agreement-link").click()
    for level, value_of in (("path", lambda p: p), ("top", lambda p: p.partition("/")[0])):
        first = [value_of(chosen["ann"][t]) for t in titles]
        second = [value_of(chosen["ann2"][t]) for t in titles]
        agreement = sum(a == b for a, b in zip(first, second, strict=True)) / len(titles)
        kappa = cohen_kappa_score(first, second)
        section = f"{DIMENSION}-{level}"
        expect(lead_page.get_by_test_id(f"agreement-{section}")).to_contain_text(
            f"{len(titles)} items · {2 * len(titles)} ratings · 2 annotators"
        )
        expect(
            coefficient(lead_page, section, "Percent agreement").locator("td").first
        ).to_have_text(f"{agreement:.3f}")
        expect(
            coefficient(lead_page, section, "Cohen's kappa (mean over pairs)").locator("td").first
        ).to_have_text(f"{kappa:.3f}")
    lead_page.screenshot(path="test-artifacts/loop-agreement.png")

    # The frozen codebook's categories and definitions, on its page as the study links it.
    lead_page.get_by_role("link", name="Loop round: closed round").click()
    lead_page.get_by_role("link", name="Loop causes v1").click()
    expect(lead_page).to_have_url(re.compile(r"/codebooks/loop-causes/1/$"))
    dimension = lead_page.get_by_test_id(f"dimension-{DIMENSION}")
    expect(dimension.locator(".category-path")).to_have_text(PATHS)
    for _, definition, subs in CATEGORIES:
        expect(dimension).to_contain_text(definition)
        for _, sub_definition in subs:
            expect(dimension).to_contain_text(sub_definition)
