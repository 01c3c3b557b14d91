"""The sampling frame: a study's own candidate keywords (label rules or keywords select, the kind
still counts) and the fields a sample may be stratified by."""

import datetime as dt

import pytest
from django.core.exceptions import ValidationError
from django.test import override_settings

from labeler.studies.frames import (
    MAX_KEYWORD_LENGTH,
    MAX_KEYWORDS,
    STRATA,
    Candidates,
    FrameQuery,
    StateFilter,
    frame_reports,
    stratum_expression,
)
from mining.models import BugReport
from tests.mining.factories import BugReportFactory, RepositoryFactory


def numbers(frame: FrameQuery) -> list[int]:
    return sorted(frame_reports(frame).values_list("number", flat=True))


@pytest.fixture
def flagged_reports():
    """Reports flagged at import by their repository's rules, and what those rules matched."""
    repo = RepositoryFactory(owner="pytorch", name="pytorch")

    def report(number, title, body="", rules=None, **fields):
        rules = rules or {}
        BugReportFactory(
            repository=repo,
            number=number,
            title=title,
            body=body,
            candidate_rules=rules,
            is_performance_candidate="performance" in rules,
            is_accuracy_candidate="accuracy" in rules,
            **fields,
        )

    report(1, "Training is slow", rules={"performance": ["keyword:slow"]})
    report(2, "Crash on start", rules={"performance": ["label:module: performance"]})
    report(3, "Huge Memory  Leak in DataLoader")
    report(4, "NaN after step 3", rules={"accuracy": ["label:type:accuracy"]})
    report(5, "Wrong results", body="and a memory leak", rules={"accuracy": ["keyword:wrong"]})
    report(6, "Slowness of the docs build")
    report(7, "memory leakage in the allocator", state="open")
    report(8, "memory leak in a stub", is_stub=True)
    return repo


@pytest.mark.django_db
def test_without_keywords_the_stored_flags_decide_as_before(flagged_reports):
    assert numbers(FrameQuery(candidates=Candidates.PERFORMANCE)) == [1, 2]
    assert numbers(FrameQuery(candidates=Candidates.ACCURACY)) == [4, 5]
    assert numbers(FrameQuery(candidates=Candidates.ANY)) == [1, 2, 4, 5]
    assert numbers(FrameQuery()) == [1, 2, 3, 4, 5, 6, 7]


@pytest.mark.django_db
def test_study_keywords_replace_repository_keywords_but_label_rules_still_count(flagged_reports):
    frame = FrameQuery(candidates=Candidates.PERFORMANCE, keywords=("memory leak",))

    # 1 matched only the repository's keyword "slow"; 2 a label rule; 3 and 5 the study keyword
    # (any case, any whitespace); 7 says "leakage", not a whole-word match.
    assert numbers(frame) == [2, 3, 5]


@pytest.mark.django_db
def test_the_kind_picks_which_label_rules_count(flagged_reports):
    keywords = ("memory leak",)

    assert numbers(FrameQuery(candidates=Candidates.ACCURACY, keywords=keywords)) == [3, 4, 5]
    assert numbers(FrameQuery(candidates=Candidates.ANY, keywords=keywords)) == [2, 3, 4, 5]


@pytest.mark.django_db
def test_keywords_without_a_kind_keep_the_reports_mentioning_them(flagged_reports):
    assert numbers(FrameQuery(keywords=("memory leak", "SLOW"))) == [1, 3, 5]


@pytest.mark.django_db
def test_keywords_match_within_the_other_filters(flagged_reports):
    frame = FrameQuery(
        repositories=("pytorch/pytorch",),
        state=StateFilter.OPEN,
        keywords=("memory leakage", "slow"),
    )

    assert numbers(frame) == [7]


def test_keywords_round_trip_through_the_stored_frame():
    frame = FrameQuery.from_dict({"candidates": "any", "keywords": ["  memory   leak ", "slow"]})

    assert frame.keywords == ("memory leak", "slow")
    assert frame.to_dict()["keywords"] == ["memory leak", "slow"]
    assert FrameQuery.from_dict(frame.to_dict()) == frame
    assert FrameQuery.from_dict({}).keywords == ()


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ("slow", "expected a list of texts"),
        (["slow", 3], "entry 2: not a text"),
        (["slow", "  "], "entry 2: empty"),
        (["Slow", "memory leak", "slow"], "entry 3: 'slow' repeats entry 1"),
        (["x" * (MAX_KEYWORD_LENGTH + 1)], f"entry 1: longer than {MAX_KEYWORD_LENGTH}"),
        ([f"word{n}" for n in range(MAX_KEYWORDS + 1)], f"at most {MAX_KEYWORDS} keywords"),
    ],
)
def test_wrong_keywords_are_named_by_field_and_entry(keywords, message):
    with pytest.raises(ValidationError) as raised:
        FrameQuery.from_dict({"keywords": keywords})

    assert list(raised.value.message_dict) == ["keywords"]
    assert message in " ".join(raised.value.message_dict["keywords"])


# -- strata


ALLOWED_STRATA = [
    "repository",
    "state",
    "state_reason",
    "milestone",
    "is_performance_candidate",
    "is_accuracy_candidate",
    "is_non_bug",
    "has_fix",
    "created_year",
]


def test_the_strata_are_an_allow_list_of_fields_with_few_values():
    assert list(STRATA) == ALLOWED_STRATA
    assert all(field.label for field in STRATA.values())


@pytest.mark.parametrize(
    "name",
    [
        "author_login",
        "number",
        "github_id",
        "node_id",
        "html_url",
        "title",
        "body",
        "fix_hours",
        "fix_size",
        "comment_count",
        "created_at",
        "mood",
    ],
)
def test_near_unique_continuous_or_unknown_fields_are_refused_with_the_allowed_ones(name):
    with pytest.raises(ValidationError) as error:
        stratum_expression(name)
    message = error.value.message_dict["stratify"][0]
    assert message.startswith(f"{name!r} is not a field to stratify by")
    assert f"(allowed: {', '.join(ALLOWED_STRATA)})" in message


def test_no_stratify_is_no_strata():
    assert stratum_expression(None) is None
    assert stratum_expression("") is None


@pytest.mark.django_db
def test_every_allowed_stratum_is_a_value_of_the_report(flagged_reports):
    report = BugReport.objects.get(number=7)
    report.milestone = "v2.1"
    report.created_at = dt.datetime(2020, 12, 31, 23, 30, tzinfo=dt.UTC)
    report.save()
    expected = {
        "repository": "pytorch/pytorch",
        "state": "open",
        "state_reason": report.state_reason,
        "milestone": "v2.1",
        "is_performance_candidate": False,
        "is_accuracy_candidate": False,
        "is_non_bug": False,
        "has_fix": report.has_fix,
        "created_year": 2020,
    }

    got = {
        name: BugReport.objects.annotate(stratum=stratum_expression(name))
        .values_list("stratum", flat=True)
        .get(pk=report.pk)
        for name in STRATA
    }

    assert got == expected


@pytest.mark.django_db
@override_settings(TIME_ZONE="Pacific/Kiritimati")
def test_the_creation_year_is_taken_in_utc_whatever_the_server_zone(flagged_reports):
    # 2020-12-31 23:30 UTC is already 2021 in Kiritimati (UTC+14).
    BugReport.objects.filter(number=1).update(
        created_at=dt.datetime(2020, 12, 31, 23, 30, tzinfo=dt.UTC)
    )
    year = (
        BugReport.objects.annotate(stratum=stratum_expression("created_year"))
        .values_list("stratum", flat=True)
        .get(number=1)
    )
    assert year == 2020


def test_describe_names_every_filter_that_is_set():
    frame = FrameQuery(
        repositories=("a/b", "c/d"),
        candidates=Candidates.PERFORMANCE,
        state=StateFilter.CLOSED,
        has_fix=False,
        labels=("perf",),
        created_from=dt.date(2030, 1, 1),
        created_to=dt.date(2030, 12, 31),
        keywords=("slow",),
    )

    assert frame.describe() == (
        "filters: repositories a/b, c/d; performance candidates; state closed; without a fix; "
        "labels perf; created from 2030-01-01; created to 2030-12-31; keywords slow"
    )
    assert FrameQuery(has_fix=True).describe() == "filters: with a linked fix"
    assert FrameQuery().describe() == "no filters"
