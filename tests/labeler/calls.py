"""Calling the API as a user, and reading its error answers."""

from rest_framework.test import APIClient


def client_for(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def assert_error(response, field, *words):
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"message", "fields"}
    assert field in body["fields"], body
    for word in words:
        assert word in body["fields"][field][0]
    assert body["message"].startswith(f"{field}: ")


def next_item(client, slug="perf"):
    return client.post(f"/api/studies/{slug}/next/")
