"""Settings for the Celery worker the integration test starts: a real broker, the test DB."""

import os

from labeler.settings.test import *  # noqa: F403

CELERY_TASK_ALWAYS_EAGER = False
GITHUB_API_URL = os.environ["GITHUB_API_URL"]
GITHUB_TOKENS = []
GITHUB_SECONDS_BETWEEN_REQUESTS = 0
GITHUB_SECONDS_BETWEEN_WRITES = 0
