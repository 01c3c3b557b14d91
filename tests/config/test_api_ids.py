"""Every route with an id in its address, found in the URL resolver: a word or a number too
large for the database names nothing, so the API answers its 404 body and a page its 404."""

from dataclasses import dataclass

import pytest
from django.urls import reverse

from tests.urlconf import methods_of, url_patterns

pytestmark = pytest.mark.django_db

NOT_IDS = ["abc", "99999999999999999999999"]
NOT_FOUND = {"message": "Not found.", "fields": {}}


@dataclass(frozen=True)
class Route:
    name: str
    kwarg: str
    takes_slug: bool
    methods: tuple[str, ...]

    def address(self, value: str) -> str:
        """The address with `value` as its id (and the `study` fixture's study as its study)."""
        kwargs = {self.kwarg: 1, **({"slug": "perf"} if self.takes_slug else {})}
        return reverse(self.name, kwargs=kwargs).replace("/1/", f"/{value}/")

    def __str__(self) -> str:
        return self.address("{id}")


def is_id(name: str) -> bool:
    return name in {"pk", "id"} or name.endswith("_id")


def routes_with_an_id():
    for walked in url_patterns():
        if walked.namespace.split(":")[0] == "admin":
            continue  # Django's own pages, with their own lookups
        kwargs = set(walked.kwargs)
        ids = [name for name in kwargs if is_id(name)]
        if not ids:
            continue
        (kwarg,) = ids
        assert kwargs <= {kwarg, "slug"}, (
            f"{walked.route}: a route taking more than a study and an id"
        )
        methods = methods_of(walked.pattern, function_view=("get",))
        yield Route(walked.name, kwarg, "slug" in kwargs, methods)


ROUTES = list(routes_with_an_id())
API_CALLS = [
    (route, method)
    for route in ROUTES
    if str(route).startswith("/api/")
    for method in route.methods
]
PAGES = [route for route in ROUTES if not str(route).startswith("/api/")]


def test_the_walk_finds_every_kind_of_api_resource_and_page():
    found = {str(route) for route in ROUTES}

    assert {
        "/api/reports/{id}/",
        "/api/imports/{id}/",
        "/api/imports/{id}/cancel/",
        "/api/imports/{id}/rerun/",
        "/api/codebooks/{id}/",
        "/api/items/{id}/",
        "/api/items/{id}/history/",
        "/api/assignments/{id}/",
        "/api/assignments/{id}/submit/",
        "/api/assignments/{id}/skip/",
        "/api/annotations/{id}/",
        "/api/auth/tokens/{id}/",
        "/reports/{id}/",
        "/studies/perf/items/{id}/history/",
    } <= found


@pytest.mark.parametrize("value", NOT_IDS)
@pytest.mark.parametrize(("route", "method"), API_CALLS, ids=lambda r: str(r))
def test_an_api_route_answers_404_for_what_is_no_id(superuser_client, route, method, value):
    response = getattr(superuser_client, method)(
        route.address(value), {}, content_type="application/json"
    )

    assert response.status_code == 404
    assert response.json() == NOT_FOUND


@pytest.mark.parametrize("value", NOT_IDS)
@pytest.mark.parametrize("route", PAGES, ids=str)
def test_a_page_answers_404_for_what_is_no_id(superuser_client, route, value):
    address = route.address(value)

    # A page takes GET or POST, the other is refused (405) before the id is looked at.
    statuses = {
        superuser_client.get(address).status_code,
        superuser_client.post(address).status_code,
    }

    assert 404 in statuses and statuses <= {404, 405}
