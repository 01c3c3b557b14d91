"""In a real headless Chromium: the labelling page's controls column from the keyboard. With
the built-in codebooks every choice, the note and Submit fit beside the report, the
highlighted category's definition stays on screen, a choice can be taken back, choosing
never moves the focus and Tab never wraps to the first dimension, the history opens with a
key."""

import re

import pytest
from playwright.sync_api import expect

from labeler.models import Assignment
from taxonomy.models import Category
from tests.mining.factories import BugReportFactory
from tests.taxonomy.factories import CategoryFactory, CodebookFactory, DimensionFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG_BODY = "\n\n".join(f"Paragraph {n}: the step time grows after each epoch." for n in range(80))


@pytest.fixture
def dlperf_study(make_study):
    """The built-in `dlperf` codebook: four dimensions, the longest with nine options."""
    reports = [BugReportFactory(body=LONG_BODY) for _ in range(2)]
    return make_study(reports, builtin="dlperf", slug="dlperf", overlap=1)


@pytest.fixture
def three_dimension_study(make_study):
    """A single-choice required dimension, an optional multi-choice one and an optional
    single-choice one; each has a category with sub-categories that may itself be chosen."""
    codebook = CodebookFactory()
    cause = DimensionFactory(codebook=codebook, key="cause", name="Cause", position=0)
    memory = CategoryFactory(dimension=cause, key="memory", name="Memory", parent=None)
    CategoryFactory(dimension=cause, key="leak", name="Leak", parent=memory)
    CategoryFactory(dimension=cause, key="threading", name="Threading", parent=None)
    effect = DimensionFactory(
        codebook=codebook, key="effect", name="Effect", multiple=True, required=False, position=1
    )
    slow = CategoryFactory(dimension=effect, key="slow", name="Slow", parent=None)
    CategoryFactory(dimension=effect, key="startup", name="Startup", parent=slow)
    CategoryFactory(dimension=effect, key="oom", name="Out of memory", parent=None)
    stage = DimensionFactory(
        codebook=codebook, key="stage", name="Stage", required=False, position=2
    )
    training = CategoryFactory(dimension=stage, key="training", name="Training", parent=None)
    CategoryFactory(dimension=stage, key="backward", name="Backward", parent=training)
    CategoryFactory(dimension=stage, key="inference", name="Inference", parent=None)
    reports = [
        BugReportFactory(title=title) for title in ["First report", "Second report", "Third report"]
    ]
    return make_study(
        reports, dimensions=[cause, effect, stage], slug="ctl", codebook=codebook, overlap=1
    )


def wait_for_item(page, title=None):
    if title is not None:
        expect(page.get_by_test_id("report-title")).to_have_text(title)
    expect(page.get_by_test_id("report-title")).to_be_visible()
    expect(page.locator("#label-app")).to_have_attribute("data-state", "label")


def assert_on_screen(page, locator, inside=None):
    """The element's box lies within the window (and within `inside`'s box, when given)."""
    box = locator.bounding_box()
    viewport = page.viewport_size
    assert box is not None
    assert 0 <= box["y"] <= viewport["height"] - box["height"], (box, viewport)
    assert 0 <= box["x"] <= viewport["width"] - box["width"], (box, viewport)
    if inside is not None:
        outer = inside.bounding_box()
        bottom = outer["y"] + outer["height"] - box["height"]
        assert outer["y"] <= box["y"] <= bottom, (box, outer)


def chips(page, dimension):
    return page.get_by_test_id(f"chosen-{dimension}").locator(".chip")


# A function, not an expression: Playwright evaluates an expression with eval, which the
# site's Content-Security-Policy refuses.
AT_THE_END = (
    "() => window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1"
)
BUILTIN = ["dl-performance-root-causes", "dl-bug-reporting", "dlperf"]


@pytest.fixture
def builtin_study(make_study, request):
    """A study over a built-in codebook, all its dimensions, two items with a long report."""
    reports = [BugReportFactory(body=LONG_BODY) for _ in range(2)]
    return make_study(reports, builtin=request.param, slug="builtin", overlap=1)


def choose_the_deepest_first_option(page, dimension):
    """Choose the first option of the focused dimension, then of its sub-categories, down to
    a category without any; returns the chosen option's name."""
    while True:
        options = page.locator(".dim.focused .option")
        first = options.first
        name = first.locator(".option-name").inner_text()
        key = first.locator("kbd").inner_text()
        has_more = first.locator(".more").count() > 0
        for digit in key:
            page.keyboard.press(digit)
        if not has_more:
            return name
        expect(page.locator(".dim.focused .crumbs")).to_contain_text(name)


def assert_all_fits(page):
    """Every dimension's choice, the note and Submit lie in the window and in the controls
    column, and nothing in that column needs scrolling, the focused options included."""
    controls = page.get_by_test_id("controls")
    for dimension in page.locator(".dim").all():
        for chip in dimension.locator(".chosen .chip").all():
            assert_on_screen(page, chip, inside=controls)
    assert_on_screen(page, page.get_by_test_id("note"), inside=controls)
    assert_on_screen(page, page.get_by_test_id("submit"), inside=controls)
    overflowing = page.evaluate(
        """() => [...document.querySelectorAll('#dimensions, .dim.focused ol.options')]
            .filter((box) => box.scrollHeight > box.clientHeight + 1)
            .map((box) => box.className || box.id)"""
    )
    assert overflowing == []


@pytest.mark.parametrize("builtin_study", BUILTIN, indirect=True)
@pytest.mark.parametrize("width,height", [(1400, 900), (1280, 800)])
def test_every_choice_the_note_and_submit_fit_beside_the_report(
    page, sign_in, annotator, builtin_study, width, height
):
    page.set_viewport_size({"width": width, "height": height})
    sign_in(annotator)
    page.goto("/studies/builtin/label/")
    wait_for_item(page)
    dimensions = list(builtin_study.dimensions.order_by("position"))

    for index, dimension in enumerate(dimensions):
        if index:
            page.keyboard.press("Tab")
        expect(page.get_by_test_id(f"dim-{dimension.key}")).to_have_attribute(
            "aria-current", "true"
        )
        name = choose_the_deepest_first_option(page, dimension)
        expect(chips(page, dimension.key).last).to_contain_text(name)
        assert_all_fits(page)
    page.screenshot(
        path=f"test-artifacts/label-fits-{builtin_study.codebook.key}-{width}x{height}.png"
    )

    # Back over every dimension, with the long report read to its end: still all in view.
    page.keyboard.press("End")
    # The window scrolls smoothly: what is measured is where it ends.
    page.wait_for_function(AT_THE_END)
    for dimension in reversed(dimensions[:-1]):
        page.keyboard.press("Shift+Tab")
        expect(page.get_by_test_id(f"dim-{dimension.key}")).to_have_attribute(
            "aria-current", "true"
        )
        assert_all_fits(page)
    for dimension in dimensions:
        expect(chips(page, dimension.key)).to_have_count(1)


@pytest.mark.parametrize("width,height", [(1400, 900), (1280, 720)])
def test_definition_of_the_highlighted_category_stays_on_screen(
    page, sign_in, annotator, dlperf_study, width, height
):
    page.set_viewport_size({"width": width, "height": height})
    sign_in(annotator)
    page.goto("/studies/dlperf/label/")
    wait_for_item(page)
    definition = page.get_by_test_id("definition")
    options = page.locator(".dim.focused ol.options")

    # To the fourth and last dimension, then down to its 7th option.
    for _ in range(3):
        page.keyboard.press("Tab")
    expect(page.get_by_test_id("dim-stage-exposed")).to_have_attribute("aria-current", "true")
    for _ in range(7):
        page.keyboard.press("ArrowDown")
    highlighted = page.locator(".dim.focused .option.highlighted")
    expect(highlighted).to_have_text(re.compile("Hyper parameter tuning"))
    tuning = Category.objects.get(
        dimension__codebook=dlperf_study.codebook,
        dimension__key="stage-exposed",
        key="hyper-parameter-tuning",
    )
    text = definition.locator("p").first
    expect(text).to_have_text(tuning.definition)
    assert_on_screen(page, definition)
    assert_on_screen(page, text, inside=definition)
    assert_on_screen(page, highlighted, inside=options)
    page.screenshot(path=f"test-artifacts/label-definition-{width}x{height}.png")

    # Reading further down the long report moves neither out of sight.
    page.keyboard.press("End")
    # The window scrolls smoothly: what is measured is where it ends.
    page.wait_for_function(AT_THE_END)
    page.keyboard.press("ArrowUp")
    expect(highlighted).to_have_text(re.compile("Evaluation"))
    expect(text).to_have_text(
        Category.objects.get(
            dimension__codebook=dlperf_study.codebook,
            dimension__key="stage-exposed",
            key="evaluation",
        ).definition
    )
    expect(text).to_be_in_viewport(ratio=1)
    assert_on_screen(page, text, inside=definition)
    assert_on_screen(page, highlighted, inside=options)

    # Back up to the first dimension: its options come back into view with the highlight.
    for _ in range(3):
        page.keyboard.press("Shift+Tab")
    page.keyboard.press("ArrowUp")
    expect(page.locator(".dim.focused .option.highlighted")).to_have_text(re.compile("Unknown"))
    assert_on_screen(page, page.locator(".dim.focused .option.highlighted"), inside=options)
    assert_on_screen(page, definition.locator("p").first, inside=definition)


def test_a_choice_is_taken_back_from_the_keyboard(page, sign_in, annotator, three_dimension_study):
    sign_in(annotator)
    page.goto("/studies/ctl/label/")
    wait_for_item(page, "First report")

    # Single choice: Memory (it has sub-categories, and may be chosen itself), then its
    # number again at the top un-chooses it.
    page.keyboard.press("1")
    expect(chips(page, "cause")).to_have_text(["Memory"])
    page.keyboard.press("Backspace")
    page.keyboard.press("1")
    expect(chips(page, "cause")).to_have_count(0)
    expect(page.get_by_test_id("dim-cause").locator(".option")).to_have_count(2)
    page.keyboard.press("2")  # Threading; the focus stays on Cause
    expect(page.get_by_test_id("dim-cause")).to_have_attribute("aria-current", "true")
    page.keyboard.press("Tab")
    expect(page.get_by_test_id("dim-effect")).to_have_attribute("aria-current", "true")

    # Multiple choice: Slow and Out of memory, then Slow's number again takes Slow back.
    page.keyboard.press("1")
    page.keyboard.press("Backspace")
    page.keyboard.press("2")
    expect(chips(page, "effect")).to_have_text(["Slow", "Out of memory"])
    page.keyboard.press("1")
    expect(chips(page, "effect")).to_have_text(["Out of memory"])
    page.keyboard.press("1")
    expect(chips(page, "effect")).to_have_text(["Out of memory", "Slow"])
    page.keyboard.press("Delete")  # clears the whole dimension
    expect(chips(page, "effect")).to_have_count(0)

    # Optional single choice: choose, then clear it with Delete from inside its sub-categories.
    page.keyboard.press("Tab")
    page.keyboard.press("1")
    expect(chips(page, "stage")).to_have_text(["Training"])
    page.keyboard.press("Delete")
    expect(chips(page, "stage")).to_have_count(0)
    expect(page.get_by_test_id("status")).to_have_text("Stage: nothing chosen now.")

    page.keyboard.press("?")
    shortcuts = page.get_by_test_id("shortcuts")
    expect(shortcuts).to_contain_text("the chosen option's number")
    expect(shortcuts).to_contain_text("clear every choice of the focused dimension")
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")
    wait_for_item(page, "Second report")

    submitted = Assignment.objects.get(annotator=annotator, status="submitted")
    assert dict(submitted.annotations.values_list("dimension__key", "values")) == {
        "cause": ["threading"]
    }


def test_tab_after_the_last_dimension_goes_to_the_note_never_back_to_the_first(
    page, sign_in, annotator, three_dimension_study
):
    sign_in(annotator)
    page.goto("/studies/ctl/label/")
    wait_for_item(page, "First report")
    note = page.get_by_test_id("note")

    # Shift+Tab on the first dimension stays there.
    page.keyboard.press("Shift+Tab")
    expect(page.get_by_test_id("dim-cause")).to_have_attribute("aria-current", "true")

    # As docs/annotator.md says: choose, Tab, choose. Tab moves on; choosing never does.
    page.keyboard.press("2")  # Threading
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")  # Effect left empty
    page.keyboard.press("2")  # Inference, in the last dimension: focus stays there
    expect(page.get_by_test_id("dim-stage")).to_have_attribute("aria-current", "true")
    expect(note).to_have_value("")

    # The habitual Tab: into the note, where digits are only text.
    page.keyboard.press("Tab")
    expect(note).to_be_focused()
    page.keyboard.press("1")
    expect(note).to_have_value("1")
    expect(chips(page, "cause")).to_have_text(["Threading"])
    expect(page.get_by_test_id("dim-cause")).not_to_have_attribute("aria-current", "true")

    # Shift+Tab from the note comes back to the last dimension.
    page.keyboard.press("Shift+Tab")
    expect(note).not_to_be_focused()
    expect(page.get_by_test_id("dim-stage")).to_have_attribute("aria-current", "true")

    # Tab, Tab, Tab: the note, Unsure, Submit; Enter on Submit submits.
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(page.get_by_test_id("unsure")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_test_id("submit")).to_be_focused()
    page.keyboard.press("Enter")
    wait_for_item(page, "Second report")
    expect(page.get_by_test_id("submit")).not_to_be_focused()
    expect(page.get_by_test_id("dim-cause")).to_have_attribute("aria-current", "true")

    submitted = Assignment.objects.get(annotator=annotator, status="submitted")
    assert submitted.note == "1"
    assert dict(submitted.annotations.values_list("dimension__key", "values")) == {
        "cause": ["threading"],
        "stage": ["inference"],
    }


def test_history_opens_with_a_key_and_a_skip_message_clears_with_the_next_item(
    page, sign_in, annotator, three_dimension_study
):
    sign_in(annotator)
    page.goto("/studies/ctl/label/")
    wait_for_item(page, "First report")
    item_id = Assignment.objects.get(annotator=annotator, status="held").item_id

    page.keyboard.press("?")
    expect(page.get_by_test_id("shortcuts")).to_contain_text("this item's history")
    page.keyboard.press("Escape")
    with page.context.expect_page() as opened:
        page.keyboard.press("h")
    history = opened.value
    history.wait_for_load_state()
    assert history.url.endswith(f"/studies/ctl/items/{item_id}/history/")
    history.close()
    expect(page.get_by_test_id("history-link")).to_have_attribute(
        "href", f"/studies/ctl/items/{item_id}/history/"
    )

    page.keyboard.press("s")
    page.keyboard.press("3")
    wait_for_item(page, "Second report")
    expect(page.get_by_test_id("status")).to_have_text("")
    assert Assignment.objects.get(annotator=annotator, status="skipped").item_id == item_id
