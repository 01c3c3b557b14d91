import json

import pytest
from django.core.management import CommandError, call_command

from mining.models import BugReport, ImportJob
from tests.mining import github_data
from tests.mining.payloads import rest_issue

pytestmark = pytest.mark.django_db(transaction=True)


def test_import_github_wait_json_summary(fake_github, capsys):
    github_data.add_issues(fake_github, "octo/repo", 120, comments=1)
    call_command("import_github", "octo/repo", "--wait", "--json")
    summary = json.loads(capsys.readouterr().out)
    assert summary["status"] == "done"
    assert summary["reports"] == 120 and summary["comments"] == 120
    for key in ("pull_requests_skipped", "fix_links", "api_requests", "rate_limit_waits", "errors"):
        assert key in summary
    assert summary["api_requests"] == 2


def test_import_github_failure_is_an_error(fake_github):
    with pytest.raises(CommandError, match="failed"):
        call_command("import_github", "octo/gone", "--wait", "--json")


def test_from_file(tmp_path, capsys):
    path = tmp_path / "crawl.jsonl"
    path.write_text(json.dumps(rest_issue(3)) + "\n", encoding="utf-8")
    call_command("import_github", "--from-file", str(path), "--json")
    summary = json.loads(capsys.readouterr().out)
    assert summary["reports"] == 1
    assert {"pull_requests_skipped", "comments", "fix_links", "errors"} <= set(summary)
    assert (summary["api_requests"], summary["rate_limit_waits"]) == (0, 0)
    assert BugReport.objects.filter(number=3).exists()
    path.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"crawl\.jsonl, line 1"):
        call_command("import_github", "--from-file", str(path))


def test_import_github_wait_prints_a_summary(fake_github, capsys):
    repo = github_data.add_issues(fake_github, "octo/repo", 3, comments=2)
    github_data.add_commit(fake_github, "octo/repo", "a" * 40, "Fix #2", additions=4)
    repo.timeline[2] = [{"event": "closed", "commit_id": "a" * 40}]
    call_command("import_github", "octo/repo", "--wait", "--api", "rest")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Queued import ") and lines[0].endswith(" of octo/repo")
    for line in (
        "status: done",
        "reports: 3",
        "comments: 6",
        "pull_requests_skipped: 0",
        "fix_links: {'closed_by_commit': 1}",
        "rate_limit_waits: 0",
        "errors: []",
    ):
        assert line in lines
    assert any(line.startswith("api_requests: ") for line in lines)


def test_import_github_json_for_several_repositories_adds_them_up(fake_github, capsys):
    github_data.add_issues(fake_github, "octo/one", 3, comments=1)
    repo = github_data.add_issues(fake_github, "octo/two", 2, comments=2)
    repo.issues[9] = rest_issue(9, repo="octo/two", api=fake_github.url, pull_request=True)
    with pytest.raises(CommandError, match="octo/gone failed"):
        call_command(
            "import_github",
            "octo/one",
            "octo/two",
            "octo/gone",
            "--api",
            "rest",
            "--wait",
            "--json",
        )
    summary = json.loads(capsys.readouterr().out)
    assert [job["status"] for job in summary["jobs"]] == ["done", "done", "failed"]
    assert (summary["reports"], summary["comments"], summary["pull_requests_skipped"]) == (5, 7, 1)
    assert summary["api_requests"] == sum(job["api_requests"] for job in summary["jobs"]) > 0
    assert summary["rate_limit_waits"] == 0 and summary["fix_links"] == {}
    assert summary["errors"] == ["octo/gone: Not found on GitHub (404)"]


@pytest.mark.parametrize(
    ("option", "patches", "commit_requests"),
    [([], "lazy", 0), (["--patches"], "candidates", 1), (["--patches", "all"], "all", 2)],
)
def test_import_github_patches_fetches_them_during_the_import_when_asked(
    fake_github, capsys, option, patches, commit_requests
):
    repo = github_data.add_issues(fake_github, "octo/repo", 3)
    repo.issues[1]["title"] = "Training got slower"
    for number, sha in ((1, "a" * 40), (2, "b" * 40)):
        github_data.add_commit(fake_github, "octo/repo", sha, f"Fix #{number}")
        repo.timeline[number] = [{"event": "closed", "commit_id": sha}]
    call_command("import_github", "octo/repo", "--wait", "--json", *option)
    summary = json.loads(capsys.readouterr().out)
    assert (summary["status"], summary["patches"]) == ("done", patches)
    requests = [e for e in fake_github.requests() if "/commits/" in e.path]
    assert len(requests) == commit_requests
    assert summary["api_requests"] == 1 + commit_requests


def test_the_summary_says_what_github_answered_errors_for(fake_github, capsys):
    github_data.add_issues(fake_github, "octo/repo", 3, comments=1)
    fake_github.fail_graphql_field(
        "IssueComment", "author", "Resource not accessible", when=lambda c: True
    )
    call_command("import_github", "octo/repo", "--wait", "--json")
    summary = json.loads(capsys.readouterr().out)
    assert summary["status"] == "done" and summary["reports"] == 3
    assert [error["item"] for error in summary["errors"]] == ["#1", "#2", "#3"]
    assert summary["errors"][0]["reason"] == (
        "incomplete: GitHub answered an error for comments.nodes.0.author "
        "(Resource not accessible); the rest of the report is stored"
    )


@pytest.mark.parametrize("depth", [50_000, 101])
def test_from_file_refuses_a_deeply_nested_line_by_name(tmp_path, depth):
    path = tmp_path / "deep.jsonl"
    good = json.dumps(rest_issue(3))
    path.write_text(f"{good}\n{'[' * depth}{']' * depth}\n", encoding="utf-8")
    with pytest.raises(CommandError) as raised:
        call_command("import_github", "--from-file", str(path))
    assert str(raised.value) == "deep.jsonl, line 2: nested deeper than 100 levels"
    assert not BugReport.objects.filter(number=3).exists()


def test_import_github_refuses_a_name_github_does_not_allow():
    with pytest.raises(CommandError, match=r"'\.\./\.\.' is not OWNER/NAME as GitHub allows"):
        call_command("import_github", "../..")
    assert not ImportJob.objects.exists()
