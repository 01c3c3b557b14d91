import pytest

from tests.fakegithub.server import FakeGitHub


@pytest.fixture
def fake_github(settings):
    """A fresh fake GitHub; settings point the importer at it, with no request spacing."""
    server = FakeGitHub().start()
    settings.GITHUB_API_URL = server.url
    settings.GITHUB_TOKENS = []
    settings.GITHUB_SECONDS_BETWEEN_REQUESTS = 0
    settings.GITHUB_SECONDS_BETWEEN_WRITES = 0
    settings.GITHUB_RETRY_BACKOFF_SECONDS = 0.01
    settings.GITHUB_INLINE_WAIT_SECONDS = 5
    yield server
    server.stop()
