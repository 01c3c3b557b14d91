"""What no view answers: under /api/ the API's error body, elsewhere HTML; a database that
drops the connection is a 503 with Retry-After, never a 500 page."""

import psycopg2
import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.db import close_old_connections, connection
from django.test import Client, override_settings
from rest_framework.authtoken.serializers import AuthTokenSerializer

from config.errors import DATABASE_RETRY_AFTER_SECONDS, DATABASE_UNAVAILABLE
from tests.labeler.factories import TEST_PASSWORD, UserFactory


def terminate_own_backend() -> None:
    """Have PostgreSQL end this thread's connection, as it does under load or on a restart,
    from another connection; wait until it is gone."""
    connection.ensure_connection()
    pid = connection.connection.info.backend_pid
    params = connection.get_connection_params()
    other = psycopg2.connect(**{key: value for key, value in params.items() if key != "options"})
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s, 5000)", [pid])
            assert cursor.fetchone() == (True,)
    finally:
        other.close()


def next_request() -> None:
    """What Django does between two requests (the test client leaves it out, to keep a test's
    transaction): a connection that failed and is no longer usable is closed, so the next
    request opens a new one."""
    close_old_connections()


def terminating_first(monkeypatch, cls, name):
    original = getattr(cls, name)

    def wrapper(*args, **kwargs):
        terminate_own_backend()
        return original(*args, **kwargs)

    monkeypatch.setattr(cls, name, wrapper)


@pytest.mark.django_db(transaction=True)
def test_a_dropped_connection_during_sign_in_is_a_503_in_json(monkeypatch):
    UserFactory(username="ann")
    terminating_first(monkeypatch, AuthTokenSerializer, "validate")
    body = {"username": "ann", "password": TEST_PASSWORD}

    response = Client(raise_request_exception=False).post(
        "/api/auth/token/", body, content_type="application/json"
    )

    assert response.status_code == 503
    assert response["Retry-After"] == str(DATABASE_RETRY_AFTER_SECONDS)
    assert response.json() == {"message": DATABASE_UNAVAILABLE, "fields": {}}
    monkeypatch.undo()
    next_request()
    again = Client().post("/api/auth/token/", body, content_type="application/json")
    assert again.status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_dropped_connection_on_a_page_is_a_short_503_page(monkeypatch):
    client = Client(raise_request_exception=False)
    client.force_login(UserFactory())
    terminating_first(monkeypatch, SessionStore, "_get_session_from_db")

    response = client.get("/")

    assert response.status_code == 503
    assert response["Retry-After"] == str(DATABASE_RETRY_AFTER_SECONDS)
    assert response["Content-Type"].startswith("text/html")
    assert b"The database is busy or restarting: try again in a few seconds." in response.content
    monkeypatch.undo()
    next_request()
    assert client.get("/").status_code == 200


def test_an_uncaught_error_on_the_api_is_a_500_in_json(monkeypatch, admin_user):
    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr("labeler.labelling.api.PingView.get", broken)
    client = Client(raise_request_exception=False)
    client.force_login(admin_user)

    response = client.get("/api/ping/")

    assert response.status_code == 500
    assert response.json() == {"message": "Server error.", "fields": {}}


@pytest.mark.django_db
def test_an_unknown_api_address_is_a_404_in_json(admin_user):
    client = Client()
    client.force_login(admin_user)

    response = client.get("/api/no-such-thing/")

    assert response.status_code == 404
    assert response.json() == {"message": "Not found.", "fields": {}}
    assert Client().get("/api/no-such-thing/").json() == {"message": "Not found.", "fields": {}}


@pytest.mark.django_db
@override_settings(DEBUG=True)
@pytest.mark.parametrize("method", ["get", "post", "put", "patch", "delete"])
@pytest.mark.parametrize(
    "path", ["/api/no-such-thing/", "/api/no-such-thing", "/api/studies/x/y/z/", "/api/%C3%A9/"]
)
def test_an_unknown_api_address_is_the_json_404_with_debug_on(admin_user, method, path):
    """`make run` serves with DEBUG on, where Django's own 404 page lists every route."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)

    for answer in (getattr(client, method)(path), getattr(Client(), method)(path)):
        assert answer.status_code == 404
        assert answer.json() == {"message": "Not found.", "fields": {}}


@pytest.mark.django_db
@override_settings(DEBUG=True)
def test_an_api_address_without_its_final_slash_is_still_sent_on(admin_user):
    client = Client()
    client.force_login(admin_user)

    response = client.get("/api/studies?page=2")

    assert response.status_code == 301
    assert response["Location"] == "/api/studies/?page=2"


@pytest.mark.django_db
def test_an_unknown_page_is_still_the_html_404(admin_user):
    client = Client()
    client.force_login(admin_user)

    response = client.get("/no-such-page/")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
