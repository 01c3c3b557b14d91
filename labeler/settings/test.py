"""Test settings: real PostgreSQL and Redis on localhost unless the environment says otherwise."""

import os

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/labeler")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")

from labeler.settings import *  # noqa: F403

# Serve static files through the finders: the tests never run collectstatic.
WHITENOISE_AUTOREFRESH = True
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Unit tests run tasks in-process; the integration tests start a real worker on the broker.
CELERY_TASK_ALWAYS_EAGER = True
GITHUB_API_URL = "http://127.0.0.1:1"
GITHUB_TOKENS = []
