import json

from django.core.management.base import BaseCommand, CommandError

from taxonomy.diff import diff_text
from taxonomy.selectors import codebook_missing_message, codebook_newest, codebook_versions_diff


class Command(BaseCommand):
    help = (
        "What changed between two versions of a codebook (added, removed, renamed, merged, "
        "split, definitions changed), read through the revisions' mappings when one version "
        "derives from the other, by key path otherwise."
    )

    def add_arguments(self, parser):
        parser.add_argument("key", metavar="KEY", help="the codebook's key")
        parser.add_argument("old", metavar="V1", help="the version to compare from")
        parser.add_argument("new", metavar="V2", help="the version to compare to")
        parser.add_argument(
            "--json",
            dest="as_json",
            action="store_true",
            help="print the diff as JSON (see docs/researcher.md, Codebooks)",
        )

    def handle(self, *args, key, old, new, as_json, **options):
        codebooks = []
        for version in (old, new):
            codebook = codebook_newest(key=key, version=version)
            if not version or codebook is None:
                raise CommandError(codebook_missing_message(key=key, version=version))
            codebooks.append(codebook)
        diff = codebook_versions_diff(old=codebooks[0], new=codebooks[1])
        if as_json:
            self.stdout.write(json.dumps(diff.as_dict(), indent=2, ensure_ascii=False))
        else:
            self.stdout.write(diff_text(diff), ending="")
