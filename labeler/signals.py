"""API tokens do not outlive the credentials they were given for: a new password, an unusable
one or a deactivation revokes the user's tokens (sessions already end by Django's own
rules)."""

from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from rest_framework.authtoken.models import Token

CREDENTIAL_FIELDS = {"password", "is_active"}


def remember_credential_change(sender, instance, update_fields=None, **kwargs) -> None:
    """Before a user is saved: note whether the save ends their current credentials.

    A new password is one set through `set_password` (every Django form and command does);
    Django's own rehash of the same password on sign-in is not a change.
    """
    instance._revokes_tokens = False
    if instance.pk is None or (
        update_fields is not None and not CREDENTIAL_FIELDS & {*update_fields}
    ):
        return
    if instance._password is not None:
        instance._revokes_tokens = True
        return
    before = sender.objects.filter(pk=instance.pk).values_list("password", "is_active").first()
    if before is None:
        return
    password, active = before
    unusable = instance.password.startswith(UNUSABLE_PASSWORD_PREFIX)
    made_unusable = unusable and not password.startswith(UNUSABLE_PASSWORD_PREFIX)
    instance._revokes_tokens = made_unusable or (active and not instance.is_active)


def revoke_tokens(sender, instance, **kwargs) -> None:
    if getattr(instance, "_revokes_tokens", False):
        Token.objects.filter(user=instance).delete()
        instance._revokes_tokens = False
