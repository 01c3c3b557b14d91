from django.apps import AppConfig


class MiningConfig(AppConfig):
    name = "mining"
    verbose_name = "Mined bug reports"
