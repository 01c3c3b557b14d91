import pytest

from mining.models import ImportJob
from tests.mining import factories

pytestmark = pytest.mark.django_db


def test_report_pages_render_sanitised_markdown_and_fix(client, annotator):
    report = factories.BugReportFactory(
        body="**bold** <script>alert(1)</script>", candidate_rules={"performance": ["keyword:slow"]}
    )
    factories.FixLinkFactory(report=report, reverted=True)
    client.force_login(annotator)
    listing = client.get("/reports/?q=slower")
    assert listing.status_code == 200 and str(report.number) in listing.content.decode()
    page = client.get(f"/reports/{report.pk}/").content.decode()
    assert "<strong>bold</strong>" in page and "<script>alert" not in page
    assert "Closed by commit (timeline)" in page and "reverted" in page
    assert "keyword:slow" in page
    assert client.get("/reports/999999/").status_code == 404


def test_import_page_is_for_managers_only(client, annotator, lead):
    factories.ImportJobFactory(error_reason="octo/x: Not found on GitHub (404)", status="failed")
    client.force_login(annotator)
    assert client.get("/imports/").status_code == 403
    response = client.post("/imports/start/", {"repository": "o/r"}, follow=True)
    assert "may not manage imports" in response.content.decode()
    assert not ImportJob.objects.filter(repository__full_name="o/r").exists()
    client.force_login(lead)
    page = client.get("/imports/").content.decode()
    assert "Start import" in page and "Not found on GitHub" in page


def test_candidate_rules_page_validates_saves_and_reclassifies(client, annotator, lead):
    report = factories.BugReportFactory(title="Conv kernel hangs", body="", labels=[])
    url = f"/imports/rules/{report.repository.pk}/"
    factories.ImportJobFactory(repository=report.repository)
    client.force_login(annotator)
    assert client.get(url).status_code == 403
    client.force_login(lead)
    assert url in client.get("/imports/").content.decode()
    page = client.get(url).content.decode()
    assert "memory leak" in page  # the 29 keywords of the seed study by default

    bad = client.post(url, {"performance_keywords": "slow\n\nSlow", "non_bug_labels": "x" * 101})
    assert bad.status_code == 200
    assert bad.context["form"].errors == {
        "performance_keywords": ["line 3: 'Slow' repeats line 1"],
        "non_bug_labels": ["line 1: longer than 100 characters"],
    }
    report.refresh_from_db()
    assert not report.is_performance_candidate

    response = client.post(url, {"performance_keywords": "hangs\n  conv   kernel \n"}, follow=True)
    assert "1 reports reclassified" in response.content.decode()
    report.refresh_from_db()
    assert report.repository.candidate_rules.performance_keywords == ["hangs", "conv kernel"]
    assert report.repository.candidate_rules.performance_labels == []
    assert report.candidate_rules == {"performance": ["keyword:hangs", "keyword:conv kernel"]}
    detail = client.get(f"/reports/{report.pk}/").content.decode()
    assert "keyword:hangs, keyword:conv kernel" in detail
