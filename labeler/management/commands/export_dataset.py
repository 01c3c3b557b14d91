import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from config.commands import READING_COMMAND_CHECKS
from labeler.export.dataset import ExportOptions
from labeler.export.pipeline import FORMATS, Export
from labeler.models import Study


def datasheet_paths(output: Path) -> tuple[Path, Path]:
    """FILE.datasheet.md and FILE.datasheet.json beside FILE (its extension dropped)."""
    stem = output.with_suffix("")
    return stem.with_name(stem.name + ".datasheet.md"), stem.with_name(
        stem.name + ".datasheet.json"
    )


class Command(BaseCommand):
    requires_system_checks = READING_COMMAND_CHECKS
    help = (
        "Export a study's labelled dataset (one record per item) as CSV, JSON or JSON Lines, "
        "with its datasheet: inside the JSON, beside --output for CSV and JSON Lines."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--format", choices=FORMATS, default="csv", dest="fmt")
        parser.add_argument("--output", type=Path, help="file to write (default: stdout)")
        parser.add_argument(
            "--include-annotators",
            action="store_true",
            help="each annotator's labels, notes, unsure flags and seconds, by pseudonym",
        )
        parser.add_argument(
            "--real-names",
            action="store_true",
            help="with --include-annotators: annotators by username instead of pseudonym",
        )
        parser.add_argument("--final-only", action="store_true", help="leave out items not final")

    def handle(self, *args, slug, fmt, output, include_annotators, real_names, final_only, **_):
        study = Study.objects.select_related("codebook").filter(slug=slug).first()
        if study is None:
            raise CommandError(f"no study {slug!r}")
        if real_names and not include_annotators:
            raise CommandError("--real-names: only with --include-annotators")
        export = Export(
            study=study,
            fmt=fmt,
            options=ExportOptions(
                include_annotators=include_annotators,
                final_only=final_only,
                real_names=real_names,
            ),
        )
        if output is None:
            for piece in export.pieces():
                self.stdout.write(piece, ending="")
            return
        with output.open("w", encoding="utf-8", newline="") as file:
            for piece in export.pieces(datasheet=fmt != "json"):
                file.write(piece)
        written = [output]
        if fmt != "json":
            markdown_path, json_path = datasheet_paths(output)
            json_path.write_text(
                json.dumps(export.datasheet, indent=2, ensure_ascii=False) + "\n", "utf-8"
            )
            markdown_path.write_text(export.datasheet_markdown() + "\n", "utf-8")
            written += [markdown_path, json_path]
        self.stderr.write("wrote " + ", ".join(str(path) for path in written))
