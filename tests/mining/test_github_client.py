import time

import pytest

from mining import github_client
from tests.fakegithub.server import validate_query
from tests.mining import payloads


@pytest.mark.parametrize(
    "query",
    [
        github_client.ISSUES_QUERY,
        github_client.more_items_query(["comments"]),
        github_client.more_items_query(["labels", "timelineItems"]),
        github_client.more_items_query(list(github_client.CONNECTIONS) * 3),
    ],
)
def test_queries_are_valid_against_githubs_schema(query):
    assert validate_query(query) == []


def test_fake_server_rejects_invalid_queries():
    assert validate_query("{ repository(owner: 1) { nope } }")


def test_link_header_next_url():
    response = github_client.Response(
        200, {"link": '<http://x/a?page=2>; rel="next", <http://x/a?page=9>; rel="last"'}, []
    )
    assert response.next_url == "http://x/a?page=2"
    assert github_client.Response(200, {}, []).next_url is None


def test_workers_sharing_a_token_share_its_budget(settings):
    budget = github_client.TokenBudget(settings.CELERY_BROKER_URL, 5)
    key = budget.key("http://fake-for-budget-test", "ghp_secret_token_value")
    other = github_client.TokenBudget(settings.CELERY_BROKER_URL, 5)
    budget.set(key, 0, 4102444800.0)
    assert other.get(key) == (0, 4102444800.0)
    assert "ghp_secret_token_value" not in key
    assert "secret" not in key


def test_a_request_that_outlives_the_tokens_lock_still_completes(settings, caplog):
    budget = github_client.TokenBudget(settings.CELERY_BROKER_URL, 0.1)
    key = budget.key("http://fake-for-lock-test", "token")

    with budget.serialised(key):
        time.sleep(0.3)  # the lock expires meanwhile

    assert "took longer than GITHUB_TOKEN_LOCK_SECONDS (0.1 s)" in caplog.text
    with budget.serialised(key):  # and the token is free for the next request
        pass


def test_exhausted_token_rotates_to_the_next(settings):
    budget = github_client.TokenBudget(None, 5)
    client = github_client.GitHubClient(
        api_url="http://127.0.0.1:9", tokens=["a", "b"], budget=budget
    )
    budget.set(client._keys[0], 0, 4102444800.0)
    assert client._choose_token() == 1
    budget.set(client._keys[1], 0, 4102444800.0)
    with pytest.raises(github_client.RateLimitedError):
        client._choose_token()


def test_etag_gets_304_only_when_it_matches(fake_github):
    fake_github.repo("octo/repo").issues[1] = payloads.rest_issue(1, api=fake_github.url)
    client = github_client.GitHubClient(
        api_url=fake_github.url, tokens=[], budget=github_client.TokenBudget(None, 5)
    )
    params = {"state": "all", "per_page": 100}
    first = client.rest_get("/repos/octo/repo/issues", params=params)
    etag = first.headers["etag"]
    again = client.rest_get("/repos/octo/repo/issues", params=params, etag=etag)
    assert (again.status, again.data) == (304, None)
    stale = client.rest_get("/repos/octo/repo/issues", params=params, etag='"stale"')
    assert stale.status == 200 and stale.data[0]["number"] == 1
    assert (client.requests, client.not_modified) == (3, 1)
    assert [entry.headers.get("if-none-match") for entry in fake_github.requests()] == [
        None,
        etag,
        '"stale"',
    ]
    # Only the 304 left GitHub's quota untouched.
    assert fake_github.remaining == fake_github.limit - 2


class Clock:
    """Mocked time: sleeping advances it at once."""

    def __init__(self):
        self.now = 1_900_000_000.0
        self.sleeps = []

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


SECONDARY = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes."}


def client_with_clock(fake_github, clock, **kwargs):
    return github_client.GitHubClient(
        api_url=fake_github.url,
        tokens=[],
        budget=github_client.TokenBudget(None, 5),
        sleep=clock.sleep,
        clock=clock,
        **kwargs,
    )


@pytest.mark.parametrize("status", [403, 429])
def test_secondary_limit_without_retry_after_waits_a_minute_then_backs_off(fake_github, status):
    fake_github.repo("octo/sec").issues[1] = payloads.rest_issue(1, api=fake_github.url)
    clock = Clock()
    client = client_with_clock(fake_github, clock, inline_wait_seconds=600)
    fake_github.fail_next(status, body=SECONDARY)
    assert client.rest_get("/repos/octo/sec/issues").status == 200
    assert clock.sleeps == [60]
    fake_github.fail_next(status, body=SECONDARY, times=3)
    assert client.rest_get("/repos/octo/sec/issues").status == 200
    assert clock.sleeps == [60, 60, 120, 240]
    # A success ends the streak: the next limit waits a minute again.
    fake_github.fail_next(status, body=SECONDARY)
    client.rest_get("/repos/octo/sec/issues")
    assert clock.sleeps[-1] == 60
    assert client.rate_limit_waits == 5


def test_secondary_limit_longer_than_the_inline_wait_pauses_the_job(fake_github):
    clock = Clock()
    client = client_with_clock(fake_github, clock, inline_wait_seconds=60)
    fake_github.fail_next(403, body=SECONDARY, times=2)
    with pytest.raises(github_client.RateLimitedError) as raised:
        client.rest_get("/repos/octo/sec/issues")
    assert clock.sleeps == [60]  # the first minute inline; the doubled wait is too long
    assert raised.value.resume_at.timestamp() == clock.now + 120


def test_forbidden_without_rate_limit_message_is_an_error_not_a_wait(fake_github):
    clock = Clock()
    client = client_with_clock(fake_github, clock)
    fake_github.fail_next(403, body={"message": "Resource not accessible by integration"})
    with pytest.raises(github_client.GitHubError, match="403: Resource not accessible"):
        client.rest_get("/repos/octo/sec/issues")
    assert clock.sleeps == []
