"""What several of the study pages check."""

from django.core.exceptions import PermissionDenied

from labeler.common.permissions import StudyAccess


def require_lead(access: StudyAccess) -> None:
    if not access.can_lead:
        raise PermissionDenied("only the study's leads may do this")
