import datetime as dt

import factory

from mining.models import BugReport, Comment, Repository


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
