"""Everyone's account page: a password changed without the admin, the API token seen (its start
only) and revoked, every session ended at once."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.labeler.factories import TEST_PASSWORD, UserFactory

pytestmark = pytest.mark.django_db
NEW_PASSWORD = "a-longer-new-passphrase-42"


def sign_in(username: str, password: str) -> Client:
    """A browser's sign-in, through the page (axes wants the request)."""
    client = Client()
    response = client.post("/accounts/login/", {"username": username, "password": password})
    assert response.status_code == 302, response.content.decode()[:300]
    return client


def signed_in(user) -> Client:
    return sign_in(user.username, TEST_PASSWORD)


def is_signed_in(client: Client) -> bool:
    return client.get("/accounts/").status_code == 200


def api_works(key: str) -> bool:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client.get("/api/auth/tokens/").status_code == 200


def test_the_page_asks_a_stranger_to_sign_in():
    response = Client().get("/accounts/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


@pytest.mark.parametrize(
    "url", ["/accounts/password/", "/accounts/token/revoke/", "/accounts/sign-out-everywhere/"]
)
def test_the_actions_are_posts_only(ann, url):
    assert signed_in(ann).get(url).status_code == 405


def test_every_page_links_the_account_by_the_username(ann):
    html = signed_in(ann).get("/").content.decode()
    assert 'href="/accounts/" data-testid="username"' in html


def test_the_page_shows_the_token_by_its_start_only(ann):
    client = signed_in(ann)
    assert 'data-testid="no-token"' in client.get("/accounts/").content.decode()
    token = Token.objects.create(user=ann)
    html = client.get("/accounts/").content.decode()
    assert f'data-testid="token-prefix">{token.key[:8]}<' in html
    assert token.key not in html


def test_a_wrong_current_password_changes_nothing_and_says_where(ann):
    client = signed_in(ann)
    response = client.post(
        "/accounts/password/",
        {"old_password": "not it", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 400
    assert 'id="id_old_password-error"' in response.content.decode()
    assert get_user_model().objects.get(pk=ann.pk).check_password(TEST_PASSWORD)


def test_a_weak_new_password_is_refused_with_the_validators_reason(ann):
    response = signed_in(ann).post(
        "/accounts/password/",
        {"old_password": TEST_PASSWORD, "new_password1": "12345678", "new_password2": "12345678"},
    )
    assert response.status_code == 400
    assert "This password is too common." in response.content.decode()
    assert get_user_model().objects.get(pk=ann.pk).check_password(TEST_PASSWORD)


def test_a_new_password_keeps_this_session_and_ends_the_others_and_the_token(ann):
    here, elsewhere = signed_in(ann), signed_in(ann)
    key = Token.objects.create(user=ann).key
    response = here.post(
        "/accounts/password/",
        {
            "old_password": TEST_PASSWORD,
            "new_password1": NEW_PASSWORD,
            "new_password2": NEW_PASSWORD,
        },
        follow=True,
    )
    assert "Your password is changed." in response.content.decode()
    assert is_signed_in(here) and not is_signed_in(elsewhere)
    assert not api_works(key)
    assert is_signed_in(sign_in("ann", NEW_PASSWORD))


def test_revoking_the_token_refuses_scripts_using_it(ann):
    key = Token.objects.create(user=ann).key
    assert api_works(key)
    response = signed_in(ann).post("/accounts/token/revoke/", follow=True)
    assert "Your API token is revoked" in response.content.decode()
    assert not api_works(key)
    again = signed_in(ann).post("/accounts/token/revoke/", follow=True)
    assert "You have no API token to revoke." in again.content.decode()


def test_signing_out_everywhere_ends_every_session_of_the_account_and_no_other(ann):
    bob = UserFactory(username="bob")
    here, elsewhere, bobs = signed_in(ann), signed_in(ann), signed_in(bob)
    key = Token.objects.create(user=ann).key
    bobs_key = Token.objects.create(user=bob).key
    response = here.post("/accounts/sign-out-everywhere/")
    assert response.status_code == 302 and response["Location"] == "/accounts/login/"
    assert not is_signed_in(here) and not is_signed_in(elsewhere)
    assert not api_works(key)
    assert is_signed_in(bobs) and api_works(bobs_key)
