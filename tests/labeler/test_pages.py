"""Anonymous visitors see only the sign-in page; signed-in users see the home page."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("url", ["/", "/codebooks/", "/admin/", "/docs/api/"])
def test_anonymous_is_redirected_to_sign_in(client, url):
    response = client.get(url)

    assert response.status_code == 302
    assert "/login/" in response["Location"]


def test_sign_in_page_renders(client):
    response = client.get(reverse("login"))

    assert response.status_code == 200
    assert 'name="username"' in response.content.decode()


def test_sign_in_with_wrong_password_says_so(client, annotator):
    response = client.post(reverse("login"), {"username": "ann", "password": "wrong"})

    html = response.content.decode()
    assert "Your username and password didn&#x27;t match" in html
    assert 'value="ann"' in html


def test_home_shows_roles_and_nav(client, lead):
    client.force_login(lead)

    html = client.get("/").content.decode()

    assert "Site-wide roles: lead." in html
    assert 'href="/codebooks/"' in html


def test_admin_only_for_admins(client, lead, admin_user):
    client.force_login(lead)
    assert client.get("/admin/").status_code == 302
    client.force_login(admin_user)
    assert client.get("/admin/").status_code == 200


def test_api_docs_and_schema_for_signed_in_users(client, annotator):
    client.force_login(annotator)

    assert client.get("/docs/api/").status_code == 200
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    assert b"/api/codebooks/" in schema.content


def test_token_endpoint_returns_a_token(api_client, annotator):
    response = api_client.post(
        "/api/auth/token/", {"username": "ann", "password": "pw-for-tests-123"}, format="json"
    )

    assert response.status_code == 200
    assert len(response.json()["token"]) == 40
