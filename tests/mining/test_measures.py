import datetime as dt

from mining.measures import FixPart, fix_size, report_measures

T0 = dt.datetime(2021, 1, 1, tzinfo=dt.UTC)


def part(target, strength="strong", reverted=False, adds=10, dels=5, is_commit=True):
    return FixPart(target, strength, reverted, adds, dels, is_commit)


def test_several_commits_are_one_patch_counted_once_each():
    parts = [part("commit:a"), part("commit:a"), part("commit:b", adds=1, dels=1)]
    assert fix_size(parts) == 17


def test_reverted_and_weak_commits_excluded_when_strong_exists():
    parts = [part("commit:a", reverted=True), part("commit:b", strength="weak", adds=100)]
    assert fix_size(parts) == 105
    assert fix_size([part("commit:a"), part("commit:b", strength="weak", adds=100)]) == 15


def test_pull_request_size_stands_in_without_commit_size():
    parts = [part("commit:a", adds=None), part("pr:3", adds=7, dels=3, is_commit=False)]
    assert fix_size(parts) == 10
    assert fix_size([]) is None


def test_report_measures():
    m = report_measures(
        author_login="alice",
        created_at=T0,
        closed_at=T0 + dt.timedelta(days=2),
        comments=[
            ("alice", T0 + dt.timedelta(hours=1)),
            ("bob", T0 + dt.timedelta(hours=3)),
            ("", T0 + dt.timedelta(hours=4)),
            ("bob", T0 + dt.timedelta(hours=5)),
        ],
        fix_parts=[part("commit:a")],
    )
    assert m.fix_hours == 48
    assert m.first_comment_hours == 3
    assert (m.comment_count, m.commenter_count, m.participant_count) == (4, 2, 2)
    assert m.fix_size == 15


def test_open_report_has_no_fix_time():
    m = report_measures(author_login="", created_at=T0, closed_at=None, comments=[], fix_parts=[])
    assert m.fix_hours is None and m.first_comment_hours is None and m.participant_count == 0
