from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from labeler.adjudication.services import final_labels_import
from labeler.common.label_csv import AnnotationFileError
from labeler.imports.label_import import label_import_store
from labeler.models import Study


class Command(BaseCommand):
    help = (
        "Import labels made elsewhere: a CSV with columns item,annotator,dimension,value[,note] "
        "(item: owner/name#number; value: a category key path, ';' between several). "
        "Every bad row is reported with its line and nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file", type=Path, metavar="FILE.csv")
        parser.add_argument(
            "--create-missing-reports",
            action="store_true",
            help="create reports not imported yet as stubs (the next import fills them in)",
        )
        parser.add_argument(
            "--final",
            action="store_true",
            help="the rows are final labels decided elsewhere (annotator: who decided), for "
            "items already in the study; they become final, their method 'imported'",
        )

    def handle(self, *args, slug, file, create_missing_reports, final, **options):
        study = Study.objects.filter(slug=slug).first()
        if study is None:
            raise CommandError(f"no study {slug!r}")
        try:
            data = file.read_bytes()
        except OSError as error:
            raise CommandError(f"{file}: {error.strerror}") from None
        if final and create_missing_reports:
            raise CommandError(
                "--final takes items already in the study: no --create-missing-reports"
            )
        try:
            if final:
                done = final_labels_import(study=study, data=data, source=str(file))
                self.stdout.write(
                    f"imported final labels of {done.items} items ({done.labels} labels; "
                    f"{done.replaced} automatic or earlier ones replaced)"
                )
                return
            summary = label_import_store(
                study=study,
                data=data,
                source=str(file),
                create_missing_reports=create_missing_reports,
            )
        except AnnotationFileError as error:
            count = error.count
            raise CommandError(
                f"{count} problem{'s' if count != 1 else ''}; nothing was imported:\n"
                + "\n".join(error.problems)
            ) from None
        except ValidationError as error:
            raise CommandError("; ".join(error.messages)) from None
        self.stdout.write(
            f"imported {summary.rows} labels: {summary.submissions} submissions, "
            f"{summary.items_added} items added to {slug}, {summary.reports_created} stub "
            f"reports, {summary.users_created} new users"
        )
