"""GitHub-shaped payloads for tests (REST objects as the API returns them)."""

import datetime as dt
import hashlib

T0 = dt.datetime(2021, 1, 1, tzinfo=dt.UTC)
API = "https://api.github.com"
# GitHub's ids of issues and comments have passed 2^31 (e.g. comment 3436247006): the test
# data uses such ids, so a 32-bit assumption anywhere fails a test.
ISSUE_ID_BASE = 3_100_000_000
COMMENT_ID_BASE = 3_436_247_006


def comment_id(k: int) -> int:
    """The GitHub id of the test comment made with rest_comment(k)."""
    return COMMENT_ID_BASE + k


def iso(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def user(login):
    return None if login is None else {"login": login, "id": abs(hash(login)) % 10**6}


def rest_issue(
    number,
    *,
    repo="octo/repo",
    title=None,
    body="body",
    user_login="reporter",
    labels=(),
    state="closed",
    pull_request=False,
    api=API,
    updated=None,
    comments=None,
    user=...,
    **extra,
):
    created = T0 + dt.timedelta(days=number % 100)
    login = user_login if user is ... else user
    issue = {
        "url": f"{api}/repos/{repo}/issues/{number}",
        "repository_url": f"{api}/repos/{repo}",
        "html_url": f"https://github.com/{repo}/issues/{number}",
        "id": ISSUE_ID_BASE + number,
        "node_id": f"I_{number}",
        "number": number,
        "title": title or f"Issue {number}",
        "body": body,
        "state": state,
        "state_reason": "completed" if state == "closed" else None,
        "user": None if login is None else {"login": login, "id": 1},
        "labels": [{"name": name} for name in labels],
        "milestone": None,
        "comments": comments if comments is not None else len(extra.get("comments_data", [])),
        "created_at": iso(created),
        "updated_at": iso(updated or created + dt.timedelta(days=20)),
        "closed_at": iso(created + dt.timedelta(days=10)) if state == "closed" else None,
        "reactions": {"+1": 1, "total_count": 1},
    }
    if pull_request:
        issue["pull_request"] = {
            "url": f"{api}/repos/{repo}/pulls/{number}",
            "merged_at": iso(created),
        }
    issue.update(extra)
    return issue


def rest_comment(k, *, user="bob", hours=1, body="me too", issue_number=7):
    """A comment whose GitHub id is comment_id(k)."""
    created = T0 + dt.timedelta(days=issue_number % 100, hours=hours)
    return {
        "id": comment_id(k),
        "user": None if user is None else {"login": user},
        "body": body,
        "created_at": iso(created),
        "updated_at": iso(created),
    }


def rest_commit(sha, message, *, additions=10, deletions=2, repo="octo/repo", api=API):
    parent = hashlib.sha1(sha.encode()).hexdigest()  # noqa: S324 (a made-up sha, not a hash)
    return {
        "sha": sha,
        "node_id": f"C_{sha[:20]}",
        "parents": [
            {
                "sha": parent,
                "url": f"{api}/repos/{repo}/commits/{parent}",
                "html_url": f"https://github.com/{repo}/commit/{parent}",
            }
        ],
        "url": f"{api}/repos/{repo}/commits/{sha}",
        "html_url": f"https://github.com/{repo}/commit/{sha}",
        "commit": {"message": message, "author": {"name": "Dev", "date": iso(T0)}},
        "author": {"login": "dev"},
        "stats": {"additions": additions, "deletions": deletions, "total": additions + deletions},
        "files": [
            {
                "filename": "src/conv.py",
                "status": "modified",
                "additions": additions,
                "deletions": deletions,
                "patch": "@@ -1 +1 @@\n-old\n+new",
            }
        ],
    }
