"""A real Celery worker in a subprocess, on the test database and the Redis broker."""

import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings

from config.celery import app
from tests.database import database_url

ROOT = Path(__file__).resolve().parents[2]


def start_worker(api_url: str) -> subprocess.Popen:
    """A solo worker (tests.mining.worker_settings) that imports from `api_url`."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.mining.worker_settings",
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "GITHUB_API_URL": api_url,
    }
    return subprocess.Popen(
        [str(Path(sys.executable).parent / "celery"), "-A", "config", "worker", "-P", "solo",
         "--loglevel=warning", "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip


def stop_worker(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def purge_queue() -> None:
    app.control.purge()
