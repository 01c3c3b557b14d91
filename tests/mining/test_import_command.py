import json

import pytest
from django.core.management import CommandError, call_command

from mining.models import BugReport
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
    assert json.loads(capsys.readouterr().out)["reports"] == 1
    assert BugReport.objects.filter(number=3).exists()
    path.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"crawl\.jsonl, line 1"):
        call_command("import_github", "--from-file", str(path))
