import datetime as dt

import factory

from mining.models import BugReport, Comment, Commit, FixLink, ImportJob, PullRequest, Repository


class RepositoryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Repository
        django_get_or_create = ["full_name"]

    owner = "octo"
    name = factory.Sequence(lambda n: f"repo{n}")
    full_name = factory.LazyAttribute(lambda r: f"{r.owner}/{r.name}")
    html_url = factory.LazyAttribute(lambda r: f"https://github.com/{r.full_name}")


class BugReportFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = BugReport

    repository = factory.SubFactory(RepositoryFactory)
    number = factory.Sequence(lambda n: n + 1)
    title = factory.Sequence(lambda n: f"Training gets slower after step {n}")
    body = "Steps to reproduce:\n\n```python\nmodel.fit(x)\n```"
    state = BugReport.State.CLOSED
    author_login = "reporter"
    labels = factory.LazyFunction(lambda: ["type:bug"])
    created_at = factory.LazyFunction(lambda: dt.datetime(2021, 1, 5, 12, tzinfo=dt.UTC))
    updated_at = factory.LazyFunction(lambda: dt.datetime(2021, 2, 1, 12, tzinfo=dt.UTC))
    closed_at = factory.LazyFunction(lambda: dt.datetime(2021, 1, 20, 12, tzinfo=dt.UTC))
    html_url = factory.LazyAttribute(
        lambda r: f"https://github.com/{r.repository.full_name}/issues/{r.number}"
    )


class CommentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Comment

    report = factory.SubFactory(BugReportFactory)
    github_id = factory.Sequence(lambda n: 1000 + n)
    author_login = "maintainer"
    body = "Thanks, I can reproduce this."
    created_at = factory.LazyFunction(lambda: dt.datetime(2021, 1, 6, 12, tzinfo=dt.UTC))


class CommitFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Commit

    repository = factory.SubFactory(RepositoryFactory)
    sha = factory.Sequence(lambda n: f"{n:040x}")
    message = "Fix the slowdown"
    additions = 10
    deletions = 2
    files = factory.LazyFunction(
        lambda: [
            {
                "filename": "a.py",
                "status": "modified",
                "additions": 10,
                "deletions": 2,
                "patch": "@@ -1 +1 @@\n-a\n+b",
                "patch_truncated": False,
            }
        ]
    )
    files_fetched = True


class PullRequestFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = PullRequest

    repository = factory.SubFactory(RepositoryFactory)
    number = factory.Sequence(lambda n: 5000 + n)
    title = "Faster conv"
    state = PullRequest.State.MERGED
    merged = True


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


class ImportJobFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ImportJob

    repository = factory.SubFactory(RepositoryFactory)
    status = ImportJob.Status.DONE
