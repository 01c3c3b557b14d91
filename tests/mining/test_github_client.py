import pytest

from mining import github_client
from tests.fakegithub.server import validate_query


@pytest.mark.parametrize(
    "query",
    [
        github_client.ISSUES_QUERY,
        github_client.more_comments_query(1),
        github_client.more_comments_query(10),
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
    key = budget.key("http://fake-for-budget-test", "t")
    other = github_client.TokenBudget(settings.CELERY_BROKER_URL, 5)
    budget.set(key, 0, 4102444800.0)
    assert other.get(key) == (0, 4102444800.0)
    assert "t" not in key.split(":")[-1] or len(key.split(":")[-1]) == 16


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
