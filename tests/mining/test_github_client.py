import logging
import time

import pytest
from graphql import TypeInfo, TypeInfoVisitor, Visitor, parse, visit

from mining import github_client
from tests.fakegithub.server import github_schema, validate_query
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


def test_queries_ask_for_64_bit_ids_wherever_the_schema_has_them():
    """Every type the queries read that has `fullDatabaseId` is asked for it, never for its
    32-bit `databaseId` (Repository has no fullDatabaseId)."""
    schema = github_schema()
    queries = [github_client.ISSUES_QUERY, github_client.more_items_query(["comments"])]
    queries.append(github_client.more_items_query(list(github_client.CONNECTIONS)))
    asked: dict[str, set[str]] = {}

    class Fields(Visitor):
        def __init__(self, info):
            super().__init__()
            self.info = info

        def enter_field(self, node, *_):
            parent = self.info.get_parent_type()
            if parent is not None:
                asked.setdefault(parent.name, set()).add(node.name.value)

    for query in queries:
        info = TypeInfo(schema)
        visit(parse(query), TypeInfoVisitor(info, Fields(info)))
    with_full = {
        name for name in asked if "fullDatabaseId" in getattr(schema.type_map[name], "fields", {})
    }
    assert {"Issue", "IssueComment", "PullRequest"} <= with_full
    for name in with_full:
        assert "fullDatabaseId" in asked[name] and "databaseId" not in asked[name], name
    assert "fullDatabaseId" not in schema.type_map["Repository"].fields


def test_a_32_bit_id_field_fails_where_githubs_ids_passed_2_31(fake_github):
    """The fake answers as GitHub does: `databaseId` of a comment past 2^31 is an error."""
    repo = fake_github.repo("octo/ids")
    repo.issues[1] = payloads.rest_issue(1, repo="octo/ids", api=fake_github.url, comments=1)
    repo.comments[1] = [payloads.rest_comment(0, issue_number=1)]
    client = github_client.GitHubClient(
        api_url=fake_github.url, tokens=[], budget=github_client.TokenBudget(None, 5)
    )
    query = """query { repository(owner: "octo", name: "ids") { issues(first: 1) { nodes {
        comments(first: 1) { nodes { databaseId fullDatabaseId } } } } } }"""
    data, errors = client.graphql(query, {})
    comment = data["repository"]["issues"]["nodes"][0]["comments"]["nodes"][0]
    assert comment == {"databaseId": None, "fullDatabaseId": str(payloads.comment_id(0))}
    assert payloads.comment_id(0) > 2**31
    assert [(e.where(), e.message) for e in errors] == [
        (
            "repository.issues.nodes.0.comments.nodes.0.databaseId",
            f"Int cannot represent non 32-bit signed integer value: {payloads.comment_id(0)}",
        )
    ]


def test_an_unreachable_github_says_so_after_every_try(settings):
    clock = Clock()
    client = github_client.GitHubClient(
        api_url="http://127.0.0.1:1",
        tokens=[],
        budget=github_client.TokenBudget(None, 5),
        server_error_retries=5,
        sleep=clock.sleep,
        clock=clock,
    )
    with pytest.raises(github_client.NetworkError) as raised:
        client.rest_get("/repos/octo/x/issues")
    assert str(raised.value) == "could not reach http://127.0.0.1:1: connection refused, 6 tries"
    assert raised.value.status is None and len(clock.sleeps) == 5


def test_a_request_without_a_token_that_github_refuses_says_a_token_is_needed(fake_github):
    fake_github.fail_next(401, body={"message": "This endpoint requires you to be authenticated."})
    client = client_with_clock(fake_github, Clock())
    with pytest.raises(github_client.BadCredentialsError, match=r"without a token.*GITHUB_TOKENS"):
        client.graphql("query { viewer { login } }", {})


SECRET = "ghp_echoedSecretToken0123456789abcdef"


def echoing_client(fake_github):
    fake_github.valid_tokens = None
    return github_client.GitHubClient(
        api_url=fake_github.url,
        tokens=[SECRET],
        budget=github_client.TokenBudget(None, 5),
        server_error_retries=1,
        retry_backoff_seconds=0,
    )


@pytest.mark.parametrize("status", [403, 404, 410, 422, 500])
def test_an_error_answer_echoing_the_request_never_carries_the_token(fake_github, status, caplog):
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="github")
    client = echoing_client(fake_github)
    body = {"message": "Denied. You sent Authorization: {authorization} " + "x" * 150}
    fake_github.fail_next(status, body=body, times=2)
    with pytest.raises(github_client.GitHubError) as raised:
        client.rest_get("/repos/octo/x/issues")
    assert fake_github.requests()[0].status == status
    text = str(raised.value)
    assert SECRET not in text and SECRET[4:20] not in text
    if status != 404:  # a 404 says "not found" and nothing of the answer
        assert "You sent Authorization: token [redacted]" in text
    assert SECRET not in caplog.text and SECRET[4:20] not in caplog.text


def test_a_graphql_error_echoing_the_request_never_carries_the_token(fake_github, caplog):
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="github")
    client = echoing_client(fake_github)
    fake_github.fail_next(
        200, body={"errors": [{"message": "Bad request from {authorization}"}], "data": None}
    )
    with pytest.raises(github_client.GitHubError) as raised:
        client.graphql("query { viewer { login } }", {})
    assert str(raised.value) == "GitHub GraphQL error: Bad request from token [redacted]"
    assert SECRET not in caplog.text
