"""The members API of a study: its errors name the request's field."""

import pytest

from tests.labeler.calls import assert_error, client_for

pytestmark = pytest.mark.django_db


def test_members_errors_name_the_request_field(study, lead):
    response = client_for(lead).post(
        "/api/studies/perf/members/",
        {"usernames": ["nobody"], "role": "annotator"},
        format="json",
    )

    assert_error(response, "usernames", "no user nobody")


def test_members_refuse_unknown_keys(study, lead):
    response = client_for(lead).post(
        "/api/studies/perf/members/", {"users": ["ann"], "role": "annotator"}, format="json"
    )

    assert_error(response, "users", "did you mean 'usernames'?")
