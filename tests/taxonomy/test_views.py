"""The codebook pages: signed-in users read them; the category tree, search and 404; the
codebook file to download."""

import pytest
from django.urls import reverse

from labeler.roles import Role
from taxonomy.codebook_file import codebook_yaml, parse_codebook
from taxonomy.services import codebook_load
from tests.taxonomy.test_codebook_file import GOOD

pytestmark = pytest.mark.django_db


@pytest.fixture
def codebook():
    codebook, _ = codebook_load(spec=parse_codebook(GOOD))
    return codebook


def detail_url(codebook) -> str:
    return reverse("taxonomy:codebook-detail", args=[codebook.key, codebook.version])


def test_anonymous_visitors_are_sent_to_sign_in(client, codebook):
    response = client.get(detail_url(codebook))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login") + "?next=")


def test_list_shows_each_codebook_with_its_dimensions(client, annotator, codebook):
    client.force_login(annotator)

    response = client.get(reverse("taxonomy:codebook-list"))

    assert response.status_code == 200
    html = response.content.decode()
    assert "Performance root causes" in html
    assert "Root cause, Impact" in html
    assert detail_url(codebook) in html


def test_detail_shows_tree_definitions_examples_and_rules(
    client, annotator, codebook, django_assert_max_num_queries
):
    client.force_login(annotator)

    with django_assert_max_num_queries(10):
        response = client.get(detail_url(codebook))

    html = response.content.decode()
    assert response.status_code == 200
    assert "memory/unreleased" in html
    assert "Memory is wasted." in html
    assert "a leak" in html
    assert "Choose one, required; only the most specific categories." in html
    assert "Choose one or more, optional." in html
    assert html.index(">Memory<") < html.index(">Unreleased memory<") < html.index(">Other<")


def test_search_keeps_matching_branches_with_their_ancestors(client, annotator, codebook):
    client.force_login(annotator)

    html = client.get(detail_url(codebook), {"q": "UNRELEASED"}).content.decode()

    assert "memory/unreleased" in html
    assert 'class="category context-only"' in html  # "Memory" shown only as the parent
    assert '<code class="category-path">other</code>' not in html
    assert "No category in this dimension mentions “UNRELEASED”." in html  # impact dimension


def test_unknown_codebook_or_version_is_a_404_page(client, annotator, codebook):
    client.force_login(annotator)

    response = client.get(reverse("taxonomy:codebook-detail", args=["perf", "9.9"]))

    assert response.status_code == 404
    assert "no codebook <code>perf</code> at version <code>9.9</code>" in response.content.decode()


ROLES = [Role.ANNOTATOR, Role.LEAD, Role.RESEARCHER, Role.ADMIN, None]


@pytest.fixture(params=ROLES, ids=lambda role: role.value if role else "no-role")
def anyone_signed_in(request, make_user):
    """Every kind of signed-in user, staff and one with no role included: codebooks are
    read by all of them."""
    return make_user(request.param, username="someone")


def file_url(codebook) -> str:
    return reverse("taxonomy:codebook-file", args=[codebook.key, codebook.version])


def test_the_codebook_file_downloads_for_every_signed_in_user(client, anyone_signed_in, codebook):
    client.force_login(anyone_signed_in)

    response = client.get(file_url(codebook))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/yaml; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="perf-2.1.yaml"'
    assert response.content.decode() == codebook_yaml(parse_codebook(GOOD))


def test_the_codebook_page_links_to_its_file(client, annotator, codebook):
    client.force_login(annotator)

    html = client.get(detail_url(codebook)).content.decode()

    assert f'<a href="{file_url(codebook)}" download>' in html


def test_the_file_of_an_unknown_version_is_a_404_and_anonymous_signs_in(
    client, annotator, codebook
):
    anonymous = client.get(file_url(codebook))
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith(reverse("login") + "?next=")

    client.force_login(annotator)
    response = client.get(reverse("taxonomy:codebook-file", args=["perf", "9.9"]))

    assert response.status_code == 404
    assert "no codebook <code>perf</code> at version <code>9.9</code>" in response.content.decode()
