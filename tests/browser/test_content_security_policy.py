"""In a real headless Chromium, every page runs under the site's Content-Security-Policy (sent
in every mode, the tests' too) without a violation: no inline script, style attribute, style
element or inline handler that the policy blocks, on the pages as a lead and an annotator
see them. Pages with charts allow inline styles, and only those pages, and only styles."""

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from labeler.common.roles import Role
from labeler.imports.label_import_jobs import label_import_job_create
from labeler.models import StudyItem
from tests.config.test_production_settings import POLICY
from tests.labeler.codebook_revisions import revise_v2
from tests.labeler.factories import (
    LabellingStudyFactory,
    OpenStudyFactory,
    StudyItemFactory,
    StudyMemberFactory,
)
from tests.labeler.final_labels import decided_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Twenty pages one after another; at load 8 one took over 10 s. A chart page's load event waits
# for Chromium to parse plotly.js (3.5 MB): 0.6 s to 2 s idle, and it is the load event that a
# navigation waits for, so the navigation gets the same budget as the wait for an idle network.
IDLE_WAIT_MS = 30_000
CHART_PAGES = ("/agreement/", "/analysis/", "/reports/compare/")


@pytest.fixture
def strict(page):
    """The page, its policy violations collected and each page's policy checked."""
    violations: list[str] = []

    def check_policy(response):
        if response.request.resource_type != "document":
            return
        policy = set(response.headers.get("content-security-policy", "").split("; "))
        expected = set(POLICY)
        charts = urlsplit(response.url).path in page.chart_urls  # exactly those pages
        if charts or any(part in response.url for part in CHART_PAGES):
            expected = expected - {"style-src 'self'"} | {"style-src 'self' 'unsafe-inline'"}
        if policy != expected:
            violations.append(f"{response.url}: policy {sorted(policy)}")

    page.on("response", check_policy)
    page.on(
        "console",
        lambda message: (
            violations.append(f"{page.url}: {message.text}")
            if "Content Security Policy" in message.text
            else None
        ),
    )
    page.on("pageerror", lambda error: violations.append(f"{page.url}: {error}"))
    page.set_viewport_size({"width": 1400, "height": 900})
    page.violations = violations
    page.chart_urls = []  # more pages (paths) a test knows to draw charts
    return page


def visit(page, urls):
    for url in urls:
        response = page.goto(url, timeout=IDLE_WAIT_MS)
        assert response.status == 200, url
        try:  # everything the page fetches and runs on load has run: its violations are in
            page.wait_for_load_state("networkidle", timeout=IDLE_WAIT_MS)
        except PlaywrightTimeoutError as error:
            raise AssertionError(
                f"{url}: its network was not idle within {IDLE_WAIT_MS} ms"
            ) from error


def test_the_lead_pages_run_under_the_policy(
    strict, sign_in, annotator, lead, researcher, make_user
):
    study = decided_study(
        annotator=annotator, lead=lead, researcher=researcher, make_user=make_user
    )
    item = StudyItem.objects.filter(study=study).order_by("position").first()
    codebook = study.codebook
    revision = revise_v2(codebook)
    # Queued with no worker: its page keeps polling the API while it is looked at.
    job = label_import_job_create(
        study=study, data=b"item,annotator,dimension,value\n", file_name="big.csv", rows=0
    )
    sign_in(lead)
    base = f"/studies/{study.slug}"

    visit(
        strict,
        [
            "/",
            "/studies/",
            "/studies/new/",
            f"{base}/",
            f"{base}/items/",
            f"{base}/members/",
            f"{base}/import/",
            f"{base}/import/{job.pk}/",
            f"{base}/export/",
            f"{base}/agreement/",
            f"{base}/adjudicate/",
            f"{base}/adjudicate/{item.pk}/",
            f"{base}/analysis/",
            f"{base}/items/{item.pk}/history/",
            f"{base}/items/{item.pk}/report/",
            f"{base}/board/",
            f"{base}/codebook/{revision.version}/",
            "/reports/",
            f"/reports/{item.report_id}/",
            "/reports/compare/?a=has_fix%3Dtrue&b=has_fix%3Dfalse",
            "/imports/",
            f"/codebooks/{codebook.key}/{codebook.version}/",
            f"/codebooks/{codebook.key}/diff/{codebook.version}/{revision.version}/",
            "/codebooks/",
            "/docs/api/",
        ],
    )
    # The site's icon, which every page links: served by the app, no /favicon.ico 404.
    visit(strict, ["/"])
    icon = strict.locator("link[rel=icon]").get_attribute("href")
    answer = strict.request.get(icon)
    assert answer.status == 200 and answer.headers["content-type"].startswith("image/svg+xml")
    # A download, not a page to open: its answer carries the policy all the same.
    download = strict.request.get(f"/codebooks/{codebook.key}/{codebook.version}/yaml/")
    assert download.status == 200
    policy = set(download.headers["content-security-policy"].split("; "))
    assert policy == set(POLICY)

    assert not strict.violations, "\n".join(strict.violations)


def test_the_labelling_page_runs_under_the_policy(strict, sign_in, annotator):
    study = LabellingStudyFactory(slug="perf", overlap=2)
    StudyItemFactory(study=study, position=0)
    StudyMemberFactory(study=study, user=annotator, role="annotator")
    sign_in(annotator)

    visit(strict, ["/", f"/studies/{study.slug}/", f"/studies/{study.slug}/label/"])
    strict.get_by_test_id("submit").wait_for()

    assert not strict.violations, "\n".join(strict.violations)


def test_the_pages_of_an_open_coding_round_run_under_the_policy(
    strict, sign_in, annotator, lead, make_user
):
    from labeler.labelling.services import assignment_next, assignment_submit

    second_annotator = make_user(Role.ANNOTATOR, username="ann2")
    study = OpenStudyFactory(slug="open", name="Open round", overlap=2)
    for position in range(3):
        StudyItemFactory(study=study, position=position)
    for user, role in ((annotator, "annotator"), (second_annotator, "annotator"), (lead, "lead")):
        StudyMemberFactory(study=study, user=user, role=role)
    for user, codes in ((annotator, ["leak", "cache"]), (second_annotator, ["leak"])):
        held = assignment_next(study=study, user=user)
        assignment_submit(
            assignment_id=held.pk,
            user=user,
            labels={},
            codes={"root-cause": codes, "symptom": ["slow"]},
            note="",
        )
    strict.chart_urls.append("/studies/open/")  # the saturation chart
    sign_in(lead)

    visit(
        strict,
        [
            "/studies/open/",
            "/studies/open/board/",
            "/studies/open/board/carry-over/",
            "/studies/open/analysis/",
        ],
    )
    strict.get_by_test_id("analysis-open-round").wait_for()
    strict.context.clear_cookies()
    strict.chart_urls.clear()  # an annotator's study page has no saturation chart
    sign_in(annotator)
    visit(strict, ["/studies/open/", "/studies/open/label/"])
    strict.get_by_test_id("submit").wait_for()

    assert not strict.violations, "\n".join(strict.violations)


def test_a_violation_is_seen(strict, sign_in, lead):
    """The check can fail: a style element added to a page without charts is blocked and
    reported."""
    sign_in(lead)
    strict.goto("/")
    with strict.expect_console_message(lambda message: "Content Security Policy" in message.text):
        strict.evaluate(
            "() => { const s = document.createElement('style');"
            " s.textContent = 'body { color: red }'; document.head.appendChild(s); }"
        )

    assert any("style" in violation for violation in strict.violations)
