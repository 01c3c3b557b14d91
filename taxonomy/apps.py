from django.apps import AppConfig


class TaxonomyConfig(AppConfig):
    name = "taxonomy"
    verbose_name = "Codebooks"

    def ready(self) -> None:
        from django.urls import register_converter

        from taxonomy.converters import CodebookNameConverter

        # Before any URL conf is read: the taxonomy's routes and the labeler's use it.
        register_converter(CodebookNameConverter, "codebook")
