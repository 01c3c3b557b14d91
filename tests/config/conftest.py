"""The labelling fixtures (the project's plumbing is tested through the apps' endpoints), and
the users these tests sign in as."""

import pytest
from django.test import Client

from tests.labeler.conftest import study  # noqa: F401
from tests.labeler.factories import UserFactory


@pytest.fixture
def ann():
    """A user named ann, with no role."""
    return UserFactory(username="ann")


@pytest.fixture
def superuser_client(study):  # noqa: F811 (the fixture imported above)
    """A client signed in as a superuser, with `study` there to reach."""
    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client
