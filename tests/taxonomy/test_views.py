"""The codebook pages: signed-in users read them; the category tree, search and 404; the
codebook file to download; the diff between two versions and the form that leads to it."""

import pytest
from django.urls import reverse

from labeler.common.roles import Role
from taxonomy.codebook_file import codebook_yaml, parse_codebook
from taxonomy.services import codebook_load, codebook_revise
from tests.taxonomy.test_codebook_file import GOOD
from tests.taxonomy.test_services import V3, V3_MAPPING

pytestmark = pytest.mark.django_db


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


@pytest.fixture
def revised(codebook):
    return codebook_revise(base=codebook, spec=parse_codebook(V3), mapping=V3_MAPPING)


def diff_url(old: str, new: str) -> str:
    return reverse("taxonomy:codebook-diff", args=["perf", old, new])


def test_the_diff_page_groups_changes_by_dimension_and_kind_for_every_signed_in_user(
    client, anyone_signed_in, revised, django_assert_max_num_queries
):
    client.force_login(anyone_signed_in)

    with django_assert_max_num_queries(13):
        response = client.get(diff_url("2.1", "3.0"))

    assert response.status_code == 200
    html = response.content.decode()
    assert "Performance root causes: version 2.1 → 3.0" in html
    assert "3.0 was revised from 2.1: categories matched by the recorded mapping" in html
    root_cause = html[html.index('data-testid="diff-root-cause"') : html.index("diff-impact")]
    assert "<h3>Added (1)</h3>" in root_cause
    assert "<h3>Removed (1)</h3>" in root_cause
    assert "<h3>Split (1)</h3>" in root_cause
    assert '<code class="category-path">memory/unreleased</code>' in root_cause
    assert '<span class="diff-arrow">→ split into</span>' in root_cause
    assert "Renamed" not in root_cause and "Merged" not in root_cause
    assert "No change in this dimension." in html[html.index('data-testid="diff-impact"') :]


def test_the_diff_page_shows_changed_definitions_field_by_field(client, annotator, codebook):
    codebook_load(
        spec=parse_codebook(
            GOOD.replace('version: "2.1"', 'version: "2.2"')
            .replace("Memory is wasted.", "Memory is wasted or leaked.")
            .replace('examples: ["a leak"]', 'examples: ["a leak", "a copy"]')
        )
    )
    client.force_login(annotator)

    html = client.get(diff_url("2.1", "2.2")).content.decode()

    assert "neither version was revised from the other: categories matched by key path" in html
    assert "<h3>Definitions changed (1)</h3>" in html
    assert '<th scope="row">definition</th><td>Memory is wasted.</td>' in html
    assert "<td>Memory is wasted or leaked.</td>" in html
    assert "<li>a copy</li>" in html


def test_a_version_against_itself_has_no_change(client, annotator, codebook):
    client.force_login(annotator)

    html = client.get(diff_url("2.1", "2.1")).content.decode()

    assert "No change between versions 2.1 and 2.1." in html


def test_the_diff_of_an_unknown_version_is_a_404_naming_it(client, annotator, revised):
    client.force_login(annotator)

    response = client.get(diff_url("2.1", "9.9"))

    assert response.status_code == 404
    assert "no codebook <code>perf</code> at version <code>9.9</code>" in response.content.decode()


def test_the_codebook_page_offers_the_other_versions_to_compare_with(client, annotator, revised):
    client.force_login(annotator)

    html = client.get(detail_url(revised)).content.decode()

    pick = reverse("taxonomy:codebook-diff-pick", args=["perf", "3.0"])
    assert f'action="{pick}"' in html
    assert '<option value="2.1">2.1</option>' in html
    assert '<option value="3.0">' not in html


def test_a_single_version_offers_nothing_to_compare_with(client, annotator, codebook):
    client.force_login(annotator)

    assert 'name="against"' not in client.get(detail_url(codebook)).content.decode()


@pytest.mark.parametrize("version, against", [("3.0", "2.1"), ("2.1", "3.0")])
def test_the_form_leads_to_the_diff_from_the_earlier_version(
    client, anyone_signed_in, revised, version, against
):
    client.force_login(anyone_signed_in)

    response = client.get(
        reverse("taxonomy:codebook-diff-pick", args=["perf", version]), {"against": against}
    )

    assert response.status_code == 302
    assert response["Location"] == diff_url("2.1", "3.0")


def test_the_form_without_a_known_version_says_what_is_missing(client, annotator, revised):
    client.force_login(annotator)
    pick = reverse("taxonomy:codebook-diff-pick", args=["perf", "3.0"])

    empty = client.get(pick)
    unknown = client.get(pick, {"against": "9.9"})

    assert empty.status_code == 400
    assert "Choose the version to compare with (the field “against”)." in empty.content.decode()
    assert unknown.status_code == 404
    assert "at version <code>9.9</code>" in unknown.content.decode()


def test_anonymous_visitors_of_the_diff_pages_are_sent_to_sign_in(client, revised):
    pick = reverse("taxonomy:codebook-diff-pick", args=["perf", "3.0"])
    for url in (diff_url("2.1", "3.0"), f"{pick}?against=2.1"):
        response = client.get(url)

        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login") + "?next=")
