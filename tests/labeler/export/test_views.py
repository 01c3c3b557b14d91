"""The export page: its datasheet rendered safely, its downloads, and who sees it."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("who", "expected"), [("lead", 200), ("researcher", 200), ("annotator", 403)]
)
def test_who_sees_the_export_page(client, study, request, who, expected):
    client.force_login(request.getfixturevalue(who))
    assert client.get("/studies/perf/export/").status_code == expected
    detail = client.get("/studies/perf/").content.decode()
    assert ('data-testid="export"' in detail) is (expected == 200)


def test_the_page_shows_the_datasheet_and_the_downloads(client, study, researcher, lead):
    study.codebook.description = "Use <script>alert(1)</script> *carefully*."
    study.codebook.save()
    client.force_login(researcher)
    html = client.get("/studies/perf/export/").content.decode()
    # Under the page's own <h1>: one <h1> a page.
    assert html.count("<h1") == 1 and "<h2>Datasheet: " in html
    assert "<h3>Agreement</h3>" in html
    assert "<em>carefully</em>" in html
    assert "<script>alert(1)" not in html
    assert 'action="/api/studies/perf/export/"' in html
    assert 'href="/api/studies/perf/export/datasheet/?format=md"' in html
    assert 'name="names" value="real"' not in html
    client.force_login(lead)
    assert 'name="names" value="real"' in client.get("/studies/perf/export/").content.decode()
