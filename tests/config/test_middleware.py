"""API bodies: nesting beyond MAX_JSON_DEPTH and size beyond the limit answer the API's error
body, on every endpoint, before any view reads them."""

import json

import pytest
from django.test import Client

from config.api import MAX_JSON_DEPTH, json_nesting_exceeds, json_text_problems
from labeler.labelling.services import assignment_next
from tests.labeler.factories import TEST_PASSWORD

pytestmark = pytest.mark.django_db

TOO_DEEP = {
    "message": f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels",
    "fields": {},
}


def nested_list(depth: int, inner="memory/leak"):
    """`depth` lists, one inside the other, around `inner`."""
    value = inner
    for _ in range(depth):
        value = [value]
    return value


def post_json(client, path, body: str):
    return client.post(path, body, content_type="application/json")


@pytest.fixture
def study_lead_client(study, lead_client):
    """Signed in as the lead of `study`."""
    return lead_client


def test_fifty_thousand_brackets_to_the_token_endpoint():
    response = post_json(Client(), "/api/auth/token/", "[" * 50_000)

    assert response.status_code == 400
    assert response.json() == TOO_DEEP


def test_fifty_thousand_brackets_to_the_study_preview(study_lead_client):
    response = post_json(study_lead_client, "/api/studies/preview/", "[" * 50_000 + "]" * 50_000)

    assert response.status_code == 400
    assert response.json() == TOO_DEEP


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH, 900, 50_000])
def test_nested_lists_inside_labels_of_a_submission(study, annotator, depth):
    held = assignment_next(study=study, user=annotator)
    client = Client()
    client.force_login(annotator)
    body = '{"labels": {"root-cause": ' + "[" * depth + '"memory/leak"' + "]" * depth + "}}"

    response = post_json(client, f"/api/assignments/{held.pk}/submit/", body)

    assert response.status_code == 400
    assert response.json() == TOO_DEEP


def test_deep_but_legal_json_reaches_the_view(study, annotator):
    held = assignment_next(study=study, user=annotator)
    client = Client()
    client.force_login(annotator)
    # The body's object, the labels' object and the lists: MAX_JSON_DEPTH levels in all.
    labels = {"root-cause": nested_list(MAX_JSON_DEPTH - 2)}

    response = post_json(
        client, f"/api/assignments/{held.pk}/submit/", json.dumps({"labels": labels})
    )

    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["labels.root-cause"]


def test_deep_but_legal_json_signs_in(annotator):
    body = {"username": "ann", "password": TEST_PASSWORD, "extra": nested_list(MAX_JSON_DEPTH - 1)}

    response = post_json(Client(), "/api/auth/token/", json.dumps(body))

    assert response.status_code == 200
    assert set(response.json()) == {"token"}


def test_brackets_inside_strings_do_not_count():
    body = json.dumps({"note": "[" * 10_000, "more": ["{" * 500]}).encode()

    assert not json_nesting_exceeds(body, MAX_JSON_DEPTH)


def test_the_limit_itself_is_allowed():
    assert not json_nesting_exceeds(json.dumps(nested_list(10)).encode(), 10)
    assert json_nesting_exceeds(json.dumps(nested_list(11)).encode(), 10)
    assert json_nesting_exceeds(json.dumps({"a": [{"b": nested_list(8)}]}).encode(), 10)


def test_a_body_that_is_not_json_is_left_to_the_parser(study_lead_client):
    assert not json_nesting_exceeds(b"[" * 200 + b"oops", MAX_JSON_DEPTH)

    response = post_json(study_lead_client, "/api/studies/preview/", "{oops")

    assert response.status_code == 400
    assert response.json()["message"].startswith("JSON parse error - Expecting property name")


@pytest.mark.parametrize(
    "content_type", ["application/json", "application/x-www-form-urlencoded", "text/plain"]
)
def test_a_body_over_the_size_limit_is_a_413_in_json(settings, study_lead_client, content_type):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000

    response = study_lead_client.post(
        "/api/studies/preview/", "x" * 1001, content_type=content_type
    )

    assert response.status_code == 413
    assert response.json() == {
        "message": "the request body is larger than 1,000 bytes",
        "fields": {},
    }


def test_a_body_at_the_size_limit_is_read(settings, study_lead_client):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = json.dumps({"codebook": "x" * 900})

    response = post_json(study_lead_client, "/api/studies/preview/", body.ljust(1000))

    assert response.status_code == 200
    assert "seed" in response.json()


def test_a_page_over_the_size_limit_answers_an_html_413(settings, annotator):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000

    response = Client().post("/accounts/login/", {"username": "ann", "password": "x" * 2000})

    assert response.status_code == 413
    assert response["Content-Type"].startswith("text/html")
    assert b"The request body is larger than 1,000 bytes." in response.content


# Strings no database column holds, as a JSON body can write them; each body reaches its view
# with a valid token or session, so that only the string is wrong.
LONE = "\ud800"
UNHOLDABLE = [
    ("/api/auth/token/", {"username": f"ann{LONE}", "password": "x"}, "username"),
    ("/api/studies/", {"name": f"Perf {LONE}", "slug": "perf-2"}, "name"),
    ("/api/studies/preview/", {"frame": {"keywords": [LONE]}}, "frame.keywords[0]"),
    ("/api/imports/", {"repository": f"tensorflow/{LONE}"}, "repository"),
    ("/api/studies/preview/", {"frame": {"labels": ["ok", "a\x00b"]}}, "frame.labels[1]"),
    ("/api/studies/preview/", {"frame": {f"key{LONE}": 1}}, "frame"),
]


@pytest.mark.parametrize(("path", "body", "field"), UNHOLDABLE)
def test_a_string_no_database_holds_is_a_400_naming_its_field(study_lead_client, path, body, field):
    from labeler.models import Study
    from mining.models import ImportJob

    before = (Study.objects.count(), ImportJob.objects.count())

    response = post_json(study_lead_client, path, json.dumps(body))

    assert response.status_code == 400
    answer = response.json()
    assert list(answer["fields"]) == [field]
    assert answer["message"].startswith(f"{field}: ")
    assert (Study.objects.count(), ImportJob.objects.count()) == before


def test_a_surrogate_pair_is_a_character_and_passes(study_lead_client):
    body = json.dumps({"codebook": "x", "frame": {"keywords": ["\U0001f600"]}})
    assert "\\ud83d\\ude00" in body

    assert not json_text_problems(body.encode())
    assert post_json(study_lead_client, "/api/studies/preview/", body).status_code != 500


def test_an_escaped_backslash_before_u0000_is_text():
    assert json_text_problems(json.dumps({"note": "\\u0000"}).encode()) == {}
    assert json_text_problems(json.dumps({"note": "\x00"}).encode()) == {
        "note": ["must not contain the NUL character"]
    }
