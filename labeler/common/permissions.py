"""Who may do what in a study: every view, page and command asks here.

A study's members decide: annotators label and see their own work, leads see and manage
everything in the study, researchers read the study and its progress. Staff and superusers
may do everything. Who may create a study is a global role (see labeler.common.roles).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef, Q
from django.http import Http404

from labeler.models import (
    Assignment,
    Study,
    StudyMember,
)
from taxonomy.models import Codebook
from taxonomy.selectors import codebook_key_owner

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
    def can_analyse(self) -> bool:
        """The study's analysis (final labels counted, crossed and compared): its leads and
        researchers, and staff."""
        return self.can_view_progress

    @property
    def blind(self) -> bool:
        """Whoever labels in the study is blind there, whatever else they are (its lead, a
        researcher, staff, a superuser): another annotator's labels, notes and codes of an item
        reach them only once the item is final, so that their own stay independent."""
        return self.can_label

    @property
    def sees_all_labels(self) -> bool:
        """Leads see every label at once; everyone else only their own until adjudication.

        Whoever labels in the study stays blind, even as a lead or staff (see `blind`).
        """
        return self.can_lead and not self.blind


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
    """The study and the user's access to it, in one query; 404 when it does not exist or they
    are no member, so non-members cannot tell the two apart."""
    if not user.is_authenticated:
        raise Http404(f"no study {slug!r}")
    study = next(iter(Study.objects.raw(STUDY_SQL, [user.pk, user.pk, user.pk, slug])), None)
    if study is None:
        raise Http404(f"no study {slug!r}")
    roles = frozenset(role for role in MemberRole.values if getattr(study, f"is_{role}"))
    access = StudyAccess(roles=roles, is_staff=user_is_staff(user))
    if not access.can_view:
        raise Http404(f"no study {slug!r}")
    return study, access


# Plain SQL: every study page and request starts here, and the ORM takes longer to build it
# than the database to answer.
STUDY_SQL = """
SELECT study.*,
       EXISTS (SELECT 1 FROM labeler_studymember member WHERE member.study_id = study.id
               AND member.user_id = %s AND member.role = 'annotator') AS is_annotator,
       EXISTS (SELECT 1 FROM labeler_studymember member WHERE member.study_id = study.id
               AND member.user_id = %s AND member.role = 'lead') AS is_lead,
       EXISTS (SELECT 1 FROM labeler_studymember member WHERE member.study_id = study.id
               AND member.user_id = %s AND member.role = 'researcher') AS is_researcher
FROM labeler_study study
WHERE study.slug = %s
"""


def user_can_create_study(user) -> bool:
    return user.is_authenticated and user.has_perm("labeler.add_study")


def access_sees_agreement(access: StudyAccess) -> bool:
    """Leads and researchers of the study (and staff) see its agreement figures."""
    return access.can_view_progress


def access_exports(access: StudyAccess) -> bool:
    """Leads and researchers of the study (and staff) export its dataset."""
    return access.can_view_progress


def access_figures_final_only(access: StudyAccess) -> bool:
    """Figures over the labels (agreement, an export and its datasheet) count only the study's
    final items for whoever labels in it: a figure over an item still open could be traced back
    to the labels on it, and those are blind (StudyAccess.blind)."""
    return access.blind


SCREENING_LEADS_ONLY = (
    "only the study's leads who do not label in it use screening: annotators never see a "
    "score, a rank or a model's guess"
)


def access_screens(access: StudyAccess) -> bool:
    """Screening (a model's scores and ranks) is for those who see every label: leads who do
    not label in the study, and staff who do not."""
    return access.sees_all_labels


def access_sees_annotator_names(access: StudyAccess) -> bool:
    """Leads (and staff) may see who labelled what; everyone else sees pseudonyms."""
    return access.can_lead


def access_sees_all_codes(access: StudyAccess, *, shared: bool) -> bool:
    """Open coding: whoever labels in the study sees only the codes they wrote, unless the
    study shares codes while the round runs; its leads, researchers and staff who do not label
    there see every code."""
    return shared or (access.can_view_progress and not access.can_label)


def access_adjudicates(access: StudyAccess) -> bool:
    """Adjudicating shows every annotator's labels: leads (and staff) who do not label in the
    study, so that whoever labels stays blind."""
    return access.sees_all_labels


def access_sorts_board(access: StudyAccess, *, study: Study) -> bool:
    """The study's board shows every annotator's codes (a revision board, its adjudication
    rationales): its leads (and staff) who do not label in it; one who labels too, only in
    an open-coding study that shares codes anyway, so whoever labels stays blind to the
    others' codes unless the study says otherwise."""
    shared = study.kind == Study.Kind.OPEN and study.codes_shared
    return access.can_lead and (not access.can_label or shared)


def labels_hidden_from(user) -> Q:
    """The blind rule as a filter on labels (annotations, their versions, assignments), for
    lists that otherwise show everything, such as the admin's: another annotator's labels on an
    item not yet adjudicated, in a study where `user` labels too."""
    annotates_in = StudyMember.objects.filter(user=user, role=MemberRole.ANNOTATOR).values("study")
    return (
        Q(item__study__in=annotates_in) & ~Q(annotator=user) & Q(item__adjudicated_at__isnull=True)
    )


def board_hidden_from(user, study: str = "study") -> Q:
    """The code board is its leads' work: in lists that otherwise show everything, such as the
    admin's, boards and what is on them are hidden from annotators of the study, so that the
    codes others wrote reach them only as the study's `codes_shared` says (and only in the
    labelling page). `study` is the path from the rows to their study."""
    annotates_in = StudyMember.objects.filter(user=user, role=MemberRole.ANNOTATOR).values("study")
    return Q(**{f"{study}__in": annotates_in})


STUDY_OWNER_PREFIX = "study:"


def codebook_owner_of(study: Study) -> str:
    """The owner (taxonomy's Codebook.owner) of a codebook key `study` made."""
    return f"{STUDY_OWNER_PREFIX}{study.pk}"


def _owner_study(owner: str) -> Study | None:
    number = owner.removeprefix(STUDY_OWNER_PREFIX)
    if not owner.startswith(STUDY_OWNER_PREFIX) or not number.isdigit():
        return None
    return Study.objects.filter(pk=int(number)).first()


def codebook_key_owner_words(key: str) -> str | None:
    """Who owns codebook `key`, in words; None when there is no such codebook."""
    owner = codebook_key_owner(key=key)
    if owner is None:
        return None
    if owner == Codebook.ADMINS:
        return "the admins (a built-in codebook, or one loaded from a codebook file)"
    study = _owner_study(owner)
    if study is None:
        return "the admins (the study that made it is gone)"
    return f"study {study.slug!r} ({study.name}), whose board made it"


def codebook_key_refusal(*, key: str, user) -> str | None:
    """Why `user` may not add a version to codebook `key`; None when they may: a new key is
    anyone's to make; a key a study made (its open round, its board), its leads' and the
    admins'; any other key (the built-ins, files an admin loads), the admins' alone. A new
    version becomes what new studies pick, and what the key's studies are offered to migrate
    to: one team cannot choose it for another."""
    owner = codebook_key_owner(key=key)
    if owner is None or user_is_staff(user):
        return None
    study = _owner_study(owner)
    if (
        study is not None
        and StudyMember.objects.filter(study=study, user=user, role=MemberRole.LEAD).exists()
    ):
        return None
    who = "its leads and the admins" if study is not None else "the admins"
    return (
        f"codebook {key!r} belongs to {codebook_key_owner_words(key)}: only {who} may add a "
        "version to it"
    )


def codebook_key_require_addable(*, key: str, user) -> None:
    """A 403 naming the owner unless `user` may add a version to codebook `key`
    (codebook_key_refusal)."""
    refusal = codebook_key_refusal(key=key, user=user)
    if refusal is not None:
        raise PermissionDenied(refusal)


def studies_led_by(user):
    return StudyMember.objects.filter(user=user, role=StudyMember.Role.LEAD).values("study")


def studies_labelled_in(user):
    return StudyMember.objects.filter(user=user, role=StudyMember.Role.ANNOTATOR).values("study")


def studies_overseen_by(user):
    """Studies the user leads without labelling in them: whoever labels stays blind."""
    return studies_led_by(user).exclude(study__in=studies_labelled_in(user))


def studies_read_whole_by(user):
    """Studies whose final items the user reads whole: those they lead or research in."""
    return StudyMember.objects.filter(
        user=user, role__in=[StudyMember.Role.LEAD, StudyMember.Role.RESEARCHER]
    ).values("study")


def labelled_by(user, item: str = "item"):
    """Whether the user submitted labels for the rows' item (`item`: the path to it)."""
    return Exists(
        Assignment.objects.filter(
            item=OuterRef(item), annotator=user, status=Assignment.Status.SUBMITTED
        )
    )
