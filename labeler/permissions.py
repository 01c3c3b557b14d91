"""Who may do what in a study: every view, page and command asks here.

A study's members decide: annotators label and see their own work, leads see and manage
everything in the study, researchers read the study and its progress. Staff and superusers
may do everything. Who may create a study is a global role (see labeler.roles).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404

from labeler.models import Study, StudyMember

MemberRole = StudyMember.Role


@dataclass(frozen=True)
class StudyAccess:
    roles: frozenset[str]
    is_staff: bool = False

    @property
    def can_view(self) -> bool:
        return self.is_staff or bool(self.roles)

    @property
    def can_label(self) -> bool:
        return MemberRole.ANNOTATOR in self.roles

    @property
    def can_lead(self) -> bool:
        return self.is_staff or MemberRole.LEAD in self.roles

    @property
    def can_view_progress(self) -> bool:
        return self.can_lead or MemberRole.RESEARCHER in self.roles

    @property
    def sees_all_labels(self) -> bool:
        """Leads see every label at once; everyone else only their own until adjudication."""
        return self.can_lead


NO_ACCESS = StudyAccess(roles=frozenset())


def user_is_staff(user) -> bool:
    return bool(user.is_authenticated and (user.is_staff or user.is_superuser))


def study_access(*, user, study: Study) -> StudyAccess:
    if not user.is_authenticated:
        return NO_ACCESS
    roles = frozenset(
        StudyMember.objects.filter(study=study, user=user).values_list("role", flat=True)
    )
    return StudyAccess(roles=roles, is_staff=user_is_staff(user))


def study_get_for_user(*, user, slug: str) -> tuple[Study, StudyAccess]:
    """The study and the user's access to it; 404 when it does not exist or they are no member,
    so non-members cannot tell the two apart."""
    study = Study.objects.select_related("codebook").filter(slug=slug).first()
    if study is None:
        raise Http404(f"no study {slug!r}")
    access = study_access(user=user, study=study)
    if not access.can_view:
        raise Http404(f"no study {slug!r}")
    return study, access


def user_can_create_study(user) -> bool:
    return user.is_authenticated and user.has_perm("labeler.add_study")
