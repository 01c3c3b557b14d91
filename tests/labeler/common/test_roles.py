"""Site-wide roles are groups holding permissions; apps check permissions, not role names."""

import pytest
from django.contrib.auth.models import Group

from labeler.common.roles import ROLE_PERMISSIONS, Role, sync_role_groups, user_roles

pytestmark = pytest.mark.django_db


def test_migrate_creates_one_group_per_role_with_its_permissions():
    assert set(Group.objects.values_list("name", flat=True)) >= {r.value for r in Role}
    lead = Group.objects.get(name="lead")
    held = {f"{p.content_type.app_label}.{p.codename}" for p in lead.permissions.all()}
    assert held == set(ROLE_PERMISSIONS[Role.LEAD])


def test_sync_is_idempotent_and_repairs_drift():
    Group.objects.get(name="researcher").permissions.clear()

    sync_role_groups()
    sync_role_groups()

    assert Group.objects.filter(name="researcher").count() == 1
    assert Group.objects.get(name="researcher").permissions.count() == len(
        ROLE_PERMISSIONS[Role.RESEARCHER]
    )


def test_permissions_follow_roles(annotator, lead, researcher, admin_user):
    assert not annotator.has_perm("mining.manage_imports")
    assert lead.has_perm("mining.manage_imports")
    assert lead.has_perm("labeler.add_study") and not lead.has_perm("labeler.export_study")
    assert researcher.has_perm("labeler.export_study")
    assert admin_user.has_perm("labeler.export_study") and admin_user.is_staff


def test_user_roles(annotator, admin_user, make_user):
    assert user_roles(annotator) == {Role.ANNOTATOR}
    assert Role.ADMIN in user_roles(admin_user)
    assert user_roles(make_user()) == set()
