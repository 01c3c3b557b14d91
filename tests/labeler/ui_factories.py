"""Factories for what the study pages show beside the labels: fixes (commits, pull requests)
and reports whose text tries to inject markup."""

import datetime as dt

import factory

from mining.models import Commit, FixLink, PullRequest
from tests.mining.factories import BugReportFactory, RepositoryFactory

PATCH = "@@ -1,3 +1,3 @@\n def step(x):\n-    return slow(x)\n+    return fast(x)\n"
HOSTILE_BODY = (
    "It leaks <script>window.hacked = 1</script> memory.\n\n"
    '<img src=x onerror="window.hacked = 2">\n\n'
    "[click](javascript:alert(1))\n\n"
    "```python\nfor _ in range(10):\n    model.step()\n```"
)


class PullRequestFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = PullRequest

    repository = factory.SubFactory(RepositoryFactory)
    number = factory.Sequence(lambda n: 500 + n)
    title = "Free the cached tensors after each step"
    state = PullRequest.State.MERGED
    merged = True
    additions = 1
    deletions = 1
    html_url = factory.LazyAttribute(
        lambda pr: f"https://github.com/{pr.repository.full_name}/pull/{pr.number}"
    )


class CommitFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Commit

    repository = factory.SubFactory(RepositoryFactory)
    sha = factory.Sequence(lambda n: f"{n:040x}")
    message = "Fix the leak in step()\n\nThe cache kept every tensor alive."
    author_login = "maintainer"
    authored_at = factory.LazyFunction(lambda: dt.datetime(2021, 1, 19, 12, tzinfo=dt.UTC))
    additions = 1
    deletions = 1
    changed_files = 1
    files = factory.LazyFunction(
        lambda: [
            {
                "filename": "src/train.py",
                "status": "modified",
                "additions": 1,
                "deletions": 1,
                "patch": PATCH,
                "patch_truncated": False,
            }
        ]
    )
    files_fetched = True
    html_url = factory.LazyAttribute(
        lambda c: f"https://github.com/{c.repository.full_name}/commit/{c.sha}"
    )


class FixLinkFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = FixLink

    report = factory.SubFactory(BugReportFactory)
    commit = factory.SubFactory(
        CommitFactory, repository=factory.SelfAttribute("..report.repository")
    )
    target = factory.LazyAttribute(lambda link: f"commit:{link.commit.sha}")
    evidence = FixLink.Evidence.CLOSED_BY_COMMIT
    strength = FixLink.Strength.STRONG


def report_with_fix(report):
    """Give the report a merged pull request and its commit as fixes, as an import would."""
    pull_request = PullRequestFactory(repository=report.repository)
    commit = CommitFactory(repository=report.repository)
    FixLinkFactory(report=report, commit=commit)
    FixLinkFactory(
        report=report,
        commit=None,
        pull_request=pull_request,
        target=f"pr:{pull_request.number}",
        evidence=FixLink.Evidence.CLOSED_BY_PULL_REQUEST,
    )
    return commit, pull_request
