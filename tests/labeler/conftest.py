"""A running study with one member of each role (`study`; `open_study` for open coding),
someone outside it, and the set-ups several folders of tests/labeler share (the study an export
meets, tests.labeler.exported_study's `labelled_study`, among them)."""

import pytest

from labeler.common.roles import Role
from tests.labeler.exported_study import labelled_study  # noqa: F401 (fixture)
from tests.labeler.factories import (
    LabellingStudyFactory,
    OpenStudyFactory,
    StudyItemFactory,
    StudyMemberFactory,
)
from tests.labeler.final_labels import decided_study
from tests.labeler.role_calls import call, items, other_annotator, staff  # noqa: F401 (fixtures)
from tests.mining.celery_worker import purge_queue, start_worker, stop_worker
from tests.mining.factories import BugReportFactory, RepositoryFactory

GOOD_LABELS = {"root-cause": "memory/leak", "impact": ["speed"]}


@pytest.fixture
def study(annotator, lead, researcher):
    study = LabellingStudyFactory(slug="perf", overlap=2)
    for position in range(4):
        StudyItemFactory(study=study, position=position)
    for user, role in ((annotator, "annotator"), (lead, "lead"), (researcher, "researcher")):
        StudyMemberFactory(study=study, user=user, role=role)
    return study


@pytest.fixture
def open_study(annotator, lead, researcher):
    """An open-coding study of three items, two annotations each, with its board."""
    study = OpenStudyFactory(slug="open", name="Open round", overlap=2)
    for position in range(3):
        StudyItemFactory(study=study, position=position)
    for user, role in ((annotator, "annotator"), (lead, "lead"), (researcher, "researcher")):
        StudyMemberFactory(study=study, user=user, role=role)
    return study


@pytest.fixture
def frame_reports():
    """300 reports to draw studies from: pytorch/pytorch#1-200 and tensorflow/tensorflow#201-300,
    a third of them open."""
    torch = RepositoryFactory(owner="pytorch", name="pytorch")
    tf = RepositoryFactory(owner="tensorflow", name="tensorflow")
    for number in range(1, 301):
        BugReportFactory(
            repository=torch if number <= 200 else tf,
            number=number,
            state="closed" if number % 3 else "open",
        )
    return torch, tf


@pytest.fixture
def outsider(make_user):
    return make_user(Role.ANNOTATOR, username="outsider")


@pytest.fixture
def second_annotator(make_user, study):
    user = make_user(Role.ANNOTATOR, username="ann2")
    StudyMemberFactory(study=study, user=user, role="annotator")
    return user


@pytest.fixture
def ann2(make_user):
    """A user named ann2, with no role and in no study (tests.labeler.codebook_revisions's studies
    make them their second annotator)."""
    return make_user(username="ann2")


@pytest.fixture
def worker_without_github():
    """A Celery worker (a subprocess, on the test database and the Redis broker)."""
    purge_queue()
    # No GitHub in these tests: the worker's settings want an address all the same.
    process = start_worker("http://127.0.0.1:9")
    yield process
    stop_worker(process)


@pytest.fixture
def decided(annotator, lead, researcher, make_user):
    """A study with final labels on some items (tests.labeler.final_labels)."""
    return decided_study(annotator=annotator, lead=lead, researcher=researcher, make_user=make_user)
