"""Writes about a study's people: a member's role changed, invitations made, revoked and
accepted. Adding and removing members by name stays in labeler.studies.services."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone

from labeler.members.invitations import invitation_token_hash, invitation_token_new
from labeler.models import Study, StudyInvitation, StudyMember
from labeler.studies.services import LAST_LEAD, study_member_add

INVITATION_GONE = "this invitation link is no longer valid: it was used, revoked or has expired"


@transaction.atomic
def study_member_role_change(*, study: Study, member: StudyMember, role: str) -> StudyMember:
    """Give the member `role` instead of the one they have; their labels stay theirs.
    Refused when they already have that role too, and for the study's last lead."""
    if role not in StudyMember.Role.values:
        raise ValidationError({"role": f"{role!r} is not one of {', '.join(StudyMember.Role)}"})
    # The study row is locked so that two leads changing each other cannot both stop leading.
    Study.objects.select_for_update().filter(pk=study.pk).first()
    member = StudyMember.objects.select_related("user").get(pk=member.pk, study=study)
    if member.role == role:
        return member
    if StudyMember.objects.filter(study=study, user=member.user_id, role=role).exists():
        raise ValidationError({"role": f"{member.user} is {role} of the study already"})
    if (
        member.role == StudyMember.Role.LEAD
        and not StudyMember.objects.filter(study=study, role=StudyMember.Role.LEAD)
        .exclude(pk=member.pk)
        .exists()
    ):
        raise ValidationError({"role": LAST_LEAD})
    member.role = role
    member.save(update_fields=["role"])
    return member


def _invitation_email(*, study: Study, role: str, link: str, days: int) -> tuple[str, str]:
    subject = f"You are invited to the study {study.name}"
    body = (
        f"You are invited to join the labelling study {study.name!r} as {role}.\n\n"
        f"Open this link to choose your username and password:\n{link}\n\n"
        f"The link works once and expires in {days} days.\n"
    )
    return subject, body


@transaction.atomic
def study_invitation_create(
    *,
    study: Study,
    role: str,
    email: str = "",
    created_by=None,
    link_for: Callable[[str], str],
) -> tuple[StudyInvitation, str, bool]:
    """A new invitation to the study with `role`. Returns it, its link (made by `link_for`
    from the token; shown once, never stored) and whether it went out by e-mail: when an
    address is given and e-mail is set up (EMAIL_HOST), after the transaction commits."""
    if role not in StudyMember.Role.values:
        raise ValidationError({"role": f"{role!r} is not one of {', '.join(StudyMember.Role)}"})
    token = invitation_token_new()
    now = timezone.now()
    days = settings.INVITATION_DAYS
    invitation = StudyInvitation(
        study=study,
        role=role,
        token_hash=invitation_token_hash(token),
        email=email,
        created_by=created_by,
        created_at=now,
        expires_at=now + dt.timedelta(days=days),
    )
    invitation.full_clean(exclude=["study", "created_by"])
    invitation.save()
    link = link_for(token)
    mailed = bool(email and settings.EMAIL_HOST)
    if mailed:
        subject, body = _invitation_email(study=study, role=role, link=link, days=days)
        transaction.on_commit(lambda: send_mail(subject, body, None, [email]))
    return invitation, link, mailed


@transaction.atomic
def study_invitation_revoke(*, invitation: StudyInvitation) -> StudyInvitation:
    """The link stops working; a used invitation stays as it was (its member is removed on
    the members list)."""
    updated = StudyInvitation.objects.filter(
        pk=invitation.pk, used_at__isnull=True, revoked_at__isnull=True
    ).update(revoked_at=timezone.now())
    invitation.refresh_from_db()
    if not updated and invitation.used_at is not None:
        raise ValidationError({"invitation": "this invitation was used already"})
    return invitation


@transaction.atomic
def study_invitation_accept(*, invitation_id: int, username: str, password: str):
    """Create the invitee's account with the username and password they chose (Django's
    password validators), make them a member with the invitation's role and use the
    invitation up; all or nothing. Returns the new user. The caller has checked that the
    invitee holds the link (labeler.members.views)."""
    invitation = (
        StudyInvitation.objects.select_for_update()
        .select_related("study")
        .filter(pk=invitation_id)
        .first()
    )
    if invitation is None or invitation.state() != "open":
        raise ValidationError({"token": INVITATION_GONE})
    user_model = get_user_model()
    user = user_model(username=username, email=invitation.email)
    errors = {}
    try:
        user.full_clean(exclude=["password"])
    except ValidationError as error:
        errors.update(error.message_dict)
    try:
        validate_password(password, user)
    except ValidationError as error:
        errors["password"] = error.messages
    if errors:
        raise ValidationError(errors)
    user.set_password(password)
    user.save()
    study_member_add(study=invitation.study, user=user, role=invitation.role)
    invitation.used_at = timezone.now()
    invitation.used_by = user
    invitation.save(update_fields=["used_at", "used_by"])
    return user
