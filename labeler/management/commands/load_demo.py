"""Load the demo: accounts for each role, synthetic bug reports and a demo study.

Safe to run any number of times: accounts, reports and the study are created once and
reused afterwards.
"""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from labeler.frames import FrameQuery
from labeler.models import Study, StudyMember
from labeler.roles import Role, user_grant_role
from labeler.sampling import SampleSpec
from labeler.services.studies import study_create, study_member_add
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
                study = self._study(codebook=codebook, repositories=summary["repositories"])
                for username, _, _, study_role in DEMO_ACCOUNTS:
                    study_member_add(study=study, user=users[username], role=study_role)
        except ValidationError as error:
            raise CommandError(f"demo not loaded: {'; '.join(error.messages)}") from None

        self.stdout.write(
            f"Demo ready: {summary['reports']} reports, study '{study.name}' with "
            f"{study.items.count()} items.\n"
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

    def _study(self, *, codebook: Codebook, repositories: list[str]) -> Study:
        existing = Study.objects.filter(slug=DEMO_STUDY).first()
        if existing is not None:
            return existing
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
        return study
