from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from labeler.models import Study
from labeler.revisions.services import COUNTS, study_revise
from taxonomy.models import Codebook


class Command(BaseCommand):
    help = (
        "Move a study, and its labels, to a later version of its codebook (a revision of its "
        "version, directly or not): renamed and merged categories carry over, labels on a "
        "split one are flagged for re-labelling and go back to their annotators."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("version", help="the version of the study's codebook to move to")
        parser.add_argument(
            "--dry-run", action="store_true", help="count what would happen; write nothing"
        )

    def handle(self, *args, slug, version, dry_run, **options):
        study = Study.objects.select_related("codebook").filter(slug=slug).first()
        if study is None:
            raise CommandError(f"no study {slug!r}")
        key = study.codebook.key
        codebook = Codebook.objects.filter(key=key, version=version).first()
        if codebook is None:
            known = Codebook.objects.filter(key=key).values_list("version", flat=True)
            raise CommandError(
                f"codebook {key!r} has no version {version!r} (it has: {', '.join(known)})"
            )
        try:
            outcome = study_revise(study=study, codebook=codebook, user=None, dry_run=dry_run)
        except ValidationError as error:
            raise CommandError("; ".join(error.messages)) from None
        source = outcome.plan.source.version
        head = "would move" if dry_run else "moved"
        self.stdout.write(f"{head} study {slug} from {key} v{source} to v{version}:")
        for name, what in COUNTS:
            self.stdout.write(f"  {outcome.counts[name]} {what}")
        if dry_run:
            self.stdout.write("dry run: nothing was written")
