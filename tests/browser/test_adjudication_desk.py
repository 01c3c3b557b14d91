"""The adjudication desk in a real headless Chromium at 1400x900, by keyboard only: a lead
decides two disagreements one after the other without a page load (the address names each
item, Back returns to them), and the desk says when the queue is empty; a decision on labels
an annotator revised meanwhile is refused, the item shown again with what changed."""

import re

import pytest
from playwright.sync_api import expect

from labeler.common.roles import Role
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import Assignment, FinalLabel, FinalLabelEvent, StudyItem
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory, StudyMemberFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LEAK = {"root-cause": "memory/leak", "impact": ["speed"]}
THREADS = {"root-cause": "threading", "impact": ["speed"]}
BLOAT = {"root-cause": "memory/bloat", "impact": ["speed"]}


@pytest.fixture
def desk(offline, annotator, ann2_annotator, lead):
    """Study "perf": two items its annotators disagree on the root cause of."""
    offline.set_viewport_size({"width": 1400, "height": 900})
    study = LabellingStudyFactory(slug="perf", overlap=2)
    items = [StudyItemFactory(study=study, position=position) for position in range(2)]
    for user, role in ((annotator, "annotator"), (ann2_annotator, "annotator"), (lead, "lead")):
        StudyMemberFactory(study=study, user=user, role=role)
    for user, answers in ((annotator, [LEAK, LEAK]), (ann2_annotator, [BLOAT, THREADS])):
        for labels in answers:
            held = assignment_next(study=study, user=user)
            assignment_submit(assignment_id=held.pk, user=user, labels=labels)
    return offline, items


@pytest.fixture
def ann2_annotator(make_user):
    return make_user(Role.ANNOTATOR, username="ann2")


def decide_by_keys(page, answer: str, rationale: str, reason: str) -> None:
    page.keyboard.press(answer)
    page.keyboard.press("r")
    page.keyboard.type(rationale)
    page.keyboard.press("Escape")
    page.keyboard.press(reason)


def test_a_lead_decides_two_disagreements_by_keyboard_without_a_page_load(desk, sign_in, lead):
    page, items = desk
    first, second = items
    sign_in(lead)
    page.goto("/studies/perf/adjudicate/")
    page.keyboard.press("Enter")  # the queue opens its first item: the desk's one page load
    expect(page).to_have_url(re.compile(rf"/studies/perf/adjudicate/{first.pk}/$"))
    expect(page.get_by_test_id("desk")).to_have_attribute("data-item", str(first.pk))
    expect(page.get_by_test_id("report-title")).to_have_text(first.report.title)
    expect(page.get_by_test_id("waiting")).to_have_text("2 waiting for a lead")
    expect(page.get_by_test_id("desk-keys")).to_contain_text("n pass over to the next")
    # Nothing on this page survives a page load: it must still be there at the end.
    page.evaluate("window.deskPageLoads = 1")

    decide_by_keys(page, "2", "Both are leaks; the cache is never freed", "c")
    root = page.get_by_test_id("dimension-root-cause")
    expect(root.get_by_test_id("answer").nth(1)).to_have_class(re.compile(r"\bpicked\b"))
    expect(root.locator('input[value="codebook_ambiguity"]')).to_be_checked()
    page.screenshot(path="test-artifacts/adjudication-desk-first.png")
    page.keyboard.press("Enter")

    expect(page).to_have_url(re.compile(rf"/studies/perf/adjudicate/{second.pk}/$"))
    expect(page.get_by_test_id("desk")).to_have_attribute("data-item", str(second.pk))
    expect(page.get_by_test_id("report-title")).to_have_text(second.report.title)
    expect(page.get_by_test_id("item-ref")).to_have_text(str(second.report))
    expect(page.get_by_test_id("status")).to_contain_text(f"Decided {first.report}: final.")
    expect(page.get_by_test_id("waiting")).to_have_text("1 waiting for a lead")
    expect(page.get_by_test_id("rationale-root-cause")).to_have_value("")
    page.screenshot(path="test-artifacts/adjudication-desk-second.png")

    decide_by_keys(page, "1", "The lock is taken twice", "s")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("desk-empty")).to_be_visible()
    expect(page.get_by_test_id("desk-empty")).to_contain_text("No disagreement left to decide")
    expect(page).to_have_url(re.compile(r"/studies/perf/adjudicate/$"))
    assert page.evaluate("window.deskPageLoads") == 1
    page.screenshot(path="test-artifacts/adjudication-desk-empty.png")

    finals = {
        label.item_id: (label.values, label.reason, label.rationale, label.decided_by_id)
        for label in FinalLabel.objects.filter(dimension__key="root-cause", method="adjudicated")
    }
    assert finals == {
        first.pk: (
            ["memory/leak"],
            "codebook_ambiguity",
            "Both are leaks; the cache is never freed",
            lead.pk,
        ),
        second.pk: (["memory/leak"], "annotator_slip", "The lock is taken twice", lead.pk),
    }
    assert StudyItem.objects.filter(adjudicated_at__isnull=False).count() == 2
    assert FinalLabelEvent.objects.filter(user=lead, kind="decided").count() == 2

    # Back returns to the items decided, as the address names them, still without a load.
    page.go_back()
    expect(page).to_have_url(re.compile(rf"/studies/perf/adjudicate/{second.pk}/$"))
    expect(page.get_by_test_id("desk")).to_have_attribute("data-item", str(second.pk))
    expect(page.get_by_test_id("final-root-cause")).to_contain_text("memory/leak")
    expect(page.get_by_test_id("reopen-box")).to_be_visible()
    page.go_back()
    expect(page.get_by_test_id("desk")).to_have_attribute("data-item", str(first.pk))
    expect(page.get_by_test_id("decision-history")).to_contain_text("codebook ambiguity")
    assert page.evaluate("window.deskPageLoads") == 1
    page.screenshot(path="test-artifacts/adjudication-desk-back.png")


def test_a_decision_on_labels_revised_meanwhile_is_refused_with_what_changed(
    desk, sign_in, lead, ann2_annotator
):
    page, items = desk
    first = items[0]
    sign_in(lead)
    page.goto(f"/studies/perf/adjudicate/{first.pk}/")
    expect(page.get_by_test_id("desk")).to_have_attribute("data-item", str(first.pk))
    decide_by_keys(page, "1", "A leak", "u")

    revised = Assignment.objects.get(item=first, annotator=ann2_annotator)
    assignment_submit(
        assignment_id=revised.pk, user=ann2_annotator, labels=THREADS, version=revised.version
    )
    page.keyboard.press("Enter")

    status = page.get_by_test_id("status")
    expect(status).to_contain_text("Not decided: the labels of item")
    expect(status).to_contain_text("A2 revised root-cause (version 1, now 2)")
    root = page.get_by_test_id("dimension-root-cause")
    expect(root).to_have_class(re.compile(r"\bchanged\b"))
    expect(root.get_by_test_id("answer").nth(1)).to_contain_text("threading")
    expect(page.get_by_test_id("desk")).to_have_attribute("data-item", str(first.pk))
    page.screenshot(path="test-artifacts/adjudication-desk-conflict.png")
    assert not FinalLabel.objects.filter(method="adjudicated").exists()

    # Read again: the lead's rationale and reason are kept, the answer is picked again.
    expect(page.get_by_test_id("rationale-root-cause")).to_have_value("A leak")
    expect(root.locator(".picked")).to_have_count(0)
    page.keyboard.press("Enter")
    expect(status).to_contain_text("Pick an answer first")
    page.keyboard.press("1")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("desk")).to_have_attribute("data-item", str(items[1].pk))
    assert FinalLabel.objects.get(item=first, dimension__key="root-cause").method == "adjudicated"


def test_passing_over_an_item_keeps_it_in_the_queue(desk, sign_in, lead):
    page, (first, second) = desk
    sign_in(lead)
    page.goto(f"/studies/perf/adjudicate/{first.pk}/")
    expect(page.get_by_test_id("waiting")).to_have_text("2 waiting for a lead")

    page.keyboard.press("n")
    expect(page).to_have_url(re.compile(rf"/studies/perf/adjudicate/{second.pk}/$"))
    expect(page.get_by_test_id("report-title")).to_have_text(second.report.title)
    expect(page.get_by_test_id("status")).to_contain_text(f"Passed over {first.report}")
    expect(page.get_by_test_id("waiting")).to_have_text("2 waiting for a lead")
    # The queue comes round again to the item passed over.
    page.keyboard.press("n")
    expect(page.get_by_test_id("desk")).to_have_attribute("data-item", str(first.pk))
    assert not FinalLabel.objects.filter(method="adjudicated").exists()
