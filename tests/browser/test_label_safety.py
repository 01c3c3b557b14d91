"""In a real headless Chromium, at 1400x900: on the labelling page nothing is lost or silently
overwritten. An error shows where the eye is and names its cause; a second tab's submit does
not replace the first one's; unsaved choices survive a reload, the Back button and a closed
tab; when nothing is free, the page says whether and when something may come back."""

import datetime as dt

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from labeler.labelling.services import assignment_next, assignment_skip
from labeler.models import AnnotationVersion, Assignment
from taxonomy.models import Category
from tests.browser.label_page import chips, chosen_paths, wait_for_item
from tests.browser.test_label_controls import assert_on_screen
from tests.labeler.factories import LabellingStudyFactory, StudyMemberFactory
from tests.mining.factories import BugReportFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TITLES = ["Memory grows every epoch", "Data loader threads deadlock"]


@pytest.fixture
def revisable_study(make_study):
    # Two annotations an item, so that one annotator's labels stay open to revision (a single
    # complete answer would be final).
    return make_study(
        [BugReportFactory(title=title) for title in TITLES],
        factory=LabellingStudyFactory,
        slug="perf",
        name="Performance bugs",
        overlap=2,
    )


def name_of(study, path):
    return Category.objects.get(dimension__codebook=study.codebook, path=path).name


def test_a_note_too_long_is_counted_and_refused_in_view_naming_the_note(
    wide, sign_in, annotator, revisable_study
):
    page = wide
    sign_in(annotator)
    page.goto("/studies/perf/label/")
    wait_for_item(page, TITLES[0])
    note = page.get_by_test_id("note")
    counter = page.get_by_test_id("note-count")
    expect(counter).to_be_hidden()

    note.fill("x" * 7_000)
    expect(counter).to_be_hidden()
    note.fill("x" * 9_000)
    expect(counter).to_have_text("9,000 / 10,000")
    note.fill("x" * 20_000)
    expect(counter).to_have_text("20,000 / 10,000, 10,000 too many")
    expect(counter).to_have_class("note-count small error")
    page.keyboard.press("Escape")
    page.keyboard.press("1")
    page.keyboard.press("1")  # memory/leak
    page.keyboard.press("Enter")

    message = "note: at most 10,000 characters"
    expect(page.get_by_test_id("status")).to_have_text(f"Not saved: {message}")
    expect(page.get_by_test_id("form-error")).to_have_text(message)
    expect(page.get_by_test_id("note-error")).to_have_text("at most 10,000 characters")
    assert_on_screen(page, page.get_by_test_id("form-error"))
    assert_on_screen(page, page.get_by_test_id("status"))
    page.screenshot(path="test-artifacts/label-note-too-long.png")
    assert not Assignment.objects.filter(status="submitted").exists()


def test_a_second_tab_shows_both_versions_and_keeps_the_one_chosen(
    wide, sign_in, annotator, revisable_study
):
    first = wide
    sign_in(annotator)
    first.goto("/studies/perf/label/")
    wait_for_item(first, TITLES[0])
    second = first.context.new_page()
    second.set_viewport_size({"width": 1400, "height": 900})
    second.goto("/studies/perf/label/")
    wait_for_item(second, TITLES[0])

    first.keyboard.press("1")
    first.keyboard.press("1")  # memory/leak
    first.keyboard.press("Enter")
    wait_for_item(first, TITLES[1])

    second.keyboard.press("2")  # threading
    second.keyboard.press("Tab")
    second.keyboard.press("1")  # impact: speed
    second.keyboard.press("Enter")
    conflict = second.get_by_test_id("conflict")
    expect(conflict).to_be_visible()
    expect(conflict).to_contain_text("version 1 was saved since")
    expect(second.get_by_test_id("conflict-theirs")).to_contain_text(
        name_of(revisable_study, "memory/leak")
    )
    expect(second.get_by_test_id("conflict-mine")).to_contain_text(
        name_of(revisable_study, "threading")
    )
    expect(second.get_by_test_id("conflict-mine").locator("dd.differs")).to_have_count(2)
    # The safe choice is the default: Enter would keep the saved version.
    expect(second.get_by_test_id("keep-theirs")).to_be_focused()
    second.screenshot(path="test-artifacts/label-conflict.png")
    held = Assignment.objects.get(item__report__title=TITLES[0])
    assert held.version == 1

    # Esc goes back to the choices, nothing saved; Enter asks again; Keep mine saves them.
    second.keyboard.press("Escape")
    expect(conflict).to_be_hidden()
    assert chosen_paths(second, "root-cause") == ["threading"]
    second.keyboard.press("Enter")
    expect(conflict).to_be_visible()
    expect(second.get_by_test_id("keep-theirs")).to_be_focused()
    second.keyboard.press("Tab")
    expect(second.get_by_test_id("keep-mine")).to_be_focused()
    second.keyboard.press("Enter")
    expect(second.get_by_test_id("status")).to_contain_text("Revision saved as version 2")
    held.refresh_from_db()
    assert held.version == 2
    assert dict(held.annotations.values_list("dimension__key", "values")) == {
        "root-cause": ["threading"],
        "impact": ["speed"],
    }
    assert AnnotationVersion.objects.filter(assignment=held).count() == 2


def test_keeping_the_saved_version_drops_the_changes_and_moves_on(
    wide, sign_in, annotator, revisable_study
):
    first = wide
    sign_in(annotator)
    first.goto("/studies/perf/label/")
    wait_for_item(first, TITLES[0])
    second = first.context.new_page()
    second.goto("/studies/perf/label/")
    wait_for_item(second, TITLES[0])
    first.keyboard.press("2")
    first.keyboard.press("Enter")
    wait_for_item(first, TITLES[1])

    second.keyboard.press("1")
    second.keyboard.press("1")
    second.keyboard.press("Enter")
    expect(second.get_by_test_id("conflict")).to_be_visible()
    second.keyboard.press("Enter")  # the default: keep the saved version

    wait_for_item(second, TITLES[1])
    expect(second.get_by_test_id("status")).to_have_text(
        f"Kept the saved version 1 of {revisable_study.items.get(position=0).report}; "
        "your changes were dropped."
    )
    kept = Assignment.objects.get(item__report__title=TITLES[0])
    assert kept.version == 1
    assert dict(kept.annotations.values_list("dimension__key", "values")) == {
        "root-cause": ["threading"]
    }


def drafts(page):
    return page.evaluate(
        "Object.keys(localStorage).filter((key) => key.startsWith('bug-labeler.draft'))"
    )


def test_unsaved_choices_survive_a_reload_the_back_button_and_a_closed_tab(
    wide, sign_in, annotator, revisable_study
):
    page = wide
    sign_in(annotator)
    page.goto("/studies/perf/label/")
    wait_for_item(page, TITLES[0])
    page.keyboard.press("1")
    page.keyboard.press("2")  # memory/bloat
    page.keyboard.press("Tab")
    page.keyboard.press("2")  # impact: memory-use
    page.keyboard.press("n")
    page.keyboard.type("Grows by 2 MB per epoch.")
    page.keyboard.press("Escape")
    page.keyboard.press("u")
    assert len(drafts(page)) == 1

    page.reload()
    wait_for_item(page, TITLES[0])
    expect(page.get_by_test_id("note")).to_have_value("Grows by 2 MB per epoch.")
    assert chosen_paths(page, "root-cause") == ["memory/bloat"]
    assert chosen_paths(page, "impact") == ["memory-use"]
    expect(page.get_by_test_id("unsure")).to_be_checked()
    expect(page.get_by_test_id("status")).to_contain_text(
        "Your unsaved choices for this item are back"
    )

    page.get_by_role("link", name="Performance bugs").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Performance bugs")
    page.go_back()
    wait_for_item(page, TITLES[0])
    expect(page.get_by_test_id("note")).to_have_value("Grows by 2 MB per epoch.")
    assert chosen_paths(page, "root-cause") == ["memory/bloat"]

    # A tab closed and another opened: the draft is still there, until it is submitted.
    context = page.context
    page.close()
    page = context.new_page()
    page.goto("/studies/perf/label/")
    wait_for_item(page, TITLES[0])
    expect(page.get_by_test_id("unsure")).to_be_checked()
    assert chosen_paths(page, "impact") == ["memory-use"]
    page.keyboard.press("Enter")
    wait_for_item(page, TITLES[1])
    assert drafts(page) == []
    saved = Assignment.objects.get(status="submitted")
    assert (saved.note, saved.unsure) == ("Grows by 2 MB per epoch.", True)
    assert dict(saved.annotations.values_list("dimension__key", "values")) == {
        "root-cause": ["memory/bloat"],
        "impact": ["memory-use"],
    }


def test_a_revision_left_unsaved_opens_again_after_a_reload(
    wide, sign_in, annotator, revisable_study
):
    page = wide
    sign_in(annotator)
    page.goto("/studies/perf/label/")
    wait_for_item(page, TITLES[0])
    page.keyboard.press("2")
    page.keyboard.press("Enter")
    wait_for_item(page, TITLES[1])
    page.keyboard.press("p")
    wait_for_item(page, TITLES[0])
    page.keyboard.press("Tab")
    page.keyboard.press("1")  # impact: speed, unsaved

    page.reload()

    wait_for_item(page, TITLES[0])
    expect(page.get_by_test_id("revising")).to_be_visible()
    expect(chips(page, "impact")).to_have_count(1)
    assert chosen_paths(page, "impact") == ["speed"]
    page.keyboard.press("Enter")
    wait_for_item(page, TITLES[1])
    revised = Assignment.objects.get(status="submitted")
    assert revised.version == 2
    assert drafts(page) == []


def test_nothing_free_says_how_many_may_come_back_and_when_then_all_done(
    wide, sign_in, annotator, make_user, revisable_study
):
    page = wide
    # One annotation an item: the item the other annotator holds is full.
    revisable_study.items.update(needed=1)
    other = make_user(username="other")
    StudyMemberFactory(study=revisable_study, user=other, role="annotator")
    held = assignment_next(study=revisable_study, user=other)
    Assignment.objects.filter(pk=held.pk).update(held_at=timezone.now() - dt.timedelta(minutes=18))
    sign_in(annotator)
    page.goto("/studies/perf/label/")
    wait_for_item(page, TITLES[1])
    page.keyboard.press("2")
    page.keyboard.press("Enter")

    done = page.get_by_test_id("done")
    expect(page.locator("#label-app")).to_have_attribute("data-state", "waiting")
    expect(page.get_by_test_id("done-title")).to_have_text("Nothing free for you right now")
    expect(page.get_by_test_id("done-text")).to_contain_text(
        "1 item is held by others and may come back to you"
    )
    expect(page.get_by_test_id("done-text")).to_contain_text("look again in 12 minutes")
    expect(page.get_by_test_id("look-again")).to_be_visible()
    page.screenshot(path="test-artifacts/label-waiting.png")

    # The other annotator skips it: looking again hands it over.
    assignment_skip(assignment_id=held.pk, user=other, reason="cannot_judge")
    page.keyboard.press("l")
    wait_for_item(page, TITLES[0])
    page.keyboard.press("2")
    page.keyboard.press("Enter")

    expect(done).to_be_visible()
    expect(page.locator("#label-app")).to_have_attribute("data-state", "done")
    expect(page.get_by_test_id("done-title")).to_have_text(
        "All done: nothing is left for you in this study"
    )
    expect(page.get_by_test_id("look-again")).to_be_hidden()
    page.screenshot(path="test-artifacts/label-all-done.png")


def test_a_long_repository_name_keeps_the_header_on_one_line(
    wide, sign_in, annotator, revisable_study
):
    page = wide
    report = revisable_study.items.get(position=0).report
    long_name = "a-very-long-organisation-name/" + "an-even-longer-repository-name-" * 3
    report.repository.full_name = long_name
    report.repository.save(update_fields=["full_name"])
    sign_in(annotator)
    page.goto("/studies/perf/label/")
    wait_for_item(page, TITLES[0])

    title = page.get_by_test_id("label-title")
    expect(page.get_by_test_id("item-ref")).to_have_attribute(
        "title", f"{long_name}#{report.number}"
    )
    line = page.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('.label-title')).lineHeight)"
    )
    assert title.bounding_box()["height"] < 1.5 * line
    assert page.evaluate("document.documentElement.scrollWidth") <= 1400
    page.screenshot(path="test-artifacts/label-long-repository.png")
