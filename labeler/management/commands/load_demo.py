"""Load the demo: accounts for each role, synthetic bug reports and a demo study.

Safe to run any number of times: accounts, reports and the study are created once and
reused afterwards.
"""

import random
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from labeler.common.roles import Role, user_grant_role
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import Study, StudyMember
from labeler.studies.frames import FrameQuery
from labeler.studies.sampling import SampleSpec
from labeler.studies.services import study_create, study_member_add
from mining.services.offline_file import reports_import_from_file
from taxonomy.models import Codebook

DEMO_REPORTS = Path(__file__).resolve().parents[2] / "demo" / "reports.jsonl"
DEMO_STUDY = "demo"
DEMO_CODEBOOK = "dl-performance-root-causes"
# (username, password, site role, role in the demo study). The passwords are printed on
# purpose: these accounts exist only in the local demo.
DEMO_ACCOUNTS = [
    ("annotator", "demo-annotator", Role.ANNOTATOR, StudyMember.Role.ANNOTATOR),
    ("annotator2", "demo-annotator2", Role.ANNOTATOR, StudyMember.Role.ANNOTATOR),
    ("lead", "demo-lead", Role.LEAD, StudyMember.Role.LEAD),
    ("researcher", "demo-researcher", Role.RESEARCHER, StudyMember.Role.RESEARCHER),
]
# The demo annotators' labels on part of the study: each labels this many items, in the order
# the study hands them out, so some items have both labels (agreeing or not) and some one.
DEMO_LABELS_EACH = 24
# Of the items both label, about this share gets another first-dimension label from annotator2
# (half that share on the second dimension, and so on).
DEMO_DISAGREE_SHARE = 0.3


class Command(BaseCommand):
    help = "Load the demo accounts, synthetic bug reports and demo study (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000/", help="URL to print")

    def handle(self, *args, url, **options):
        codebook = Codebook.objects.filter(key=DEMO_CODEBOOK).order_by("-created_at").first()
        if codebook is None:
            raise CommandError(
                f"codebook {DEMO_CODEBOOK!r} is not loaded: run "
                "`python manage.py load_codebook --builtin all` first"
            )
        try:
            with transaction.atomic():
                users = self._accounts()
                summary = reports_import_from_file(path=DEMO_REPORTS)
                study, created = self._study(
                    codebook=codebook, repositories=summary["repositories"]
                )
                for username, _, _, study_role in DEMO_ACCOUNTS:
                    study_member_add(study=study, user=users[username], role=study_role)
                if created:
                    self._labels(study=study, users=users)
        except ValidationError as error:
            raise CommandError(f"demo not loaded: {'; '.join(error.messages)}") from None

        labelled = study.items.filter(assignments__submitted_at__isnull=False).distinct().count()
        self.stdout.write(
            f"Demo ready: {summary['reports']} reports, study '{study.name}' with "
            f"{study.items.count()} items ({labelled} labelled by the demo annotators).\n"
            f"Open {url} and sign in as:"
        )
        for username, password, role, _ in DEMO_ACCOUNTS:
            self.stdout.write(f"  {role.value:<11} {username} / {password}")

    def _accounts(self) -> dict:
        users = {}
        for username, password, role, _ in DEMO_ACCOUNTS:
            user, created = get_user_model().objects.get_or_create(username=username)
            if created:
                user.set_password(password)
                user.save()
            user_grant_role(user=user, role=role)
            users[username] = user
        return users

    def _study(self, *, codebook: Codebook, repositories: list[str]) -> tuple[Study, bool]:
        existing = Study.objects.filter(slug=DEMO_STUDY).first()
        if existing is not None:
            return existing, False
        study, _ = study_create(
            slug=DEMO_STUDY,
            name="Demo: root causes of performance bugs",
            codebook=codebook,
            frame=FrameQuery(repositories=tuple(repositories)),
            sample=SampleSpec(),
            seed=20260101,
            overlap=2,
            guidelines=(
                "Read the report, its discussion and its fix, then choose the root cause "
                "that the **fix** addresses and the impact the reporter saw.\n\n"
                "Keyboard: number keys choose, Enter submits, `?` lists every shortcut."
            ),
        )
        return study, True

    def _labels(self, *, study: Study, users: dict) -> None:
        """The two demo annotators label part of the study through the labelling desk's own
        services (hand-out, submit), so that agreement, adjudication and analysis have
        something to show on the first run. Each report's choice is drawn from its number, the
        same for both annotators, except that annotator2 picks another root cause on about
        DEMO_DISAGREE_SHARE of the items (less on later dimensions): some agreement, some
        disagreement, reproducible."""
        dimensions = list(study.codebook.dimensions.order_by("position"))
        choices = {}
        for dimension in dimensions:
            paths = sorted(dimension.categories.values_list("path", flat=True))
            leaves = [path for path in paths if not any(p.startswith(f"{path}/") for p in paths)]
            choices[dimension.key] = leaves if dimension.leaf_only else paths
        for username in ("annotator", "annotator2"):
            for _ in range(DEMO_LABELS_EACH):
                assignment = assignment_next(study=study, user=users[username])
                if assignment is None:
                    break
                number = assignment.item.report.number
                draw = random.Random(number)
                labels = {key: [draw.choice(paths)] for key, paths in choices.items()}
                for position, dimension in enumerate(dimensions):
                    # Less disagreement on each later dimension (root cause, then impact, ...).
                    if username == "annotator2" and draw.random() < DEMO_DISAGREE_SHARE / (
                        position + 1
                    ):
                        chosen = labels[dimension.key][0]
                        others = [path for path in choices[dimension.key] if path != chosen]
                        labels[dimension.key] = [draw.choice(others)]
                assignment_submit(
                    assignment_id=assignment.pk,
                    user=users[username],
                    labels=labels,
                    seconds=draw.randint(40, 240),
                )
