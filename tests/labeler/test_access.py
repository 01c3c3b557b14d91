"""Who may open which study page: anonymous visitors sign in first, non-members get a 404
everywhere, a researcher reads but neither manages nor labels."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def pages(slug="perf", item_id=1):
    return {
        "detail": reverse("studies:detail", args=[slug]),
        "label": reverse("studies:label", args=[slug]),
        "members": reverse("studies:members", args=[slug]),
        "history": reverse("studies:item-history", args=[slug, item_id]),
        "report": reverse("studies:item-report", args=[slug, item_id]),
        "import": reverse("studies:import", args=[slug]),
        "items": reverse("studies:items", args=[slug]),
        "export": reverse("studies:export", args=[slug]),
    }


@pytest.mark.parametrize(
    "url",
    [
        "/studies/",
        "/studies/new/",
        "/studies/perf/",
        "/studies/perf/label/",
        "/studies/perf/members/",
        "/studies/perf/import/",
        "/studies/perf/items/",
        "/studies/perf/export/",
        "/studies/perf/items/1/history/",
        "/studies/perf/items/1/report/",
    ],
)
def test_anonymous_is_sent_to_sign_in(client, study, url):
    response = client.get(url)

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


def test_non_member_gets_404_everywhere_even_for_existing_items(client, study, outsider):
    client.force_login(outsider)
    item = study.items.first()

    for url in pages(item_id=item.pk).values():
        assert client.get(url).status_code == 404, url
    assert client.post(reverse("studies:batch-add", args=["perf"])).status_code == 404
    assert client.get("/studies/no-such-study/").status_code == 404


def test_researcher_reads_progress_but_does_not_manage_or_label(client, study, researcher):
    client.force_login(researcher)

    html = client.get("/studies/perf/").content.decode()

    assert 'data-testid="per-annotator"' in html
    assert 'data-testid="skipped"' not in html
    assert client.get("/studies/perf/members/").status_code == 403
    assert client.get("/studies/perf/label/").status_code == 403
    assert client.post("/studies/perf/batches/").status_code == 403
