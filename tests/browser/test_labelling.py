"""In a real headless Chromium: label a study with the keyboard only, blind to each other."""

import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import Annotation, AnnotationVersion, Assignment
from mining.models import BugReport, Commit, FixLink, PullRequest
from tests.browser.label_page import wait_for_item
from tests.labeler.factories import LabellingStudyFactory, StudyMemberFactory
from tests.labeler.ui_factories import FIX_FILES, HOSTILE_BODY, report_with_fix
from tests.mining.factories import BugReportFactory, CommentFactory, FixLinkFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FIRST_NOTE = "FIRST-ANNOTATOR-PRIVATE-NOTE"


@pytest.fixture
def labelling_study(make_study):
    reports = [
        BugReportFactory(title="Memory grows every epoch", body=HOSTILE_BODY),
        BugReportFactory(title="Data loader threads deadlock"),
        BugReportFactory(title="Slow first iteration"),
    ]
    report_with_fix(reports[0])
    CommentFactory(report=reports[0], body="Same here with `torch==2.1`.")
    return make_study(
        reports, factory=LabellingStudyFactory, slug="perf", name="Performance bugs", overlap=2
    )


def test_annotator_labels_three_items_with_the_keyboard_only(
    wide, sign_in, annotator, labelling_study
):
    page = wide
    sign_in(annotator)
    page.goto("/studies/perf/label/")

    # Item 1: the report as the annotator needs it, rendered and sanitized.
    wait_for_item(page, "Memory grows every epoch")
    report = page.get_by_test_id("report")
    expect(report.locator(".report-body pre code")).to_contain_text("model.step()")
    expect(report.locator(".report-body")).to_contain_text("<script>window.hacked = 1</script>")
    assert page.evaluate("window.hacked") is None
    expect(report.locator(".fix")).to_have_count(2)
    expect(report.locator("pre.diff .line.add")).to_have_text(["+    return fast(x)\n"])
    expect(report.locator("pre.diff .line.del")).to_have_text(["-    return slow(x)\n"])
    expect(report.locator(".fix a").first).to_have_attribute("rel", "noopener noreferrer")
    expect(report.locator(".comment")).to_contain_text("torch==2.1")
    page.screenshot(path="test-artifacts/label-report-full.png", full_page=True)

    page.keyboard.press("?")
    expect(page.get_by_test_id("shortcuts")).to_be_visible()
    page.screenshot(path="test-artifacts/label-shortcuts.png")
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("shortcuts")).to_be_hidden()

    page.keyboard.press("1")  # root cause: memory, which reveals its sub-categories
    root_cause = page.get_by_test_id("dim-root-cause")
    expect(root_cause.locator(".option .option-name")).to_have_count(2)
    expect(page.get_by_test_id("definition")).to_contain_text("What this category means.")
    page.keyboard.press("Backspace")  # back up, then down again
    expect(root_cause.locator(".option")).to_have_count(2)
    page.keyboard.press("1")
    page.keyboard.press("2")  # memory/bloat; the focus stays, Tab moves on to impact
    expect(page.get_by_test_id("chosen-root-cause").locator(".chip")).to_have_count(1)
    expect(root_cause).to_have_attribute("aria-current", "true")
    page.keyboard.press("Tab")
    expect(page.get_by_test_id("dim-impact")).to_have_attribute("aria-current", "true")
    page.keyboard.press("1")  # impact: speed
    page.keyboard.press("2")  # and memory-use (several allowed)
    expect(page.get_by_test_id("timer")).not_to_have_text("0:00")  # a second spent, at least
    page.screenshot(path="test-artifacts/label-page.png", full_page=False)
    page.keyboard.press("Enter")

    # Item 2: a required dimension left empty is refused next to it, nothing stored.
    wait_for_item(page, "Data loader threads deadlock")
    # Your share: one submitted out of three (the one held and the third still to take).
    expect(page.get_by_test_id("progress-mine")).to_have_text("1 / 3")
    page.screenshot(path="test-artifacts/label-progress-mine.png")
    page.keyboard.press("Enter")
    expect(root_cause.locator(".error")).to_have_text("this dimension is required")
    expect(page.get_by_test_id("status")).to_have_text(
        "Not saved: Root cause: this dimension is required"
    )
    page.keyboard.press("2")  # threading
    page.keyboard.press("u")
    page.keyboard.press("n")
    page.keyboard.type("Two workers wait on each other.")
    page.keyboard.press("Control+Enter")

    # Item 3: only the required dimension.
    wait_for_item(page, "Slow first iteration")
    page.keyboard.press("1")
    page.keyboard.press("1")  # memory/leak
    page.keyboard.press("Enter")

    expect(page.get_by_test_id("done")).to_be_visible()
    expect(page.get_by_test_id("progress-mine")).to_have_text("3 / 3")

    # Previous: reopen the last submission and revise it.
    page.keyboard.press("p")
    wait_for_item(page, "Slow first iteration")
    expect(page.get_by_test_id("revising")).to_be_visible()
    chip = page.get_by_test_id("chosen-root-cause").locator(".chip")
    expect(chip).to_have_attribute("data-path", "memory/leak")
    page.keyboard.press("Tab")
    page.keyboard.press("1")  # add impact: speed
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("done")).to_be_visible()

    assignments = {
        a.item.report.title: a
        for a in Assignment.objects.filter(annotator=annotator).select_related("item__report")
    }
    assert {a.status for a in assignments.values()} == {"submitted"}
    labels = {
        title: dict(a.annotations.values_list("dimension__key", "values"))
        for title, a in assignments.items()
    }
    assert labels == {
        "Memory grows every epoch": {
            "root-cause": ["memory/bloat"],
            "impact": ["speed", "memory-use"],
        },
        "Data loader threads deadlock": {"root-cause": ["threading"]},
        "Slow first iteration": {"root-cause": ["memory/leak"], "impact": ["speed"]},
    }
    deadlock = assignments["Data loader threads deadlock"]
    assert deadlock.unsure is True and deadlock.note == "Two workers wait on each other."
    assert assignments["Memory grows every epoch"].seconds >= 2
    assert all(a.seconds > 0 for a in assignments.values())
    revised = assignments["Slow first iteration"]
    assert revised.version == 2
    assert list(
        AnnotationVersion.objects.filter(assignment=revised).values_list("number", "changes")
    ) == [(1, {}), (2, {"impact": {"from": [], "to": ["speed"]}})]


def test_second_annotator_gets_the_same_items_and_never_sees_the_first_ones_labels(
    page, sign_in, annotator, add_second_annotator, labelling_study
):
    second = add_second_annotator(labelling_study)
    for _ in range(3):
        held = assignment_next(study=labelling_study, user=annotator)
        assignment_submit(
            assignment_id=held.pk,
            user=annotator,
            labels={"root-cause": "threading", "impact": ["memory-use"]},
            note=FIRST_NOTE,
            seconds=30,
        )
    sign_in(second)
    responses = []
    page.on("response", lambda response: responses.append(response))
    page.goto("/studies/perf/label/")

    titles = []
    for title in [
        "Memory grows every epoch",
        "Data loader threads deadlock",
        "Slow first iteration",
    ]:
        wait_for_item(page, title)
        titles.append(title)
        expect(page.get_by_test_id("chosen-root-cause")).to_have_text("nothing chosen yet")
        expect(page.get_by_test_id("chosen-impact")).to_have_text("nothing chosen yet")
        expect(page.get_by_test_id("progress-study")).to_have_text(f"{len(titles) - 1} / 3")
        page.keyboard.press("1")
        page.keyboard.press("1")
        page.keyboard.press("Enter")
    expect(page.get_by_test_id("done")).to_be_visible()
    expect(page.get_by_test_id("progress-study")).to_have_text("3 / 3")
    page.screenshot(path="test-artifacts/label-done.png")

    first_items = set(
        Assignment.objects.filter(annotator=annotator).values_list("item_id", flat=True)
    )
    second_items = set(
        Assignment.objects.filter(annotator=second, status="submitted").values_list(
            "item_id", flat=True
        )
    )
    assert first_items == second_items and len(second_items) == 3
    values = Annotation.objects.filter(annotator=second).values_list("values", flat=True)
    assert list(values) == [["memory/leak"]] * 3

    # Nothing the page loaded, and nothing the API answers this annotator, carries the first
    # annotator's labels or note.
    item_id = next(iter(first_items))
    extra = [
        page.request.get("/api/annotations/?study=perf"),
        page.request.get(f"/api/items/{item_id}/history/"),
        page.request.get("/api/assignments/?study=perf"),
    ]
    bodies = [
        r.text()
        for r in responses
        if r.request.resource_type in {"fetch", "document"} and r.status not in {204, 302}
    ]
    bodies += [r.text() for r in extra]
    assert len(bodies) > 10
    assert not [body for body in bodies if FIRST_NOTE in body]
    assert not [body for body in bodies if '"annotator":"ann"' in body.replace(" ", "")]
    annotations = extra[0].json()["results"]
    assert {a["annotator"] for a in annotations} == {"ann2"}
    page.goto(f"/studies/perf/items/{item_id}/history/")
    expect(page.get_by_test_id("version")).to_have_count(1)
    expect(page.get_by_test_id("history")).not_to_contain_text("threading")


def test_skip_with_a_reason_from_the_keyboard_and_the_lead_sees_why(
    page, sign_in, annotator, lead, labelling_study
):
    StudyMemberFactory(study=labelling_study, user=lead, role="lead")
    sign_in(annotator)
    page.goto("/studies/perf/label/")
    wait_for_item(page, "Memory grows every epoch")

    page.keyboard.press("n")
    page.keyboard.type("No profile attached.")
    page.keyboard.press("Escape")
    page.keyboard.press("s")
    expect(page.get_by_test_id("skip-panel")).to_be_visible()
    expect(page.get_by_test_id("skip-panel").locator("li")).to_have_count(3)
    page.screenshot(path="test-artifacts/label-skip.png")
    page.keyboard.press("3")

    wait_for_item(page, "Data loader threads deadlock")
    expect(page.get_by_test_id("note")).to_have_value("")
    page.keyboard.press("2")
    page.keyboard.press("Enter")
    wait_for_item(page, "Slow first iteration")

    skipped = Assignment.objects.get(annotator=annotator, status="skipped")
    assert skipped.item.report.title == "Memory grows every epoch"
    assert (skipped.skip_reason, skipped.note) == ("cannot_judge", "No profile attached.")

    page.context.clear_cookies()
    sign_in(lead)
    page.goto("/studies/perf/")
    expect(page.get_by_test_id("skipped")).to_contain_text("cannot judge")
    expect(page.get_by_test_id("skipped")).to_contain_text("No profile attached.")
    expect(page.get_by_test_id("per-annotator")).to_contain_text("ann")
    page.screenshot(path="test-artifacts/study-detail-lead.png", full_page=True)
    submitted = Assignment.objects.get(annotator=annotator, status="submitted")
    page.goto(f"/studies/perf/items/{submitted.item_id}/history/")
    expect(page.get_by_test_id("version")).to_have_count(1)
    expect(page.get_by_test_id("history")).to_contain_text("threading")
    page.screenshot(path="test-artifacts/item-history.png", full_page=True)


def test_a_pull_request_never_imported_claims_no_state_and_links_to_github(
    page, sign_in, annotator, labelling_study
):
    report = BugReport.objects.get(title="Memory grows every epoch")
    report.repository.html_url = ""
    report.repository.save(update_fields=["html_url"])
    # A link named PR #2049, which no import fetched: only its number is known.
    bare = PullRequest.objects.create(repository=report.repository, number=2049)
    FixLinkFactory(
        report=report,
        commit=None,
        pull_request=bare,
        target="pr:2049",
        evidence=FixLink.Evidence.CLOSED_BY_PULL_REQUEST,
    )
    sign_in(annotator)
    page.goto("/studies/perf/label/")
    wait_for_item(page, "Memory grows every epoch")

    fix = page.get_by_test_id("fixes").locator(".fix", has_text="PR #2049")
    expect(fix.locator(".fix-head")).to_have_text(re.compile(r"^PR #2049 \(not imported\) "))
    expect(fix.get_by_role("link", name="PR #2049")).to_have_attribute(
        "href", f"https://github.com/{report.repository.full_name}/pull/2049"
    )
    expect(fix.locator(".badge", has_text="open")).to_have_count(0)
    imported = page.get_by_test_id("fixes").locator(".fix", has_text="Free the cached tensors")
    expect(imported.locator(".badge").first).to_have_text("merged")
    fix.scroll_into_view_if_needed()
    page.screenshot(path="test-artifacts/label-fix-not-imported.png")


def test_the_report_comes_with_the_item_and_is_read_again_only_to_revise(
    page, sign_in, annotator, labelling_study
):
    reads = []
    page.on(
        "request",
        lambda request: reads.append(request.url) if "/report/" in request.url else None,
    )
    sign_in(annotator)
    page.goto("/studies/perf/label/")

    wait_for_item(page, "Memory grows every epoch")
    expect(page.get_by_test_id("report").locator(".fix")).to_have_count(2)
    page.keyboard.press("1")
    page.keyboard.press("1")  # memory/leak
    page.keyboard.press("Enter")
    wait_for_item(page, "Data loader threads deadlock")
    assert reads == []  # `next` brought both reports

    page.keyboard.press("p")  # revise the first: its report is read from the item report
    wait_for_item(page, "Memory grows every epoch")
    expect(page.get_by_test_id("revising")).to_be_visible()
    assert [url.split("/studies/perf")[1] for url in reads] == [
        f"/items/{labelling_study.items.get(report__title='Memory grows every epoch').pk}/report/"
    ]


def test_a_fix_commit_without_its_patches_asks_for_them_through_the_item_report(
    page, sign_in, annotator, labelling_study
):
    report = BugReport.objects.get(title="Memory grows every epoch")
    commit = report.fix_links.exclude(commit=None).get().commit
    # Asked for already (so no fetch starts here), not in yet.
    Commit.objects.filter(pk=commit.pk).update(
        files=[], files_fetched=False, files_requested_at=timezone.now()
    )
    item = labelling_study.items.get(report=report)
    sign_in(annotator)

    with page.expect_response(lambda r: r.url.endswith(f"/items/{item.pk}/report/")) as asked:
        page.goto("/studies/perf/label/")
        wait_for_item(page, "Memory grows every epoch")
    assert asked.value.json()["patches"] == {"pending": True, "error": ""}
    expect(page.get_by_test_id("report").locator(".fix")).to_have_count(2)
    expect(page.get_by_test_id("status")).to_have_text("")  # the item is in use meanwhile
    expect(page.get_by_test_id("report").locator("pre.diff")).to_have_count(0)

    # Once they are in, the held item comes back with them, and nothing is read again.
    Commit.objects.filter(pk=commit.pk).update(files=FIX_FILES, files_fetched=True)
    reads = []
    page.on("request", lambda r: reads.append(r.url) if "/report/" in r.url else None)
    page.reload()
    wait_for_item(page, "Memory grows every epoch")
    expect(page.get_by_test_id("report").locator("pre.diff .line.add")).to_have_count(1)
    assert reads == []
