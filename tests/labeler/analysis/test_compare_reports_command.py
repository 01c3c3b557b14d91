"""compare_reports: the comparison of the API from the command line."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.labeler.calls import client_for
from tests.mining.factories import BugReportFactory, RepositoryFactory

pytestmark = pytest.mark.django_db

A = "repository=octo/a&has_fix=true"
B = "repository=octo/b"


def run(*args) -> str:
    out = StringIO()
    call_command("compare_reports", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def reports_of_two_repositories():
    for repository, sizes in (("octo/a", (1, 2, 3)), ("octo/b", (4, 5, 6, 7))):
        repo = RepositoryFactory(full_name=repository)
        for size in sizes:
            BugReportFactory(repository=repo, has_fix=True, fix_size=size, fix_hours=24.0 * size)
    BugReportFactory(repository=repo, fix_size=None, comment_count=2)


def test_json_is_the_apis(reports_of_two_repositories, annotator):
    printed = json.loads(run("--a", A, "--b", B, "--json"))

    assert printed == client_for(annotator).get("/api/reports/compare/", {"a": A, "b": B}).json()
    assert printed["a"] == {"query": A, "n": 3} and printed["b"] == {"query": B, "n": 5}
    size = printed["measures"][1]
    assert size["measure"] == "fix_size_lines"
    assert (size["a"]["n"], size["b"]["n"]) == (3, 4)
    assert size["p_value"] == pytest.approx(2 / 35) and size["magnitude"] == "large"


def test_the_table_names_the_groups_and_every_measure(reports_of_two_repositories):
    printed = run("--a", A, "--b", B)

    lines = printed.splitlines()
    assert lines[0] == f"a: {A} -> 3 reports"
    assert lines[1] == f"b: {B} -> 5 reports"
    assert lines[3].split() == [
        "measure", "n", "a", "median", "a", "n", "b", "median", "b", "U", "p", "delta", "magnitude"
    ]  # fmt: skip
    size = next(line for line in lines if line.startswith("Fix size"))
    assert size.split()[-6:] == ["4", "5.50", "0", "0.057", "-1", "large"]
    assert "Time to first comment (hours)" in printed
    assert (
        "time_to_first_comment_hours: no p-value and no Cliff's delta: group a has no values"
        in printed
    )
    assert run("--a", "", "--b", B).splitlines()[0] == "a: (every imported report) -> 8 reports"


def test_a_bad_query_names_the_group_and_the_parameter(reports_of_two_repositories):
    with pytest.raises(CommandError) as caught:
        run("--a", "closed_before=later", "--b", "stat=open")

    assert str(caught.value) == (
        "a: closed_before: not a date (YYYY-MM-DD) or an ISO 8601 date and time; "
        "b: stat: unknown parameter 'stat'; did you mean 'state'?"
    )
