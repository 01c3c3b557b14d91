"""Test settings: real PostgreSQL and Redis on localhost unless the environment says otherwise."""

import os

import dj_database_url

from config.settings import *  # noqa: F403

# The base module was imported (as this module's package) before anything here ran, so the
# database and broker are set again from the environment, with the local services as defaults.
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/labeler"
    )
}
EMBEDDED_DATABASE_DIR = None
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or "redis://127.0.0.1:6379/15"
CELERY_RESULT_BACKEND = CELERY_BROKER_URL
# Unit tests run tasks in-process; the integration tests start a real worker on the broker.
CELERY_TASK_ALWAYS_EAGER = True

# Serve static files through the finders: the tests never run collectstatic.
WHITENOISE_AUTOREFRESH = True
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
GITHUB_API_URL = "http://127.0.0.1:1"
GITHUB_TOKENS = []
