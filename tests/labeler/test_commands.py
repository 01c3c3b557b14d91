"""create_study, study_members and import_annotations from the command line."""

import datetime as dt
import json

import pytest
from django.core.management import CommandError, call_command

from labeler.models import Annotation, Study, StudyMember, StudyMemberRemoval
from mining.models import BugReport
from tests.labeler.factories import UserFactory, labelling_codebook
from tests.mining.factories import BugReportFactory, RepositoryFactory

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    from io import StringIO

    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def perf_codebook():
    return labelling_codebook(key="perf", version="1.0")


@pytest.fixture
def three_hundred_reports():
    torch = RepositoryFactory(owner="pytorch", name="pytorch")
    tf = RepositoryFactory(owner="tensorflow", name="tensorflow")
    for number in range(1, 301):
        BugReportFactory(
            repository=torch if number <= 200 else tf,
            number=number,
            is_performance_candidate=number % 2 == 0,
            state="closed",
        )


@pytest.fixture
def other_report():
    """A report outside the repositories the tests import labels for: a study needs one."""
    return BugReportFactory(repository=RepositoryFactory(owner="other", name="repo"), number=1)


def test_create_study_prints_frame_sample_and_strata(perf_codebook, three_hundred_reports):
    out = run(
        "create_study",
        "perf-study",
        "--codebook",
        "perf",
        "--candidates",
        "performance",
        "--state",
        "closed",
        "--confidence",
        "0.95",
        "--margin",
        "0.05",
        "--stratify",
        "repository",
        "--seed",
        "9",
        "--overlap",
        "3",
    )
    # N = 150 candidates: n0 = 384.1, n = 384.1 / (1 + 383.1 / 150) = 108.1 -> 109
    assert "frame size: 150" in out
    assert "sample size: 109" in out
    words = " ".join(out.split())
    assert "strata by repository: pytorch/pytorch 73 of 100 tensorflow/tensorflow 36 of 50" in words
    study = Study.objects.get(slug="perf-study")
    assert (study.overlap, study.seed, study.items.count()) == (3, 9, 109)
    assert study.codebook.frozen


def test_create_study_json_and_dimensions_and_repo(perf_codebook, three_hundred_reports):
    out = run(
        "create_study",
        "s",
        "--codebook",
        "perf@1.0",
        "--dimensions",
        "root-cause",
        "--repo",
        "tensorflow/tensorflow",
        "--sample",
        "10",
        "--json",
    )
    result = json.loads(out)
    assert result["dimensions"] == ["root-cause"]
    assert (result["frame_size"], result["sample_size"]) == (100, 10)
    assert isinstance(result["seed"], int)


def test_dry_run_creates_nothing(perf_codebook, three_hundred_reports):
    out = run("create_study", "s", "--codebook", "perf", "--sample", "5", "--dry-run")
    assert "frame size: 300" in out
    assert "sample size: 5" in out
    assert not Study.objects.exists()


def test_create_study_stratifies_by_the_year_opened(perf_codebook, three_hundred_reports):
    out = run(
        "create_study", "s", "--codebook", "perf", "--sample", "30", "--stratify", "created_year"
    )

    assert "strata by created_year: 2021 30 of 300" in " ".join(out.split())
    assert Study.objects.get(slug="s").items.count() == 30


def test_create_study_names_empty_and_yes_no_strata_as_the_web_does(
    perf_codebook, three_hundred_reports
):
    BugReport.objects.filter(number__gt=200).update(milestone="v2")

    by_milestone = run(
        "create_study", "s", "--codebook", "perf", "--stratify", "milestone", "--dry-run"
    )
    by_fix = run("create_study", "s", "--codebook", "perf", "--stratify", "has_fix", "--dry-run")

    assert "strata by milestone: (none) 200 of 200 v2 100 of 100" in " ".join(by_milestone.split())
    assert "strata by has_fix: no 300 of 300" in " ".join(by_fix.split())


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--codebook", "nope"], "--codebook nope: no such codebook (loaded: perf@1.0)"),
        (["--codebook", "perf", "--repo", "a/b"], "repositories: no imported repository 'a/b'"),
        (["--codebook", "perf", "--dimensions", "x"], "has no dimension 'x'"),
        (["--codebook", "perf", "--confidence", "0.95"], "--confidence needs --margin"),
        (
            ["--codebook", "perf", "--confidence", "0.95", "--margin", "1e-300"],
            "sample.margin: must be between 0.005 and 0.5, e.g. 0.05 (not 1e-300)",
        ),
        (
            ["--codebook", "perf", "--confidence", "0.9999999999999999", "--margin", "0.05"],
            "sample.confidence: must be between 0.5 and 0.999",
        ),
        (
            ["--codebook", "perf", "--stratify", "author_login"],
            "stratify: 'author_login' is not a field to stratify by (allowed: repository, state, "
            "state_reason, milestone, is_performance_candidate, is_accuracy_candidate, "
            "is_non_bug, has_fix, created_year)",
        ),
    ],
)
def test_create_study_errors_name_what_is_wrong(perf_codebook, three_hundred_reports, args, words):
    with pytest.raises(CommandError) as error:
        run("create_study", "s", *args)
    assert words in str(error.value)
    assert not Study.objects.exists()


@pytest.fixture
def keyword_reports():
    repo = RepositoryFactory(owner="pytorch", name="pytorch")
    for number, title, rules in [
        (1, "Memory leak in the loader", {}),
        (2, "Slow import", {}),
        (3, "Crash on start", {"performance": ["label:module: performance"]}),
        (4, "Crash on exit", {"performance": ["keyword:crash"]}),
    ]:
        BugReportFactory(
            repository=repo,
            number=number,
            title=title,
            candidate_rules=rules,
            is_performance_candidate=bool(rules),
        )


def test_create_study_takes_keywords_from_the_option_and_a_file(
    perf_codebook, keyword_reports, tmp_path
):
    words = tmp_path / "keywords.txt"
    words.write_text("# the seed study's favourite\nslow  # as a whole word\n\n", "utf-8")
    args = ["--codebook", "perf", "--candidates", "performance", "--keywords", "memory leak"]

    dry = run("create_study", "s", *args, "--keywords-file", str(words), "--dry-run")
    result = json.loads(run("create_study", "s", *args, "--keywords-file", str(words), "--json"))

    assert "candidate keywords: memory leak, slow" in dry
    assert "frame size: 3" in dry
    assert result["keywords"] == ["memory leak", "slow"]
    assert result["frame_size"] == 3
    study = Study.objects.get(slug="s")
    assert study.frame["keywords"] == ["memory leak", "slow"]
    assert sorted(study.items.values_list("report__number", flat=True)) == [1, 2, 3]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--keywords", "slow,Slow"], "keywords: entry 2: 'Slow' repeats entry 1"),
        (["--keywords-file", "/no/such/file"], "--keywords-file /no/such/file:"),
    ],
)
def test_create_study_keyword_errors_name_the_keyword(perf_codebook, keyword_reports, args, words):
    with pytest.raises(CommandError) as error:
        run("create_study", "s", "--codebook", "perf", *args)
    assert words in str(error.value)
    assert not Study.objects.exists()


def test_study_members(perf_codebook, other_report):
    run("create_study", "s", "--codebook", "perf")
    UserFactory(username="alice")
    with pytest.raises(CommandError, match="no user bob"):
        run("study_members", "s", "--add", "alice", "bob", "--role", "annotator")
    out = run(
        "study_members", "s", "--add", "alice", "bob", "--role", "annotator", "--create-users"
    )
    assert out.splitlines() == [
        "annotator   alice",
        "annotator   bob",
        "no password yet (cannot sign in): bob; set one with "
        "`python manage.py changepassword USER` or on the admin's user page",
    ]
    run("study_members", "s", "--remove", "bob", "--role", "annotator")
    assert list(StudyMember.objects.values_list("user__username", flat=True)) == ["alice"]
    # Bob's labels, had he given any, would show as by a removed member.
    removed = StudyMemberRemoval.objects.get()
    assert (removed.user.username, removed.role) == ("bob", "annotator")
    with pytest.raises(CommandError, match="no study"):
        run("study_members", "t", "--add", "alice", "--role", "lead")


def test_import_annotations(perf_codebook, other_report, tmp_path):
    run("create_study", "s", "--codebook", "perf")
    BugReportFactory(repository=RepositoryFactory(owner="pytorch", name="pytorch"), number=5)
    good = tmp_path / "labels.csv"
    good.write_text(
        "item,annotator,dimension,value\n"
        "pytorch/pytorch#5,alice,root-cause,memory/leak\n"
        "pytorch/pytorch#6,alice,root-cause,threading\n"
    )
    with pytest.raises(CommandError) as error:
        run("import_annotations", "s", str(good))
    assert str(error.value) == (
        f"1 problem; nothing was imported:\n{good}:3: unknown item pytorch/pytorch#6 (not "
        "imported; import its repository first, or pass --create-missing-reports to create a stub)"
    )
    assert not Annotation.objects.exists()

    out = run("import_annotations", "s", str(good), "--create-missing-reports")
    assert out.strip() == (
        "imported 2 labels: 2 submissions, 2 items added to s, 1 stub reports, 1 new users"
    )
    assert Annotation.objects.count() == 2


def test_import_annotations_bad_encoding(perf_codebook, other_report, tmp_path):
    run("create_study", "s", "--codebook", "perf")
    bad = tmp_path / "latin1.csv"
    bad.write_bytes("item,annotator,dimension,value\na/b#1,Jérôme,root-cause,x\n".encode("latin-1"))
    with pytest.raises(CommandError, match=r"latin1.csv:2: not UTF-8"):
        run("import_annotations", "s", str(bad))


@pytest.fixture
def demo_reports():
    repo = RepositoryFactory(owner="demo-org", name="torch-demo")
    for number in range(1, 44):
        BugReportFactory(repository=repo, number=number)


def test_create_study_refuses_an_empty_frame_naming_the_filters(perf_codebook, demo_reports):
    args = ["s2", "--codebook", "perf", "--repo", "demo-org/torch-demo"]
    args += ["--created-from", "2030-01-01"]

    with pytest.raises(CommandError) as error:
        run("create_study", *args)
    dry = run("create_study", *args, "--dry-run")

    assert str(error.value) == (
        "frame: matched no report (filters: repositories demo-org/torch-demo; created from "
        "2030-01-01): a study needs at least one item; widen the frame"
    )
    assert not Study.objects.exists()
    assert "frame size: 0" in dry and "sample size: 0" in dry
    assert "the frame matched no report (filters: repositories demo-org/torch-demo;" in dry


def test_create_study_says_when_the_sample_is_capped_at_the_frame(perf_codebook, demo_reports):
    args = ["s", "--codebook", "perf", "--repo", "demo-org/torch-demo", "--sample", "1000"]

    dry = run("create_study", *args, "--dry-run")
    out = run("create_study", *args)
    result = json.loads(run("create_study", "t", *args[1:], "--json"))

    capped = "sample capped at the frame size: 43 (asked for 1000)"
    assert capped in dry.splitlines()
    assert capped in out.splitlines()
    assert "sample size: 43" in out
    assert result["warnings"] == [capped]
    assert Study.objects.get(slug="s").items.count() == 43


def test_create_study_sets_the_hold_time(perf_codebook, demo_reports):
    out = run("create_study", "s", "--codebook", "perf", "--hold-minutes", "90")
    result = json.loads(run("create_study", "t", "--codebook", "perf", "--json"))

    assert "hold time 90 min" in out
    assert Study.objects.get(slug="s").hold_timeout == dt.timedelta(minutes=90)
    assert result["hold_minutes"] == 30
    assert Study.objects.get(slug="t").hold_timeout == dt.timedelta(minutes=30)


@pytest.mark.parametrize("minutes", ["0", "-1", "1441"])
def test_create_study_refuses_a_hold_time_out_of_range(perf_codebook, demo_reports, minutes):
    with pytest.raises(CommandError) as error:
        run("create_study", "s", "--codebook", "perf", "--hold-minutes", minutes)

    assert str(error.value) == (
        f"--hold-minutes {minutes}: must be between 1 and 1440 minutes (24 hours)"
    )
    assert not Study.objects.exists()


def test_create_study_makes_an_open_coding_study_from_dimension_names(three_hundred_reports):
    out = run(
        "create_study",
        "open-round",
        "--kind",
        "open",
        "--dimension-names",
        "root cause, symptom",
        "--codes-shared",
        "--sample",
        "10",
        "--seed",
        "3",
    )

    study = Study.objects.get(slug="open-round")
    assert study.kind == Study.Kind.OPEN
    assert study.codes_shared is True
    assert study.items.count() == 10
    assert study.boards.filter(kind="open").count() == 1
    dimensions = list(study.dimensions.order_by("position").values_list("name", flat=True))
    assert dimensions == ["root cause", "symptom"]
    assert "open coding (codes shared)" in out
    assert f"codebook {study.codebook.key}@open" in out


def test_create_study_makes_an_open_coding_study_on_a_codebook(
    perf_codebook, three_hundred_reports
):
    data = json.loads(run("create_study", "o", "--kind", "open", "--codebook", "perf", "--json"))

    assert data["kind"] == "open"
    assert data["codes_shared"] is False
    assert data["codebook"] == "perf@1.0"
    assert Study.objects.get(slug="o").kind == Study.Kind.OPEN


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ([], "a closed-coding study labels with a codebook"),
        (["--dimension-names", "root cause"], "only an open-coding study names its own"),
        (["--kind", "open"], "names the dimensions it codes"),
        (["--kind", "open", "--codebook", "perf", "--dimension-names", "x"], "name dimensions"),
        (["--kind", "open", "--dimension-names", "x", "--dry-run"], None),
        (["--codes-shared", "--codebook", "perf", "--dry-run"], "only an open-coding study has"),
    ],
)
def test_create_study_checks_the_kind_of_study(perf_codebook, three_hundred_reports, args, words):
    if words is None:  # a dry run of a valid open study prints its figures and writes nothing
        assert "frame size: 300" in run("create_study", "s", *args)
    else:
        with pytest.raises(CommandError) as error:
            run("create_study", "s", *args)
        assert words in str(error.value)
    assert not Study.objects.exists()
