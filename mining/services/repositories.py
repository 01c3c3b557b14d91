"""Writes of repositories. No locks: a repository row is created once (its full name is
unique) and then only its GitHub id and default branch change, from the import that read
them."""

import re

from django.core.exceptions import ValidationError

from mining.models import Repository

FULL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$")


def repository_get_or_create(*, full_name: str) -> Repository:
    """The repository named OWNER/NAME (matched ignoring case), created if unknown."""
    full_name = full_name.strip().strip("/")
    if not FULL_NAME.match(full_name):
        raise ValidationError({"repository": f"{full_name!r} is not OWNER/NAME"})
    owner, name = full_name.split("/")
    repository = Repository.objects.filter(full_name__iexact=full_name).first()
    if repository is None:
        repository = Repository.objects.create(
            owner=owner,
            name=name,
            full_name=full_name,
            html_url=f"https://github.com/{full_name}",
        )
    return repository


def repository_update_from_github(
    *, repository: Repository, github_id: int | None, default_branch: str
) -> None:
    fields = {"github_id": github_id, "default_branch": default_branch[:255]}
    if any(getattr(repository, k) != v for k, v in fields.items()):
        Repository.objects.filter(pk=repository.pk).update(**fields)
