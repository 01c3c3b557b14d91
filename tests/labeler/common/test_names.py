"""A codebook's key and version against pages: the board's freeze refuses a name that breaks
the rule (it answered 500 yet committed a version "1/../../x"), and no name already stored,
whatever it holds, makes a page answer 5xx (such a version broke `/`, `/codebooks/` and the
study's pages for everyone). The bad names are planted behind the rule's back."""

import re
from html import unescape

import pytest
from django.test import Client
from django.urls import URLPattern, get_resolver, reverse

from labeler.coding.board.themes import theme_create
from labeler.models import Board
from taxonomy.models import Codebook
from tests.labeler.board_factories import open_study_with_items
from tests.labeler.codebook_revisions import labelled_study, revise_v2
from tests.taxonomy.factories import CodebookFactory

pytestmark = pytest.mark.django_db

BAD_VERSIONS = ["1/../../x", "..", "a b?c#d%2F", "é"]


def freeze(client, slug, version):
    return client.post(
        f"/api/studies/{slug}/board/freeze/",
        {"key": "open-perf", "version": version, "name": "Perf", "leave_out_ungrouped": True},
        content_type="application/json",
    )


@pytest.fixture
def themed_open_round(lead):
    study, board = open_study_with_items(members=[(lead, "lead")])
    for key in study.codebook.dimensions.values_list("key", flat=True):
        theme_create(board=board, dimension_key=key, name="Loops", user=lead)
    return study, board


def test_the_freeze_refuses_a_version_that_breaks_the_rule_and_writes_nothing(
    lead_client, themed_open_round
):
    study, board = themed_open_round
    before = Codebook.objects.count()

    response = freeze(lead_client, study.slug, "1/../../x")

    assert response.status_code == 400
    assert response.json()["fields"] == {
        "version": [
            "version '1/../../x' must be 1 to 40 letters, digits, '.', '_' or '-', not "
            "starting with '.'"
        ]
    }
    assert Codebook.objects.count() == before
    assert Board.objects.get(pk=board.pk).frozen_into is None
    assert lead_client.get("/").status_code == 200


def study_pages(slug: str) -> list[str]:
    """Every page of a study that takes nothing but the study: found in the URL conf."""
    patterns = get_resolver().url_patterns
    return sorted(
        reverse(f"studies:{pattern.name}", kwargs={"slug": slug})
        for pattern in _flatten(patterns, "studies")
        if set(pattern.pattern.regex.groupindex) == {"slug"}
    )


def _flatten(patterns, namespace, inside=False):
    for pattern in patterns:
        if isinstance(pattern, URLPattern):
            if inside and pattern.name:
                yield pattern
        else:
            yield from _flatten(
                pattern.url_patterns, namespace, inside or pattern.namespace == namespace
            )


def links_to_codebooks(html: str) -> list[str]:
    return sorted({unescape(href) for href in re.findall(r'href="(/codebooks/[^"]+)"', html)})


@pytest.mark.parametrize("bad", BAD_VERSIONS)
def test_no_stored_name_makes_a_page_answer_5xx(
    bad, lead_client, themed_open_round, lead, annotator, make_user
):
    study, _ = themed_open_round
    assert freeze(lead_client, study.slug, "1").status_code == 200
    closed = labelled_study(annotator=annotator, second=make_user(username="ann2"), lead=lead)
    revise_v2(closed.codebook)
    # Behind the rule's back: a frozen board's version, a newer version a closed study is
    # offered, and a codebook of a bad key with a bad version.
    Codebook.objects.filter(key="open-perf").update(version=bad)
    Codebook.objects.filter(key="perf", version="2.0").update(version=f"2{bad}")
    CodebookFactory(key="Bad Key/..", version=bad, name="Odd one")
    superuser = Client()
    superuser.force_login(make_user(username="root", is_staff=True, is_superuser=True))

    pages = ["/", "/codebooks/", *study_pages(study.slug), *study_pages(closed.slug)]
    for client in (lead_client, superuser):
        for page in pages:
            assert client.get(page).status_code < 500, page
    assert lead_client.get(f"/api/studies/{study.slug}/board/").status_code == 200

    # Every codebook link of the list, the board and the study leads somewhere that answers.
    listed = lead_client.get("/codebooks/").content.decode()
    links = links_to_codebooks(listed)
    # The open round's, the frozen one's, the closed study's two and the odd one.
    assert len(links) == 5
    for link in links:
        page = lead_client.get(link)
        assert page.status_code == 200, link
    frozen = Codebook.objects.get(key="open-perf")
    url = lead_client.get(f"/api/studies/{study.slug}/board/").json()["board"]["frozen_into"]["url"]
    page = lead_client.get(url)
    assert (page.status_code, page.context["codebook"]) == (200, frozen)
    # The diff between the closed study's version and the newer one, as its form asks.
    diff = lead_client.get("/codebooks/perf/1.0/diff/", {"against": f"2{bad}"}, follow=True)
    assert diff.status_code == 200
    assert diff.context["diff"].new_version == f"2{bad}"
    for link in links_to_codebooks(diff.content.decode()):
        assert lead_client.get(link).status_code == 200, link
    for link in links_to_codebooks(lead_client.get(f"/studies/{closed.slug}/").content.decode()):
        assert lead_client.get(link).status_code == 200, link
    migrate = re.search(
        r'href="(/studies/perf/codebook/[^"]+)"',
        lead_client.get(f"/studies/{closed.slug}/").content.decode(),
    )
    page = lead_client.get(unescape(migrate.group(1)))
    assert page.status_code == 200
    assert page.context["target"].version == f"2{bad}"


@pytest.mark.parametrize(
    "query",
    ["codebook=a%00&version=1", "codebook=perf&version=1%00", "from=perf%00", "version=../x"],
)
def test_the_new_study_page_takes_no_name_that_breaks_the_rule(lead_client, query):
    response = lead_client.get(f"/studies/new/?{query}")

    assert response.status_code == 200
    assert "codebook" not in response.context["form"].initial
