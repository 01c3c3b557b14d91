"""Factories for what the study pages show beside the labels: fixes (commits, pull requests)
and reports whose text tries to inject markup."""

import datetime as dt

from mining.models import FixLink
from tests.mining.factories import CommitFactory, FixLinkFactory, PullRequestFactory

PATCH = "@@ -1,3 +1,3 @@\n def step(x):\n-    return slow(x)\n+    return fast(x)\n"
HOSTILE_BODY = (
    "It leaks <script>window.hacked = 1</script> memory.\n\n"
    '<img src=x onerror="window.hacked = 2">\n\n'
    "[click](javascript:alert(1))\n\n"
    "```python\nfor _ in range(10):\n    model.step()\n```"
)


FIX_FILES = [
    {
        "filename": "src/train.py",
        "status": "modified",
        "additions": 1,
        "deletions": 1,
        "patch": PATCH,
        "patch_truncated": False,
    }
]


def report_with_fix(report):
    """Give the report a merged pull request and its commit as fixes, as an import would."""
    pull_request = PullRequestFactory(
        repository=report.repository,
        title="Free the cached tensors after each step",
        additions=1,
        deletions=1,
    )
    commit = CommitFactory(
        repository=report.repository,
        message="Fix the leak in step()\n\nThe cache kept every tensor alive.",
        author_login="maintainer",
        authored_at=dt.datetime(2021, 1, 19, 12, tzinfo=dt.UTC),
        additions=1,
        deletions=1,
        changed_files=1,
        files=FIX_FILES,
    )
    web = f"https://github.com/{report.repository.full_name}"
    pull_request.html_url = f"{web}/pull/{pull_request.number}"
    pull_request.save(update_fields=["html_url"])
    commit.html_url = f"{web}/commit/{commit.sha}"
    commit.save(update_fields=["html_url"])
    FixLinkFactory(report=report, commit=commit)
    FixLinkFactory(
        report=report,
        commit=None,
        pull_request=pull_request,
        target=f"pr:{pull_request.number}",
        evidence=FixLink.Evidence.CLOSED_BY_PULL_REQUEST,
    )
    return commit, pull_request
