"""What several of the study pages check."""

from django.core.exceptions import PermissionDenied
from django.urls import reverse

from labeler.common.permissions import StudyAccess


def require_lead(access: StudyAccess) -> None:
    if not access.can_lead:
        raise PermissionDenied("only the study's leads may do this")


def url_template(name: str, *args) -> str:
    """The URL with `{id}` where the object's id goes, for the page's script to fill in."""
    head, _, tail = reverse(name, args=[*args, 0]).rpartition("/0/")
    return f"{head}/{{id}}/{tail}"
