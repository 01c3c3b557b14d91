"""Members: invitations to join a study, and the record of members removed from one."""

import datetime as dt

from django.conf import settings
from django.db import models
from django.utils import timezone

from labeler.models.studies import Study, StudyMember


class StudyInvitation(models.Model):
    """A link a lead gives a new person to join the study with a role: it works once, until
    it expires, and only its SHA-256 is stored (the link is shown once, to copy)."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="invitations")
    role = models.CharField(max_length=20, choices=StudyMember.Role.choices)
    token_hash = models.CharField(max_length=64, unique=True)
    email = models.EmailField(blank=True, help_text="Where the link was sent, if it was.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["study", "-created_at", "pk"]

    def __str__(self) -> str:
        return f"invitation to {self.study} as {self.role}"

    def state(self, now: dt.datetime | None = None) -> str:
        """open, used, revoked or expired."""
        if self.used_at is not None:
            return "used"
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at <= (now or timezone.now()):
            return "expired"
        return "open"


class StudyMemberRemoval(models.Model):
    """A role a lead took away from a member: their labels stay, and are shown as by a
    removed member while they do not annotate in the study again."""

    # Indexed as the first column of member_removal_study_role.
    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="member_removals", db_index=False
    )
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    role = models.CharField(max_length=20, choices=StudyMember.Role.choices)
    removed_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["study", "role"], name="member_removal_study_role")]

    def __str__(self) -> str:
        return f"{self.user} removed as {self.role} from {self.study}"
