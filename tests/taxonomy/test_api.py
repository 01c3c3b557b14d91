"""/api/codebooks/: read-only, for anyone signed in."""

import pytest

from labeler.common.roles import Role
from taxonomy.codebook_file import parse_codebook
from taxonomy.services import codebook_load
from tests.taxonomy.test_codebook_file import GOOD

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("role", [Role.ANNOTATOR, Role.LEAD, Role.RESEARCHER, Role.ADMIN, None])
def test_every_signed_in_user_reads_codebooks(make_user, api_as, codebook, role):
    client = api_as(make_user(role))

    response = client.get("/api/codebooks/", {"key": "perf"})

    assert response.status_code == 200
    (item,) = response.json()["results"]
    assert item["key"] == "perf"
    root_cause = item["dimensions"][0]
    assert root_cause["leaf_only"] is True
    assert [c["path"] for c in root_cause["categories"]] == ["memory", "memory/unreleased", "other"]
    assert root_cause["categories"][1]["parent"] == "memory"


def test_anonymous_gets_401_in_the_uniform_error_body(api_client, codebook):
    response = api_client.get("/api/codebooks/")

    assert response.status_code == 401
    assert response.json() == {
        "message": "Authentication credentials were not provided.",
        "fields": {},
    }


def test_codebooks_are_read_only(make_user, api_as, codebook):
    client = api_as(make_user(Role.ADMIN))

    response = client.delete(f"/api/codebooks/{codebook.pk}/")

    assert response.status_code == 405


def test_list_query_count_does_not_grow_with_codebooks(
    make_user, api_as, codebook, django_assert_max_num_queries
):
    codebook_load(spec=parse_codebook(GOOD.replace('version: "2.1"', 'version: "3"')))
    client = api_as(make_user(Role.ANNOTATOR))

    with django_assert_max_num_queries(5):
        response = client.get("/api/codebooks/")

    assert response.json()["count"] == 2
