"""Invitations made, accepted once, refused when used, revoked or expired; roles changed."""

import datetime as dt

import pytest
from django.core.exceptions import ValidationError

from labeler.members.invitations import invitation_token_hash
from labeler.members.services import (
    INVITATION_GONE,
    study_invitation_accept,
    study_invitation_create,
    study_invitation_revoke,
    study_member_role_change,
)
from labeler.models import StudyInvitation, StudyMember

pytestmark = pytest.mark.django_db

GOOD_PASSWORD = "a-long-enough-pass-29"


def invite(study, role="annotator", **fields):
    invitation, token, _ = study_invitation_create(
        study=study, role=role, link_for=lambda token: token, **fields
    )
    return invitation, token


def test_an_invitation_stores_only_the_hash_and_expires_after_the_setting(study, settings):
    settings.INVITATION_DAYS = 3

    invitation, token = invite(study)

    assert invitation.token_hash == invitation_token_hash(token) != token
    assert invitation.expires_at - invitation.created_at == dt.timedelta(days=3)
    assert not StudyInvitation.objects.filter(token_hash=token).exists()


def test_accepting_creates_the_account_and_membership_once(study):
    invitation, _ = invite(study, role="annotator", email="new@example.org")

    user = study_invitation_accept(
        invitation_id=invitation.pk, username="newbie", password=GOOD_PASSWORD
    )

    assert user.check_password(GOOD_PASSWORD) and user.email == "new@example.org"
    assert StudyMember.objects.filter(study=study, user=user, role="annotator").exists()
    invitation.refresh_from_db()
    assert invitation.state() == "used" and invitation.used_by == user
    with pytest.raises(ValidationError) as error:
        study_invitation_accept(
            invitation_id=invitation.pk, username="again", password=GOOD_PASSWORD
        )
    assert error.value.message_dict == {"token": [INVITATION_GONE]}


def test_a_weak_password_or_taken_username_is_refused_with_nothing_written(study, annotator):
    invitation, _ = invite(study)

    with pytest.raises(ValidationError) as error:
        study_invitation_accept(invitation_id=invitation.pk, username="ann", password="123")

    assert set(error.value.message_dict) == {"username", "password"}
    invitation.refresh_from_db()
    assert invitation.state() == "open"
    assert StudyMember.objects.filter(study=study).count() == 3


@pytest.mark.parametrize("how", ["revoked", "expired", "unknown"])
def test_a_revoked_expired_or_unknown_link_is_refused(study, how):
    invitation, _ = invite(study)
    invitation_id = invitation.pk
    if how == "revoked":
        study_invitation_revoke(invitation=invitation)
    elif how == "expired":
        StudyInvitation.objects.filter(pk=invitation.pk).update(expires_at=invitation.created_at)
    else:
        invitation_id = 0

    with pytest.raises(ValidationError) as error:
        study_invitation_accept(
            invitation_id=invitation_id, username="late", password=GOOD_PASSWORD
        )

    assert "token" in error.value.message_dict
    assert not StudyMember.objects.filter(user__username="late").exists()


def test_a_used_invitation_cannot_be_revoked(study):
    invitation, _ = invite(study)
    study_invitation_accept(invitation_id=invitation.pk, username="newbie", password=GOOD_PASSWORD)

    with pytest.raises(ValidationError) as error:
        study_invitation_revoke(invitation=invitation)

    assert "invitation" in error.value.message_dict


def test_role_change_refuses_a_role_they_have_already(study, annotator):
    StudyMember.objects.create(study=study, user=annotator, role="lead")
    member = StudyMember.objects.get(study=study, user=annotator, role="annotator")

    with pytest.raises(ValidationError) as error:
        study_member_role_change(study=study, member=member, role="lead")

    assert "lead of the study already" in error.value.message_dict["role"][0]
    changed = study_member_role_change(study=study, member=member, role="researcher")
    assert changed.role == "researcher"
