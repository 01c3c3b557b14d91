"""The labelling fixtures: the project's plumbing is tested through the apps' endpoints."""

from tests.labeler.conftest import study  # noqa: F401
