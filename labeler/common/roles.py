"""Site-wide roles, kept as Django groups that carry model permissions.

Apps below `labeler` never ask for a role by name: they check a permission of their own
(e.g. `mining.manage_imports`), and this module decides which role holds it.
"""

from enum import StrEnum

from django.contrib.auth.models import Group, Permission


class Role(StrEnum):
    ANNOTATOR = "annotator"
    LEAD = "lead"
    RESEARCHER = "researcher"
    ADMIN = "admin"


# "app_label.codename" permissions each role holds; admin is a superuser and holds all.
ROLE_PERMISSIONS: dict[Role, tuple[str, ...]] = {
    Role.ANNOTATOR: (),
    Role.LEAD: (
        "mining.manage_imports",
        "labeler.add_study",
    ),
    Role.RESEARCHER: (
        "mining.manage_imports",
        "labeler.add_study",
        "labeler.export_study",
    ),
    Role.ADMIN: (),
}


def sync_role_groups(**_kwargs) -> None:
    """Create the role groups and give them their permissions; safe to run any number of times."""
    for role, permission_names in ROLE_PERMISSIONS.items():
        group, _ = Group.objects.get_or_create(name=role.value)
        wanted = []
        for name in permission_names:
            app_label, codename = name.split(".", 1)
            wanted.extend(
                Permission.objects.filter(content_type__app_label=app_label, codename=codename)
            )
        group.permissions.set(wanted)


def user_roles(user) -> set[Role]:
    if not user.is_authenticated:
        return set()
    names = set(user.groups.values_list("name", flat=True)) & {role.value for role in Role}
    roles = {Role(name) for name in names}
    if user.is_superuser:
        roles.add(Role.ADMIN)
    return roles


def user_grant_role(*, user, role: Role) -> None:
    group, _ = Group.objects.get_or_create(name=role.value)
    user.groups.add(group)
    if role is Role.ADMIN and not (user.is_superuser and user.is_staff):
        user.is_superuser = True
        user.is_staff = True
        user.save(update_fields=["is_superuser", "is_staff"])
