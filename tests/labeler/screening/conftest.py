"""A study over a world with known truth: 240 reports whose words carry a known signal, the
first 100 of them a random batch with final labels on root-cause ("memory" and what lies under
it the positive class), the rest not in the study; a finished triage run on it; and a signed-in
client for each kind of caller of the study."""

from dataclasses import dataclass

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from labeler.common.roles import Role
from labeler.models import FinalLabel, Study, StudyItem, TriageRun
from labeler.screening.services import triage_run_create, triage_run_execute
from labeler.studies.services import study_batch_append
from tests.labeler.factories import LabellingStudyFactory, StudyMemberFactory
from tests.labeler.screening.world import synthetic_reports
from tests.mining.factories import BugReportFactory, RepositoryFactory

REPORTS = 240
LABELLED = 100


@dataclass
class World:
    study: Study
    report_ids: list[int]
    truth: list[int]


def final_label(item: StudyItem, positive: bool) -> None:
    dimension = item.study.dimensions.get(key="root-cause")
    FinalLabel.objects.create(
        item=item,
        dimension=dimension,
        values=["memory/leak" if positive else "threading"],
        method="imported",
        decided_at=timezone.now(),
    )
    item.adjudicated_at = item.first_final_at = timezone.now()
    item.save(update_fields=["adjudicated_at", "first_final_at"])


def label_items(study: Study, truth_by_report: dict[int, int]) -> None:
    for item in study.items.filter(report_id__in=truth_by_report, adjudicated_at__isnull=True):
        final_label(item, bool(truth_by_report[item.report_id]))


@pytest.fixture
def world(db, lead):
    texts, truth = synthetic_reports(REPORTS, prevalence=0.3, seed=2)
    repository = RepositoryFactory(full_name="octo/torch", name="torch")
    reports = [
        BugReportFactory(
            repository=repository,
            number=index + 1,
            title=text[:60],
            body=text,
            # The keyword rule: finds most positives, and some negatives.
            is_performance_candidate=bool(positive) if index % 5 else not positive,
        )
        for index, (text, positive) in enumerate(zip(texts, truth, strict=True))
    ]
    study = LabellingStudyFactory(slug="screen", overlap=1, frame={})
    StudyMemberFactory(study=study, user=lead, role="lead")
    ids = [report.pk for report in reports]
    study_batch_append(
        study=study,
        report_ids=ids[:LABELLED],
        frame={},
        sampling={"mode": "size", "size": LABELLED},
        seed=1,
        frame_size=REPORTS,
    )
    label_items(study, dict(zip(ids[:LABELLED], truth[:LABELLED], strict=True)))
    return World(study=study, report_ids=ids, truth=[int(t) for t in truth])


@pytest.fixture
def done(world) -> TriageRun:
    """A finished triage run of the world's study: root-cause, "memory" positive."""
    run = triage_run_create(study=world.study, dimension="root-cause", positive="memory")
    return triage_run_execute(run_id=run.pk)


# The kinds of caller every screening route is tried with, and their roles in the study.
KINDS = {
    "anonymous": None,
    "non-member": [],
    "annotator": ["annotator"],
    "annotator-and-lead": ["annotator", "lead"],
    "researcher": ["researcher"],
    "lead": ["lead"],
    "superuser": None,
    "superuser-and-annotator": ["annotator"],
}


def _signed_in(client_class, world, make_user, lead):
    def make(kind: str):
        client = client_class()
        if kind == "anonymous":
            return client
        if kind == "lead":
            user = lead
        elif kind.startswith("superuser"):
            user = make_user(Role.ADMIN, username="root")
            for role in KINDS[kind] or []:
                StudyMemberFactory(study=world.study, user=user, role=role)
        else:
            user = make_user(Role.LEAD if "lead" in kind else Role.ANNOTATOR, username=kind)
            for role in KINDS[kind]:
                StudyMemberFactory(study=world.study, user=user, role=role)
        if isinstance(client, APIClient):
            client.force_authenticate(user)
        else:
            client.force_login(user)
        return client

    return make


@pytest.fixture
def client_as(world, make_user, lead):
    """A page client signed in as one kind of caller of the world's study."""
    return _signed_in(Client, world, make_user, lead)


@pytest.fixture
def api_client_as(world, make_user, lead):
    """An API client authenticated as one kind of caller of the world's study."""
    return _signed_in(APIClient, world, make_user, lead)
