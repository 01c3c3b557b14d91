"""Settings for the Celery worker the integration tests start: a real broker, the test DB."""

import os

from config.settings.test import *  # noqa: F403

CELERY_TASK_ALWAYS_EAGER = False
# A killed worker's unacknowledged task comes back within seconds, not hours: the next worker
# restores messages delivered more than visibility_timeout ago, at start and every second.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 2,
    "unacked_restore_interval": 1,
    "unacked_restore_throttle": 1,
}
GITHUB_API_URL = os.environ["GITHUB_API_URL"]
GITHUB_TOKENS = []
GITHUB_SECONDS_BETWEEN_REQUESTS = 0
GITHUB_SECONDS_BETWEEN_WRITES = 0
# Longer than the slowest answer the fake GitHub is told to give (1.5 s), with room for a busy
# machine; short enough that a killed worker's lock frees up within the tests' waits.
GITHUB_TOKEN_LOCK_SECONDS = 5
