import pytest

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


def test_import_page_shows_form_only_to_managers(client, annotator, lead):
    factories.ImportJobFactory(error_reason="octo/x: Not found on GitHub (404)", status="failed")
    client.force_login(annotator)
    page = client.get("/imports/").content.decode()
    assert "Not found on GitHub" in page and "Start import" not in page
    response = client.post("/imports/start/", {"repository": "o/r"}, follow=True)
    assert "may not manage imports" in response.content.decode()
    client.force_login(lead)
    assert "Start import" in client.get("/imports/").content.decode()
