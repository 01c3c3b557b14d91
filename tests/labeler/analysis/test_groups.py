"""Groups of reports from a QUERY: the report list's filters, and a study's final labels."""

import pytest
from django.core.exceptions import ValidationError

from labeler.analysis.groups import report_group, report_groups
from labeler.common.roles import Role
from mining.models import BugReport
from tests.labeler.final_labels import items_of
from tests.mining.factories import BugReportFactory

pytestmark = pytest.mark.django_db


def numbers(group):
    return sorted(group.reports.values_list("number", flat=True))


def reports_of(study, *positions):
    items = items_of(study)
    return sorted(items[position].report.number for position in positions)


def problems(call):
    with pytest.raises(ValidationError) as caught:
        call()
    return caught.value.message_dict


def test_a_query_selects_with_the_report_list_filters_and_keeps_its_text():
    slow = BugReportFactory(is_performance_candidate=True, has_fix=True)
    BugReportFactory(repository=slow.repository, is_performance_candidate=True)
    BugReportFactory(repository=slow.repository, is_stub=True, is_performance_candidate=True)

    group = report_group(name="a", query="candidate=performance&has_fix=true")

    assert group.name == "a" and group.query == "candidate=performance&has_fix=true"
    assert list(group.reports) == [slow]
    assert report_group(name="b", query="").reports.count() == 2  # imported ones only


def test_bad_parameters_are_named_with_their_group():
    errors = problems(
        lambda: report_groups(
            queries={"a": "created_after=soon", "b": "repo=x&state=gone"},
        )
    )

    assert errors == {
        "a": ["created_after: not a date (YYYY-MM-DD) or an ISO 8601 date and time"],
        "b": [
            "repo: unknown parameter 'repo'; did you mean 'repository'?",
            "state: Select a valid choice. gone is not one of the available choices.",
        ],
    }


def test_a_study_group_is_its_items_with_a_final_label(decided, lead):
    assert numbers(report_group(name="a", query="study=perf", user=lead)) == reports_of(
        decided, 0, 1, 2, 3, 4, 5
    )
    memory = report_group(name="a", query="study=perf&final=root-cause:memory", user=lead)
    assert numbers(memory) == reports_of(decided, 0, 1)
    leak = report_group(name="a", query="study=perf&final=root-cause:memory/leak", user=lead)
    # Item 3's annotators disagreed on it: no final root cause.
    assert numbers(leak) == reports_of(decided, 0)
    rest = report_group(name="b", query="study=perf&final_not=root-cause:memory", user=lead)
    assert numbers(rest) == reports_of(decided, 2, 4)
    with_root_cause = report_group(name="b", query="study=perf&final=root-cause", user=lead)
    assert numbers(with_root_cause) == reports_of(decided, 0, 1, 2, 4)


def test_final_conditions_all_hold_and_combine_with_report_filters(decided, researcher):
    both = report_group(
        name="a",
        query="study=perf&final=root-cause:memory&final=impact:memory-use",
        user=researcher,
    )
    assert numbers(both) == reports_of(decided, 1)
    torch = report_group(
        name="a", query="study=perf&final=impact:speed&repository=octo/torch", user=researcher
    )
    assert numbers(torch) == reports_of(decided, 0, 1)
    tf = report_group(
        name="a", query="study=perf&final=impact:speed&repository=octo/tf", user=researcher
    )
    assert numbers(tf) == []  # item 3's speed impact is not final: its root cause is disputed


def test_a_study_group_within_other_reports_keeps_to_them(decided, lead):
    within = BugReport.objects.filter(repository__full_name="octo/torch")

    group = report_group(name="a", query="study=perf&final=root-cause", user=lead, within=within)

    assert numbers(group) == reports_of(decided, 0, 1)


def test_bad_study_parameters_are_named(decided, lead):
    assert problems(lambda: report_group(name="a", query="final=root-cause:memory")) == {
        "a": ["final: needs study=SLUG, the study whose final labels count"]
    }
    errors = problems(
        lambda: report_group(
            name="b",
            query="study=perf&final=rootcause:memory&final=root-cause:memroy&final_not=impact"
            "&final=impact:&stat=open",
            user=lead,
        )
    )
    assert errors == {
        "b": [
            "final: no dimension 'rootcause' in study 'perf'; did you mean 'root-cause'?",
            "final: no category 'memroy' in dimension 'root-cause'; did you mean 'memory'?",
            "final: 'impact:' is not DIMENSION:PATH or DIMENSION, e.g. root-cause:memory",
            "final_not: 'impact' is not DIMENSION:PATH, e.g. root-cause:memory",
            "stat: unknown parameter 'stat'; did you mean 'state'?",
        ]
    }
    assert problems(lambda: report_group(name="a", query="study=perf&study=perf", user=lead)) == {
        "a": ["study: given 2 times; give it once"]
    }


def test_only_who_may_analyse_a_study_groups_by_its_labels(decided, annotator, make_user):
    assert problems(lambda: report_group(name="a", query="study=perf", user=annotator)) == {
        "a": ["study: only the leads and researchers of 'perf' may analyse its labels"]
    }
    outsider = make_user(Role.LEAD, username="outsider")
    for slug in ("perf", "nothing"):
        assert problems(
            lambda s=slug: report_group(name="a", query=f"study={s}", user=outsider)
        ) == {"a": [f"study: no study {slug!r}"]}
    staff = make_user(username="staffer", is_staff=True)
    assert report_group(name="a", query="study=perf", user=staff).reports.count() == 6
    # The command line (no user) reads every study.
    assert report_group(name="a", query="study=perf").reports.count() == 6
    assert problems(lambda: report_group(name="a", query="study=nothing")) == {
        "a": ["study: no study 'nothing'"]
    }
