"""GET /api/reports/compare/: two groups of reports compared, for every signed-in user; a
study's final labels for its leads and researchers."""

import pytest
from scipy import stats

from labeler.analysis.comparison import comparison_json, reports_compare
from labeler.analysis.groups import report_groups
from tests.labeler.calls import assert_error, client_for
from tests.labeler.final_labels import items_of
from tests.mining.factories import BugReportFactory, RepositoryFactory

pytestmark = pytest.mark.django_db

URL = "/api/reports/compare/"
A = "repository=pytorch/pytorch&candidate=performance&has_fix=true"
B = "repository=pytorch/pytorch&candidate=none"


@pytest.fixture
def twelve_torch_reports():
    torch = RepositoryFactory(full_name="pytorch/pytorch", name="pytorch")
    for number in range(12):
        BugReportFactory(
            repository=torch,
            is_performance_candidate=number % 2 == 0,
            has_fix=number % 3 != 0,
            fix_size=10 * number + 1 if number % 3 else None,
            fix_hours=5.0 * number + 1,
            comment_count=number,
            commenter_count=number // 2,
            participant_count=number // 2 + 1,
        )


def expected(a, b, user=None):
    first, second = report_groups(queries={"a": a, "b": b}, user=user)
    # No group here names a study a screening model drew items of (tests/labeler/screening).
    no_model = {"studies": [], "note": None}
    return {**comparison_json(reports_compare(a=first, b=second)), "prioritised": no_model}


@pytest.mark.parametrize("role", ["annotator", "lead", "researcher", "admin_user"])
def test_every_signed_in_user_compares_reports(request, twelve_torch_reports, role):
    response = client_for(request.getfixturevalue(role)).get(URL, {"a": A, "b": B})

    assert response.status_code == 200
    body = response.json()
    assert body == expected(A, B)
    assert body["a"] == {"query": A, "n": 4} and body["b"]["n"] == 6
    assert set(body) == {"a", "b", "measures", "prioritised"}
    assert [row["measure"] for row in body["measures"]] == [
        "time_to_fix_days",
        "fix_size_lines",
        "time_to_first_comment_hours",
        "comments",
        "commenters",
        "participants",
    ]
    row = body["measures"][3]
    assert set(row) == {
        "measure", "a", "b", "mann_whitney_u", "p_value", "cliffs_delta", "magnitude"
    }  # fmt: skip
    assert set(row["a"]) == {"n", "median", "mean", "q1", "q3"}
    # Comments of a (performance, with a fix): 2, 4, 8, 10; of b: 1, 3, 5, 7, 9, 11.
    scipy_test = stats.mannwhitneyu([2, 4, 8, 10], [1, 3, 5, 7, 9, 11], alternative="two-sided")
    assert row["mann_whitney_u"] == scipy_test.statistic
    assert row["p_value"] == pytest.approx(scipy_test.pvalue)


def test_anonymous_is_asked_to_sign_in(api_client, twelve_torch_reports):
    response = api_client.get(URL, {"a": A, "b": B})

    assert response.status_code == 401
    assert set(response.json()) == {"message", "fields"}


def test_a_bad_group_is_a_400_naming_the_group_and_the_parameter(annotator, twelve_torch_reports):
    client = client_for(annotator)

    response = client.get(URL, {"a": "created_after=yesterday", "b": B})
    assert_error(
        response, "a", "created_after: not a date (YYYY-MM-DD) or an ISO 8601 date and time"
    )
    assert (
        response.json()["message"]
        == "a: created_after: not a date (YYYY-MM-DD) or an ISO 8601 date and time"
    )

    response = client.get(URL, {"a": A, "b": "candidate=slow&hasfix=true"})
    assert response.json()["fields"] == {
        "b": [
            "candidate: Select a valid choice. slow is not one of the available choices.",
            "hasfix: unknown parameter 'hasfix'; did you mean 'has_fix'?",
        ]
    }
    assert_error(client.get(URL, {"a": A}), "b", "This field is required.")


def test_a_query_not_url_encoded_is_refused_with_a_hint(annotator, twelve_torch_reports):
    response = client_for(annotator).get(f"{URL}?a=repository=pytorch/pytorch&candidate=none&b=")

    assert_error(response, "candidate", "unknown parameter 'candidate'", "URL-encoded")
    assert client_for(annotator).get(URL, {"a": A, "bb": ""}).json()["fields"]["bb"] == [
        "unknown parameter 'bb'; did you mean 'b'?"
    ]


def test_a_studys_final_labels_make_a_group_for_its_leads_and_researchers(
    decided, lead, researcher, annotator, make_user
):
    a, b = "study=perf&final=root-cause:memory", "study=perf&final_not=root-cause:memory"
    items = items_of(decided)

    for user in (lead, researcher):
        body = client_for(user).get(URL, {"a": a, "b": b}).json()
        assert body == expected(a, b, user=lead)
        size = body["measures"][1]
        # Memory: items 0 and 1 (10 and 30 lines); the rest: items 2 and 4 (5 and 50).
        assert (size["a"]["n"], size["a"]["median"]) == (2, 20.0)
        assert (size["b"]["n"], size["b"]["median"]) == (2, 27.5)
        assert body["a"]["n"] == 2 and items[0].report.fix_size == 10

    response = client_for(annotator).get(URL, {"a": a, "b": ""})
    assert_error(response, "a", "study: only the leads and researchers of 'perf'")
    outsider = make_user(username="outsider")
    assert_error(client_for(outsider).get(URL, {"a": "", "b": b}), "b", "study: no study 'perf'")
