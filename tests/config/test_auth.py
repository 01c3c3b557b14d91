"""Failed sign-ins are throttled per account and per address, on the sign-in page, the admin's
and the token endpoint; the owner lists and revokes their API token."""

import datetime as dt

import pytest
from axes.models import AccessAttempt
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from config.auth import client_address
from tests.labeler.factories import TEST_PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

LIMIT = 10
PAGE_MESSAGE = (
    "Too many failed sign-ins for this account or from this address: try again in 15 minutes."
)
API_MESSAGE = (
    "too many failed sign-ins for this account or from this address: try again in 15 minutes"
)


@pytest.fixture(autouse=True)
def limits(settings):
    settings.AXES_FAILURE_LIMIT = LIMIT
    settings.AXES_COOLOFF_TIME = dt.timedelta(minutes=15)


def sign_in(username, password, address="10.0.0.1", path="/accounts/login/"):
    return Client(REMOTE_ADDR=address).post(path, {"username": username, "password": password})


def token(username, password, address="10.0.0.1"):
    client = APIClient(REMOTE_ADDR=address)
    return client.post(
        "/api/auth/token/", {"username": username, "password": password}, format="json"
    )


def page_text(response) -> str:
    return response.content.decode().replace("&#x27;", "'")


def test_the_page_refuses_the_right_password_after_too_many_wrong_ones(ann):
    for _ in range(LIMIT - 1):
        assert "didn't match" in page_text(sign_in("ann", "wrong"))

    refused = sign_in("ann", "wrong")
    assert refused.status_code == 429
    assert refused["Retry-After"] == "900"
    assert PAGE_MESSAGE in page_text(refused)
    assert 'name="username"' in page_text(refused)

    right = sign_in("ann", TEST_PASSWORD)
    assert right.status_code == 429
    assert PAGE_MESSAGE in page_text(right)


def test_the_token_endpoint_refuses_with_429_and_the_wait(ann):
    for _ in range(LIMIT - 1):
        assert token("ann", "wrong").status_code == 400

    for password in ("wrong", TEST_PASSWORD):
        refused = token("ann", password)
        assert refused.status_code == 429
        assert refused["Retry-After"] == "900"
        assert refused.json() == {"message": API_MESSAGE, "fields": {}}
    assert not Token.objects.filter(user=ann).exists()


def test_page_and_token_failures_count_together(ann):
    for _ in range(LIMIT // 2):
        sign_in("ann", "wrong")
        token("ann", "wrong")

    assert token("ann", TEST_PASSWORD).status_code == 429


def test_the_account_is_refused_from_any_address(ann):
    for number in range(LIMIT):
        sign_in("ann", "wrong", address=f"10.0.1.{number}")

    assert sign_in("ann", TEST_PASSWORD, address="10.0.2.1").status_code == 429
    assert token("ann", TEST_PASSWORD, address="10.0.2.1").status_code == 429


def test_an_address_trying_many_accounts_is_refused_for_every_account(ann):
    for number in range(LIMIT):
        sign_in(f"guess{number}", "wrong", address="10.0.3.1")

    assert sign_in("ann", TEST_PASSWORD, address="10.0.3.1").status_code == 429
    assert sign_in("ann", TEST_PASSWORD, address="10.0.3.2").status_code == 302


def test_a_success_clears_the_accounts_failures(ann):
    for _ in range(LIMIT - 1):
        sign_in("ann", "wrong", address="10.0.4.1")
    assert sign_in("ann", TEST_PASSWORD, address="10.0.4.2").status_code == 302

    for _ in range(LIMIT - 1):
        token("ann", "wrong", address="10.0.4.3")
    assert token("ann", TEST_PASSWORD, address="10.0.4.4").status_code == 200

    for _ in range(LIMIT - 1):
        sign_in("ann", "wrong", address="10.0.4.5")
    assert sign_in("ann", TEST_PASSWORD, address="10.0.4.6").status_code == 302


def test_a_success_does_not_clear_what_its_address_did_to_other_accounts(ann):
    UserFactory(username="mallory")
    for _ in range(LIMIT - 1):
        sign_in("ann", "wrong", address="10.0.5.1")

    assert sign_in("mallory", TEST_PASSWORD, address="10.0.5.1").status_code == 302
    assert sign_in("ann", "wrong", address="10.0.5.9").status_code == 429


def test_the_refusal_ends_after_the_cool_off(ann):
    for _ in range(LIMIT):
        sign_in("ann", "wrong")
    assert sign_in("ann", TEST_PASSWORD).status_code == 429

    AccessAttempt.objects.update(attempt_time=dt.datetime(2000, 1, 1, tzinfo=dt.UTC))

    assert sign_in("ann", TEST_PASSWORD).status_code == 302


def test_the_admin_sign_in_is_throttled_too():
    UserFactory(username="boss", is_staff=True)
    for _ in range(LIMIT):
        sign_in("boss", "wrong", path="/admin/login/")

    refused = sign_in("boss", TEST_PASSWORD, path="/admin/login/")

    assert refused.status_code == 429
    assert PAGE_MESSAGE in page_text(refused)


@pytest.mark.parametrize(
    ("count", "forwarded", "expected"),
    [
        (0, "198.51.100.7", "10.0.0.1"),
        (1, "198.51.100.7", "198.51.100.7"),
        (1, "203.0.113.9, 198.51.100.7", "198.51.100.7"),
        (2, "203.0.113.9, 198.51.100.7", "203.0.113.9"),
        (2, "198.51.100.7", "10.0.0.1"),
        (1, "", "10.0.0.1"),
    ],
)
def test_the_client_address_behind_trusted_proxies(rf, settings, count, forwarded, expected):
    settings.TRUSTED_PROXY_COUNT = count
    request = rf.get("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=forwarded)

    assert client_address(request) == expected


def owner_client(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_the_owner_lists_their_token_without_its_key(ann):
    key = token("ann", TEST_PASSWORD).json()["token"]
    UserFactory(username="bob")
    token("bob", TEST_PASSWORD)

    listing = owner_client(ann).get("/api/auth/tokens/")

    assert listing.status_code == 200
    (row,) = listing.json()["results"]
    assert row["id"] == ann.pk
    assert row["prefix"] == key[:8]
    assert dt.datetime.fromisoformat(row["created"]) == Token.objects.get(user=ann).created
    assert key not in listing.content.decode()


def test_the_owner_revokes_their_token(ann):
    key = token("ann", TEST_PASSWORD).json()["token"]
    with_token = APIClient()
    with_token.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert with_token.get("/api/ping/").status_code == 200

    response = with_token.delete(f"/api/auth/tokens/{ann.pk}/")

    assert response.status_code == 204
    assert with_token.get("/api/ping/").status_code == 401
    assert owner_client(ann).get("/api/auth/tokens/").json()["results"] == []
    assert token("ann", TEST_PASSWORD).json()["token"] != key


def test_nobody_revokes_someone_elses_token(ann):
    token("ann", TEST_PASSWORD)
    bob = UserFactory(username="bob")

    response = owner_client(bob).delete(f"/api/auth/tokens/{ann.pk}/")

    assert response.status_code == 404
    assert response.json() == {"message": "Not found.", "fields": {}}
    assert Token.objects.filter(user=ann).exists()


def test_tokens_are_for_signed_in_users_only():
    assert APIClient().get("/api/auth/tokens/").status_code == 401
