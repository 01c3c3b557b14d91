import json

import pytest
from django.core.exceptions import ValidationError

from mining.models import BugReport, Comment, FixLink
from mining.services.offline_file import reports_import_from_file
from tests.mining import payloads

pytestmark = pytest.mark.django_db


def write_jsonl(tmp_path, objects, name="issues.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(o) for o in objects) + "\n", encoding="utf-8")
    return path


def test_import_from_file_stores_reports_comments_links_and_measures(tmp_path):
    issue = payloads.rest_issue(
        7,
        title="Conv is slow",
        labels=["module: performance"],
        comments_data=[
            payloads.rest_comment(70, user="bob", hours=2),
            payloads.rest_comment(71, user=None, hours=3),
        ],
        events_data=[{"event": "closed", "commit_id": "a" * 40}],
        commits_data=[payloads.rest_commit("a" * 40, "Fix conv (#7)", additions=12, deletions=3)],
    )
    pr = payloads.rest_issue(8, pull_request=True, body="Fixes #7")
    summary = reports_import_from_file(path=write_jsonl(tmp_path, [issue, pr]))

    assert summary["reports"] == 1
    assert summary["pull_requests_skipped"] == 1
    assert summary["comments"] == 2
    assert summary["fix_links"] == {"closed_by_commit": 1, "closing_reference": 1}
    report = BugReport.objects.get(number=7)
    assert not BugReport.objects.filter(number=8).exists()
    assert report.is_performance_candidate
    assert report.candidate_rules["performance"] == ["label:module: performance", "keyword:slow"]
    assert report.has_fix and report.fix_size == 15
    assert report.fix_hours == 24 * 10
    assert report.first_comment_hours == 2
    assert (report.commenter_count, report.participant_count) == (1, 2)
    commit_link = report.fix_links.get(evidence=FixLink.Evidence.CLOSED_BY_COMMIT)
    assert commit_link.commit.files[0]["patch"].startswith("@@")


def test_reimport_is_idempotent(tmp_path):
    issue = payloads.rest_issue(7, comments_data=[payloads.rest_comment(70)])
    path = write_jsonl(tmp_path, [issue])
    reports_import_from_file(path=path)
    reports_import_from_file(path=path)
    assert BugReport.objects.count() == 1
    assert Comment.objects.count() == 1


def test_bad_line_reports_line_number_and_writes_nothing(tmp_path):
    good = payloads.rest_issue(1)
    bad = payloads.rest_issue(2)
    bad["created_at"] = "yesterday"
    path = write_jsonl(tmp_path, [good, bad])
    with pytest.raises(ValidationError) as error:
        reports_import_from_file(path=path)
    assert "issues.jsonl, line 2: created_at" in str(error.value)
    assert BugReport.objects.count() == 0


def test_nul_characters_and_deleted_users_are_stored(tmp_path):
    issue = payloads.rest_issue(3, body="a\x00b \u2603" * 1000, user=None)
    issue["title"] = "t\x00"
    reports_import_from_file(path=write_jsonl(tmp_path, [issue]))
    report = BugReport.objects.get()
    assert report.title == "t" and report.body.startswith("ab \u2603")
    assert report.author_login == ""
    assert "\x00" not in json.dumps(report.raw)


def test_revert_in_file_marks_link_and_drops_fix_size(tmp_path):
    fix, revert = "a" * 40, "b" * 40
    issue = payloads.rest_issue(
        7,
        events_data=[
            {"event": "closed", "commit_id": fix},
            {"event": "referenced", "commit_id": revert},
        ],
        commits_data=[
            payloads.rest_commit(fix, "Fix #7"),
            payloads.rest_commit(revert, f'Revert "Fix #7"\n\nThis reverts commit {fix}.'),
        ],
    )
    reports_import_from_file(path=write_jsonl(tmp_path, [issue]))
    report = BugReport.objects.get()
    assert list(report.fix_links.values_list("reverted", flat=True)) == [True]
    assert not report.has_fix and report.fix_size is None


def test_a_script_link_in_a_file_is_refused_with_its_line(tmp_path):
    evil = payloads.rest_issue(2)
    evil["html_url"] = "javascript:alert(document.domain)//"
    path = write_jsonl(tmp_path, [payloads.rest_issue(1), evil])

    with pytest.raises(ValidationError) as error:
        reports_import_from_file(path=path)

    assert "issues.jsonl, line 2: html_url: not an http(s) URL" in str(error.value)
    assert BugReport.objects.count() == 0


def test_a_line_that_is_not_utf8_is_named_and_nothing_is_written(tmp_path):
    path = tmp_path / "issues.jsonl"
    good = json.dumps(payloads.rest_issue(1)).encode()
    path.write_bytes(good + b"\n" + b'{"title": "caf\xe9"}\n')

    with pytest.raises(ValidationError) as error:
        reports_import_from_file(path=path)

    assert "issues.jsonl, line 2: not UTF-8 (byte 15)" in str(error.value)
    assert BugReport.objects.count() == 0


def test_many_bad_lines_are_counted_beyond_the_first_twenty(tmp_path):
    path = tmp_path / "issues.jsonl"
    path.write_text("[]\n" * 25, encoding="utf-8")

    with pytest.raises(ValidationError) as error:
        reports_import_from_file(path=path)

    messages = error.value.message_dict["path"]
    assert len(messages) == 21
    assert messages[-1] == "issues.jsonl: … and 5 more bad lines"
