"""The analysis pages: report groups compared (every signed-in user) and a study's analysis
(its leads and researchers, and staff), each table with its chart and CSV name."""

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from labeler.common.roles import Role
from tests.mining.factories import BugReportFactory, RepositoryFactory

pytestmark = pytest.mark.django_db

COMPARE = "/reports/compare/"
ANALYSIS = "/studies/perf/analysis/"


@pytest.fixture
def six_fixed_reports():
    repo = RepositoryFactory(full_name="octo/x")
    for number in range(6):
        BugReportFactory(
            repository=repo,
            is_performance_candidate=number < 3,
            has_fix=True,
            fix_size=number + 1,
            fix_hours=10.0 * (number + 1),
        )


def html_of(response):
    return response.content.decode()


@pytest.mark.parametrize("url", [COMPARE, ANALYSIS])
def test_anonymous_is_sent_to_sign_in(client, decided, url):
    response = client.get(url)

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


@pytest.mark.parametrize("role", ["annotator", "lead", "researcher", "admin_user"])
def test_every_signed_in_user_compares_report_groups(client, request, six_fixed_reports, role):
    client.force_login(request.getfixturevalue(role))

    empty = client.get(COMPARE)
    assert empty.status_code == 200
    assert 'name="a-candidate"' in html_of(empty) and 'name="b-candidate"' in html_of(empty)
    assert "plotly.min.js" not in html_of(empty)  # no chart, no chart library

    response = client.get(COMPARE, {"a": "candidate=performance", "b": "candidate=none"})
    html = html_of(response)
    assert response.status_code == 200
    assert "A: 3 reports · B: 3 reports" in html
    assert 'data-csv="comparison.csv"' in html and 'data-csv="trend.csv"' in html
    assert html.count('data-chart="box"') == 6 and html.count('data-chart="line"') == 1
    assert "vendor/plotly/plotly.min.js" in html and "js/charts_page.js" in html
    # The filter form shows the group it was given.
    assert re.search(r'<option value="performance" selected>', html)
    assert "compare_reports --a candidate=performance --b candidate=none" in html
    assert "/api/reports/compare/?a=candidate%3Dperformance&amp;b=candidate%3Dnone" in html


def test_the_filter_forms_turn_into_the_groups_query_strings_of_what_they_filter(
    client, annotator, six_fixed_reports
):
    client.force_login(annotator)

    response = client.get(
        COMPARE,
        {
            "a-candidate": "performance",
            "a-state": "",
            "a-has_fix": "unknown",
            "a-created_after": "tomorrow",
            "a-study": "perf",
            "b-has_fix": "true",
            "of": "repository=octo/x",
        },
    )

    assert response.status_code == 302
    location = urlsplit(response["Location"])
    assert location.path == COMPARE
    assert parse_qs(location.query, keep_blank_values=True) == {
        "a": ["candidate=performance&created_after=tomorrow&study=perf"],
        "b": ["has_fix=true"],
        "of": ["repository=octo/x"],
    }


def test_a_bad_group_is_shown_with_its_parameter(client, annotator, six_fixed_reports):
    client.force_login(annotator)

    response = client.get(COMPARE, {"a": "created_after=soon", "b": "", "of": "stat=open"})

    assert response.status_code == 400
    html = html_of(response)
    assert "created_after: not a date (YYYY-MM-DD) or an ISO 8601 date and time" in html
    assert "stat: unknown parameter &#x27;stat&#x27;; did you mean &#x27;state&#x27;?" in html
    assert 'data-testid="comparison"' not in html


def test_a_study_group_keeps_its_study_parameters_in_the_form(client, decided, lead):
    client.force_login(lead)

    response = client.get(COMPARE, {"a": "study=perf&final=root-cause:memory", "b": "study=perf"})

    html = html_of(response)
    assert response.status_code == 200
    assert '<input type="hidden" name="a-study" value="perf">' in html
    assert '<input type="hidden" name="a-final" value="root-cause:memory">' in html
    assert "A: 2 reports · B: 6 reports" in html


@pytest.mark.parametrize(
    ("role", "status"), [("lead", 200), ("researcher", 200), ("annotator", 403)]
)
def test_a_studys_leads_and_researchers_see_its_analysis(client, request, decided, role, status):
    client.force_login(request.getfixturevalue(role))

    assert client.get(ANALYSIS).status_code == status
    detail = html_of(client.get("/studies/perf/"))
    assert ('data-testid="analysis-link"' in detail) == (status == 200)


def test_staff_see_it_and_others_find_no_study(client, decided, make_user):
    client.force_login(make_user(username="staffer", is_staff=True))
    assert client.get(ANALYSIS).status_code == 200
    client.force_login(make_user(Role.LEAD, username="outsider"))
    assert client.get(ANALYSIS).status_code == 404


def test_the_analysis_counts_crosses_compares_and_follows_final_labels(client, decided, lead):
    client.force_login(lead)

    response = client.get(ANALYSIS)

    html = html_of(response)
    assert "4 of 6 items have a final label" in html
    assert html.count('data-chart="bar"') == 2
    assert 'data-csv="perf-root-cause-counts.csv"' in html
    assert 'data-label="2 (50.0%)"' in html  # memory: 2 of the 4 items with a root cause
    # Root cause has sub-categories, counted in their parent's row too; impact has none.
    root_cause = html[html.index('data-testid="counts-root-cause"') :]
    root_cause = root_cause[: root_cause.index("</figcaption>")]
    assert "A category's row includes the items of its sub-categories" in root_cause
    assert "the shares add up to more than 100%" in root_cause
    assert html.count('data-testid="counts-nested"') == 1
    # By default the first dimension by the second, and its first category against the rest.
    assert 'data-chart="heatmap"' in html and "3 items, 1 left out" in html
    assert "study=perf&amp;final=root-cause%3Amemory" in html
    assert "study=perf&amp;final_not=root-cause%3Amemory" in html
    assert "A: 2 reports · B: 2 reports" in html
    assert html.count('data-chart="box"') == 6
    assert 'data-testid="trend-table"' in html
    assert "vendor/plotly/plotly.min.js" in html


def test_the_cross_tabulation_takes_its_axes_and_level(client, decided, lead):
    client.force_login(lead)

    response = client.get(
        ANALYSIS,
        {
            "rows": "root-cause",
            "columns": "repository",
            "level": "sub-category",
            "a_final": "impact:speed",
            "b_final": "",
            "trend": "root-cause:threading",
        },
    )

    html = html_of(response)
    assert response.status_code == 200
    table = html.split('data-testid="crosstab-table"')[1].split("</table>")[0]
    assert '<th class="num" data-series>octo/tf</th>' in table
    assert table.count("<tr>") == 5  # header, three categories as chosen, total
    assert "A: 2 reports · B: 6 reports" in html


def test_a_bad_group_filter_is_put_on_its_field(client, decided, lead):
    client.force_login(lead)

    response = client.get(
        ANALYSIS,
        {"rows": "root-cause", "columns": "impact", "level": "category", "a_query": "stat=x",
         "trend": "root-cause:memory"},
    )  # fmt: skip

    assert response.status_code == 400
    assert 'data-testid="error-a_query"' in html_of(response)
    assert "stat: unknown parameter" in html_of(response)
