"""Load the demo: accounts for each role, synthetic bug reports, a demo study and a screening
demo study (enough final labels to train a screening model on).

Safe to run any number of times: accounts, reports and the studies are created once and
reused afterwards.
"""

import json
import random
import tempfile
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from labeler.common.roles import Role, user_grant_role
from labeler.demo import screening_reports
from labeler.labelling.services import assignment_next, assignment_submit
from labeler.models import Study, StudyMember
from labeler.screening.selectors import triage_labels
from labeler.studies.frames import Candidates, FrameQuery
from labeler.studies.sampling import SampleMode, SampleSpec
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
# The screening demo: a study of the performance candidates of a second synthetic repository
# (labeler.demo.screening_reports), on two dimensions of a built-in codebook. Both demo
# annotators label its first SCREENING_LABELLED items; most become final by agreement.
SCREENING_STUDY = "screening-demo"
SCREENING_CODEBOOK = "dl-bug-reporting"
SCREENING_DIMENSIONS = ["symptom", "bug-relatedness"]
SCREENING_POSITIVE = "performance"
SLOW, OTHER = "performance/low-speed", "other-or-unclear"
SCREENING_SAMPLE = 240
SCREENING_LABELLED = 150
# The labels follow the synthetic truth but not always: both annotators give the same wrong
# symptom (performance or not) on this share of the items, and annotator2 alone gives
# another answer on this share of the items (a disagreement for the adjudication queue).
SCREENING_SHARED_ERROR = 0.08
SCREENING_DISAGREE_SHARE = 0.06


class Command(BaseCommand):
    help = "Load the demo accounts, synthetic bug reports and demo studies (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000/", help="URL to print")

    def handle(self, *args, url, **options):
        codebook = self._codebook(DEMO_CODEBOOK)
        screening_codebook = self._codebook(SCREENING_CODEBOOK)
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
                screening = self._screening(codebook=screening_codebook, users=users)
                finals = triage_labels(
                    study=screening, dimension="symptom", positive=SCREENING_POSITIVE
                )
        except ValidationError as error:
            raise CommandError(f"demo not loaded: {'; '.join(error.messages)}") from None

        labelled = study.items.filter(assignments__submitted_at__isnull=False).distinct().count()
        self.stdout.write(
            f"Demo ready: {summary['reports']} reports, study '{study.name}' with "
            f"{study.items.count()} items ({labelled} labelled by the demo annotators).\n"
            f"Screening demo: study '{screening.name}' over {screening.items.count()} "
            f"performance candidates ({len(finals)} with final labels, "
            f"{sum(item.truth for item in finals)} of them performance bugs); a lead trains a "
            f"model at {url.rstrip('/')}/studies/{SCREENING_STUDY}/triage/\n"
            f"Open {url} and sign in as:"
        )
        for username, password, role, _ in DEMO_ACCOUNTS:
            self.stdout.write(f"  {role.value:<11} {username} / {password}")

    def _codebook(self, key: str) -> Codebook:
        codebook = Codebook.objects.filter(key=key).order_by("-created_at").first()
        if codebook is None:
            raise CommandError(
                f"codebook {key!r} is not loaded: run "
                "`python manage.py load_codebook --builtin all` first"
            )
        return codebook

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

    def _screening(self, *, codebook: Codebook, users: dict) -> Study:
        """The screening demo's reports, study, members and labels (labels on its first run)."""
        reports = screening_reports.demo_reports()
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "screening-reports.jsonl"
            path.write_text("".join(json.dumps(report.issue) + "\n" for report in reports))
            reports_import_from_file(path=path)
        study = Study.objects.filter(slug=SCREENING_STUDY).first()
        if study is None:
            study, _ = study_create(
                slug=SCREENING_STUDY,
                name="Demo: which candidates are real performance bugs",
                codebook=codebook,
                dimension_keys=SCREENING_DIMENSIONS,
                frame=FrameQuery(
                    repositories=(screening_reports.REPOSITORY,),
                    candidates=Candidates.PERFORMANCE,
                ),
                sample=SampleSpec(mode=SampleMode.SIZE, size=SCREENING_SAMPLE),
                seed=20260301,
                overlap=2,
                guidelines=(
                    "Keyword search finds many candidates that are no performance bug. Choose "
                    "the symptom the reporter complains about and whether the report turned "
                    "out to be a real framework bug.\n\n"
                    "A lead can train a screening model on the final labels: Screening."
                ),
            )
            self._screening_labels(study=study, users=users, reports=reports)
        for username, _, _, study_role in DEMO_ACCOUNTS:
            study_member_add(study=study, user=users[username], role=study_role)
        return study

    def _screening_labels(self, *, study: Study, users: dict, reports: list) -> None:
        """Both demo annotators label the study's first SCREENING_LABELLED items through the
        labelling desk's services, following the synthetic truth with the noise above."""
        truth = {report.number: report for report in reports}
        numbers = dict(study.items.values_list("report_id", "report__number"))
        dimensions = study.codebook.dimensions
        symptoms = list(dimensions.get(key="symptom").categories.values_list("path", flat=True))
        relatedness = list(
            dimensions.get(key="bug-relatedness").categories.values_list("path", flat=True)
        )
        for username in ("annotator", "annotator2"):
            for _ in range(SCREENING_LABELLED):
                assignment = assignment_next(study=study, user=users[username])
                if assignment is None:
                    break
                report = truth[numbers[assignment.item_report_id]]
                draw = random.Random(report.number)
                labels = {"symptom": [report.symptom], "bug-relatedness": [report.relatedness]}
                if draw.random() < SCREENING_SHARED_ERROR:
                    labels["symptom"] = [OTHER if report.performance else SLOW]
                if username == "annotator2" and draw.random() < SCREENING_DISAGREE_SHARE:
                    key, paths = draw.choice(
                        [("symptom", symptoms), ("bug-relatedness", relatedness)]
                    )
                    labels[key] = [draw.choice([p for p in paths if p not in labels[key]])]
                assignment_submit(
                    assignment_id=assignment.pk,
                    user=users[username],
                    labels=labels,
                    seconds=draw.randint(20, 120),
                )
