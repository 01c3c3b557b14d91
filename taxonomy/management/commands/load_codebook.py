from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from taxonomy.builtin import builtin_names, builtin_path
from taxonomy.codebook_file import CodebookFileError, read_codebook_file
from taxonomy.models import Codebook
from taxonomy.services import codebook_load, codebook_revise


class Command(BaseCommand):
    help = (
        "Create or update codebooks from codebook files (YAML); a file with a 'revises' block "
        "becomes a new version derived from the one it names. Loading twice changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="*", metavar="FILE", help="codebook files to load")
        parser.add_argument(
            "--builtin",
            action="append",
            default=[],
            metavar="NAME",
            help=f"a shipped codebook ({', '.join(builtin_names())}), or 'all'",
        )

    def handle(self, *args, files, builtin, **options):
        paths = list(files)
        for name in builtin:
            if name == "all":
                paths.extend(builtin_path(n) for n in builtin_names())
            elif name in builtin_names():
                paths.append(builtin_path(name))
            else:
                shipped = ", ".join([*builtin_names(), "all"])
                raise CommandError(f"--builtin {name}: no such codebook (shipped: {shipped})")
        if not paths:
            raise CommandError("name at least one FILE or --builtin NAME")

        # Parse every file before writing any, so one bad file leaves the database untouched.
        specs = []
        problems = []
        for path in paths:
            try:
                specs.append(read_codebook_file(path))
            except CodebookFileError as error:
                problems.extend(str(problem) for problem in error.problems)
        if problems:
            raise CommandError("codebook file refused:\n" + "\n".join(problems))

        results = []
        with transaction.atomic():
            for path, spec in zip(paths, specs, strict=True):
                try:
                    codebook, changed = self.load(spec)
                except ValidationError as error:
                    raise CommandError(f"{path}: {'; '.join(error.messages)}") from None
                results.append((path, codebook, changed))
        for path, codebook, changed in results:
            verb = "loaded" if changed else "unchanged"
            self.stdout.write(f"{verb}: {codebook.key} v{codebook.version} ({path})")

    def load(self, spec) -> tuple[Codebook, bool]:
        if spec.revises is None:
            return codebook_load(spec=spec)
        base = Codebook.objects.filter(key=spec.key, version=spec.revises.version).first()
        if base is None:
            raise ValidationError(
                f"revises version {spec.revises.version} of {spec.key!r}, which is not loaded"
            )
        loaded = Codebook.objects.filter(key=spec.key, version=spec.version).exists()
        codebook = codebook_revise(base=base, spec=spec, mapping=spec.revises.mapping)
        return codebook, not loaded
