"""Writes of repositories. No locks: a repository row is created once (its full name is
unique) and then only its GitHub id and default branch change, from the import that read
them."""

import re

from django.core.exceptions import ValidationError

from mining.models import Repository

# OWNER/NAME as GitHub allows them: an account's login is letters, digits and hyphens (an
# Enterprise managed user's ends in _shortcode), up to 39 characters, not starting with a
# hyphen; a repository's name is letters, digits, '.', '-' and '_', up to 100 characters,
# and never '.' or '..', which would name a folder of a URL path rather than a repository.
OWNER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,38}")
NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")
FULL_NAME_RULE = (
    "OWNER/NAME as GitHub allows: the owner letters, digits and hyphens (at most 39, not "
    "starting with a hyphen), the name letters, digits, '.', '-' and '_' (at most 100, not "
    "'.' or '..')"
)


def repository_name_check(full_name: str) -> str:
    """`full_name` trimmed, if it is OWNER/NAME as GitHub allows; else a ValidationError on
    `repository` that says the rule."""
    full_name = str(full_name).strip().strip("/")
    owner, slash, name = full_name.partition("/")
    if not (slash and OWNER.fullmatch(owner) and NAME.fullmatch(name) and name.strip(".")):
        shown = full_name if len(full_name) <= 150 else f"{full_name[:140]}…"
        raise ValidationError({"repository": f"{shown!r} is not {FULL_NAME_RULE}"})
    return full_name


def repository_get_or_create(*, full_name: str) -> Repository:
    """The repository named OWNER/NAME (matched ignoring case), created if unknown."""
    full_name = repository_name_check(full_name)
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
