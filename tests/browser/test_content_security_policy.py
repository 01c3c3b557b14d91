"""In a real headless Chromium, every page runs under the site's Content-Security-Policy (sent
in every mode, the tests' too) without a violation: no inline script, style attribute, style
element or inline handler that the policy blocks, on the pages as a lead and an annotator
see them. Pages with charts allow inline styles, and only those pages, and only styles."""

import pytest

from labeler.models import StudyItem
from tests.config.test_production_settings import POLICY
from tests.labeler.codebook_revisions import revise_v2
from tests.labeler.factories import LabellingStudyFactory, StudyItemFactory, StudyMemberFactory
from tests.labeler.final_labels import decided_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

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
        if any(part in response.url for part in CHART_PAGES):
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
    return page


def visit(page, urls):
    for url in urls:
        response = page.goto(url)
        assert response.status == 200, url
        page.wait_for_load_state("networkidle")


def test_the_lead_pages_run_under_the_policy(
    strict, sign_in, annotator, lead, researcher, make_user
):
    study = decided_study(
        annotator=annotator, lead=lead, researcher=researcher, make_user=make_user
    )
    item = StudyItem.objects.filter(study=study).order_by("position").first()
    revision = revise_v2(study.codebook)
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
            f"/codebooks/{study.codebook.key}/{study.codebook.version}/",
            "/codebooks/",
            "/docs/api/",
        ],
    )

    assert not strict.violations, "\n".join(strict.violations)


def test_the_labelling_page_runs_under_the_policy(strict, sign_in, annotator):
    study = LabellingStudyFactory(slug="perf", overlap=2)
    StudyItemFactory(study=study, position=0)
    StudyMemberFactory(study=study, user=annotator, role="annotator")
    sign_in(annotator)

    visit(strict, ["/", f"/studies/{study.slug}/", f"/studies/{study.slug}/label/"])
    strict.get_by_test_id("submit").wait_for()

    assert not strict.violations, "\n".join(strict.violations)


def test_a_violation_is_seen(strict, sign_in, lead):
    """The check can fail: a style element added to a page without charts is blocked and
    reported."""
    sign_in(lead)
    strict.goto("/")
    strict.evaluate(
        "() => { const s = document.createElement('style');"
        " s.textContent = 'body { color: red }'; document.head.appendChild(s); }"
    )
    strict.wait_for_timeout(200)

    assert any("style" in violation for violation in strict.violations)
