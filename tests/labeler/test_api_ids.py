"""Ids in API addresses: one too large for the database, or not ASCII digits, names nothing."""

import pytest
from rest_framework.test import APIClient

from config.api import MAX_ID
from labeler.labelling.services import assignment_next
from tests.labeler.calls import client_for

pytestmark = pytest.mark.django_db

HUGE = "99999999999999999999"


ROUTES = [
    ("post", "/api/assignments/{id}/submit/", {"labels": {}}),
    ("post", "/api/assignments/{id}/skip/", {"reason": "cannot_judge"}),
    ("get", "/api/assignments/{id}/", None),
    ("get", "/api/items/{id}/", None),
    ("patch", "/api/items/{id}/", {"priority": 1}),
    ("get", "/api/items/{id}/history/", None),
    ("get", "/api/annotations/{id}/", None),
]


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
@pytest.mark.parametrize("user", ["annotator", "lead"])
@pytest.mark.parametrize("value", [HUGE, str(MAX_ID + 1), "9" * 5000])
def test_an_id_beyond_bigint_is_a_404(request, study, method, path, body, user, value):
    client = client_for(request.getfixturevalue(user))

    response = getattr(client, method)(path.format(id=value), body, format="json")

    assert response.status_code == 404
    assert response.json() == {"message": "Not found.", "fields": {}}


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
def test_the_largest_bigint_is_looked_up_and_not_found(study, annotator, method, path, body):
    response = getattr(client_for(annotator), method)(path.format(id=MAX_ID), body, format="json")

    assert response.status_code == 404
    assert set(response.json()) == {"message", "fields"}


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
def test_anonymous_is_asked_to_sign_in_before_the_id_is_looked_at(study, method, path, body):
    response = getattr(APIClient(), method)(path.format(id=HUGE), body, format="json")

    assert response.status_code == 401


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
def test_digits_of_other_scripts_and_words_are_no_id(study, annotator, method, path, body):
    held = assignment_next(study=study, user=annotator)
    arabic = str(held.pk).translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"))
    client = client_for(annotator)

    for value in (arabic, "abc", "-1", "1e3"):
        response = getattr(client, method)(path.format(id=value), body, format="json")
        assert response.status_code == 404, value
        assert response.json() == {"message": "Not found.", "fields": {}}


def test_submit_and_skip_still_take_a_real_id(study, annotator):
    held = assignment_next(study=study, user=annotator)

    response = client_for(annotator).post(
        f"/api/assignments/{held.pk}/skip/", {"reason": "cannot_judge"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["status"] == "skipped"
