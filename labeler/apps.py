from django.apps import AppConfig
from django.db.models.signals import post_migrate


class LabelerConfig(AppConfig):
    name = "labeler"
    verbose_name = "Studies and labels"

    def ready(self) -> None:
        from labeler.roles import sync_role_groups

        post_migrate.connect(sync_role_groups, sender=self)
