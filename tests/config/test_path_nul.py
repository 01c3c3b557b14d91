"""A NUL character (%00) in the path of any address answers a 400 naming it, before any view
runs: PostgreSQL text cannot hold it, so a view looking the value up would fail with a 500.
Tested over every route of the URL conf, each parameter in turn, each method it answers."""

from dataclasses import dataclass

import pytest
from django.urls import NoReverseMatch, reverse

from config.middleware import PATH_NUL
from tests.urlconf import methods_of, url_patterns

pytestmark = pytest.mark.django_db

MARKER = "nulmarker"
# A value each kind of parameter takes, for the parameters not under test.
SAMPLES = ("perf", 1)


@dataclass(frozen=True)
class Route:
    name: str
    kwargs: tuple[str, ...]
    methods: tuple[str, ...]


def routes():
    for walked in url_patterns():
        if walked.name and walked.kwargs:
            methods = methods_of(walked.pattern, function_view=("get",))
            yield Route(walked.name, walked.kwargs, methods)


def address(route: Route, under_test: str) -> str | None:
    """The route's address with `under_test` holding a NUL, the other parameters a sample
    value each; None when the parameter takes no letters (a number)."""
    for others in SAMPLES:
        kwargs = {name: others for name in route.kwargs}
        kwargs[under_test] = MARKER
        try:
            return reverse(route.name, kwargs=kwargs).replace(MARKER, "x%00y")
        except NoReverseMatch:
            continue
    return None


CALLS = sorted(
    {
        (url, method)
        for route in routes()
        for name in route.kwargs
        if (url := address(route, name)) is not None
        for method in route.methods
    }
)


def test_the_walk_finds_the_codebook_diff_and_migration_routes():
    assert {
        "/codebooks/x%00y/perf/",
        "/codebooks/perf/x%00y/",
        "/codebooks/perf/x%00y/yaml/",
        "/codebooks/perf/diff/x%00y/perf/",
        "/codebooks/perf/diff/perf/x%00y/",
        "/api/studies/perf/codebook-migration/x%00y/",
        "/studies/perf/codebook/x%00y/",
    } <= {url for url, _ in CALLS}


@pytest.mark.parametrize(("url", "method"), CALLS, ids=lambda value: str(value))
def test_a_nul_in_the_path_is_a_400_naming_it(superuser_client, url, method):
    response = getattr(superuser_client, method)(url, {}, content_type="application/json")

    assert response.status_code == 400
    if url.startswith("/api/"):
        assert response.json() == {"message": PATH_NUL, "fields": {}}
    else:
        assert PATH_NUL[1:] in response.content.decode()


@pytest.mark.parametrize("url", ["/codebooks/perf/1%00/", "/api/codebooks/1%00/"])
def test_an_anonymous_visitor_is_told_too(client, url):
    assert client.get(url).status_code == 400
