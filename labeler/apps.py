from django.apps import AppConfig
from django.db.models.signals import post_migrate, post_save, pre_save


class LabelerConfig(AppConfig):
    name = "labeler"
    verbose_name = "Studies and labels"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model

        from labeler.common.roles import sync_role_groups
        from labeler.signals import remember_credential_change, revoke_tokens

        post_migrate.connect(sync_role_groups, sender=self)
        user = get_user_model()
        pre_save.connect(remember_credential_change, sender=user)
        post_save.connect(revoke_tokens, sender=user)
