"""A running study with one member of each role (`study`; `open_study` for open coding), and
someone outside it."""

import pytest

from labeler.common.roles import Role
from tests.labeler.factories import (
    LabellingStudyFactory,
    OpenStudyFactory,
    StudyItemFactory,
    StudyMemberFactory,
)
from tests.labeler.final_labels import decided_study
from tests.labeler.role_calls import call, items, other_annotator, staff  # noqa: F401 (fixtures)
from tests.mining.celery_worker import purge_queue, start_worker, stop_worker

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
