from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from taxonomy.codebook_file import codebook_yaml
from taxonomy.selectors import codebook_missing_message, codebook_newest, codebook_spec


class Command(BaseCommand):
    help = (
        "Write a codebook version as the codebook file (YAML) load_codebook reads; a revised "
        "version carries its 'revises' block (the version and the mapping from it)."
    )

    def add_arguments(self, parser):
        parser.add_argument("key", metavar="KEY", help="the codebook's key")
        parser.add_argument("version", metavar="VERSION", help="the version to export")
        parser.add_argument(
            "--output", metavar="FILE", help="write the file here instead of to standard output"
        )

    def handle(self, *args, key, version, output, **options):
        codebook = codebook_newest(key=key, version=version) if version else None
        if codebook is None:
            raise CommandError(codebook_missing_message(key=key, version=version))
        text = codebook_yaml(codebook_spec(codebook=codebook))
        if output is None:
            self.stdout.write(text, ending="")
            return
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as error:
            raise CommandError(f"{output}: {error.strerror or error}") from None
        self.stdout.write(f"exported: {key} v{codebook.version} ({output})")
