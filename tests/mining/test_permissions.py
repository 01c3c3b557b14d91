import pytest
from django.core.exceptions import PermissionDenied
from django.test import RequestFactory
from rest_framework.request import Request

from labeler.common.roles import Role
from mining.permissions import CanManageImports, require_manage_imports, user_can_manage_imports

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("role", "allowed"),
    [(None, False), (Role.ANNOTATOR, False), (Role.LEAD, True), (Role.RESEARCHER, True)],
)
def test_leads_and_researchers_manage_imports(make_user, role, allowed):
    user = make_user(role)
    request = Request(RequestFactory().get("/"))
    request.user = user

    assert user_can_manage_imports(user) is allowed
    assert CanManageImports().has_permission(request, view=None) is allowed
    if allowed:
        require_manage_imports(user)
    else:
        with pytest.raises(PermissionDenied, match="You may not manage imports"):
            require_manage_imports(user)
