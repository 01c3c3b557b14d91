"""Programs the fake GitHub with repositories shaped like the big ones."""

import datetime as dt

from tests.fakegithub.server import FakeGitHub
from tests.mining.payloads import iso, rest_comment, rest_commit, rest_issue


def add_issues(fake: FakeGitHub, repo: str, count: int, *, start=1, comments=0, api=None):
    target = fake.repo(repo)
    for number in range(start, start + count):
        data = [
            rest_comment(number * 1000 + k, hours=k + 1, issue_number=number)
            for k in range(comments)
        ]
        issue = rest_issue(number, repo=repo, api=api or fake.url, comments=len(data))
        target.issues[number] = issue
        target.comments[number] = data
    return target


def touch(fake: FakeGitHub, repo: str, number: int, when: dt.datetime) -> None:
    fake.repo(repo).issues[number]["updated_at"] = iso(when)


def add_commit(fake: FakeGitHub, repo: str, sha: str, message: str, **kwargs) -> None:
    fake.repo(repo).commits[sha] = rest_commit(sha, message, repo=repo, api=fake.url, **kwargs)
