"""What the browser tests share."""

from urllib.parse import urlsplit

import pytest


@pytest.fixture
def offline(page, live_server):
    """Fail any request that leaves the app's own server (a CDN, a font, a map tile)."""
    server = urlsplit(live_server.url).netloc
    outside = []

    def only_local(route):
        if urlsplit(route.request.url).netloc in (server, ""):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_local)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    assert outside == [], outside
    assert errors == [], errors
