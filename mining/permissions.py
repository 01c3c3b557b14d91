"""Who may do what in the mining app: its pages, API and admin ask here, and its services
assume an authorised caller (the command line is one).

Reports are for every signed-in user; import jobs (their repositories, errors and quota
figures) and candidate rules are for those holding `mining.manage_imports`, which
labeler.common.roles gives to leads and researchers.
"""

from django.core.exceptions import PermissionDenied
from rest_framework import permissions

MANAGE_IMPORTS = "mining.manage_imports"
MANAGE_IMPORTS_REFUSED = "You may not manage imports."


def user_can_manage_imports(user) -> bool:
    """Whether the user may start, cancel and re-run imports and edit candidate rules."""
    return user.has_perm(MANAGE_IMPORTS)


def require_manage_imports(user) -> None:
    if not user_can_manage_imports(user):
        raise PermissionDenied(MANAGE_IMPORTS_REFUSED)


class CanManageImports(permissions.BasePermission):
    """The API's form of user_can_manage_imports."""

    message = MANAGE_IMPORTS_REFUSED

    def has_permission(self, request, view) -> bool:
        return user_can_manage_imports(request.user)
