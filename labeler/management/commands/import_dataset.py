from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from labeler.imports.dataset_import import DatasetImportError, dataset_import


class Command(BaseCommand):
    help = (
        "Load a study's JSON export (made with --include-annotators) into this instance: its "
        "reports, codebook, study, annotators (accounts without a password), labels and final "
        "labels. The whole file is checked first; a bad or partial file writes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, file, **options):
        try:
            data = file.read_bytes()
        except OSError as error:
            raise CommandError(f"{file}: {error.strerror}") from None
        try:
            done = dataset_import(data=data, source=str(file))
        except DatasetImportError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"study {done.study.slug!r}: {done.reports} reports, {done.annotators} annotators, "
            f"{done.annotations} labels, {done.final_labels} final labels"
        )
