"""A study with one item in dispute and one final, and a member of each kind around it: the
fixtures every API role test calls through (registered in tests/labeler/conftest.py)."""

import pytest
from rest_framework.test import APIClient

from labeler.common.roles import Role
from labeler.labelling.services import assignment_next, assignment_submit
from tests.labeler.factories import StudyMemberFactory

LEAK = {"root-cause": "memory/leak", "impact": ["speed"]}
THREADS = {"root-cause": "threading", "impact": ["speed"]}

# Who calls: the annotator who labelled the items, another annotator of the study, its lead
# and researcher, a non-member, nobody signed in, and staff.
ROLES = ["annotator", "other_annotator", "lead", "researcher", "outsider", "anonymous", "staff"]


@pytest.fixture
def other_annotator(make_user, study):
    user = make_user(Role.ANNOTATOR, username="ann3")
    StudyMemberFactory(study=study, user=user, role="annotator")
    return user


@pytest.fixture
def staff(admin_user):
    return admin_user


def labelled(study, user, labels):
    held = assignment_next(study=study, user=user)
    return assignment_submit(assignment_id=held.pk, user=user, labels=labels)


@pytest.fixture
def items(study, annotator, second_annotator):
    """disputed: ann and ann2 differ on root-cause; final: they agree on everything."""
    disputed = labelled(study, annotator, LEAK)
    labelled(study, second_annotator, THREADS)
    final = labelled(study, annotator, LEAK)
    labelled(study, second_annotator, LEAK)
    return {"disputed": disputed.item, "final": final.item}


def caller(request, study, items, **people):
    """`call` on `study` and its `items`: `people` names who plays a role when the fixture of
    that name would not (an annotator of another study than `study`)."""

    def do(role, method, path, body=None):
        client = APIClient()
        if role != "anonymous":
            client.force_authenticate(people.get(role) or request.getfixturevalue(role))
        path = path.format(slug=study.slug, disputed=items["disputed"].pk, final=items["final"].pk)
        return getattr(client, method)(path, body, format="json")

    return do


@pytest.fixture
def call(request, study, items, other_annotator):
    """Call an endpoint as one of ROLES; `{disputed}` and `{final}` in the path are the items."""
    return caller(request, study, items, other_annotator=other_annotator)


def statuses(**expected):
    """Parametrize (role, expected status) over every one of ROLES."""
    assert set(expected) == set(ROLES), set(ROLES) ^ set(expected)
    return pytest.mark.parametrize(("role", "expected"), list(expected.items()))
