"""Settings come from the environment; the production mode passes Django's deploy checks."""

import os
import subprocess
import sys
from pathlib import Path

from config.embedded_db import EmbeddedPostgres

ROOT = Path(__file__).resolve().parents[2]


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_mode_passes_check_deploy_without_warnings():
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_SETTINGS_MODULE="config.settings.production",
        SECRET_KEY="k" * 20 + "-this-is-a-long-random-enough-secret-for-tests-0123456789",
        ALLOWED_HOSTS="labeler.example.org",
    )

    assert result.returncode == 0, result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_production_mode_refuses_a_missing_secret_key():
    result = manage("check", DJANGO_SETTINGS_MODULE="config.settings.production", SECRET_KEY="")

    assert result.returncode != 0
    assert "SECRET_KEY must be set to a random string of 50+ characters" in result.stderr


def test_a_bad_boolean_names_the_variable():
    result = manage("check", DJANGO_SETTINGS_MODULE="config.settings", DEBUG="perhaps")

    assert result.returncode != 0
    assert "DEBUG='perhaps': expected one of" in result.stderr


def settings_of(code: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL"}}
    setup = "import django; django.setup(); from django.conf import settings as s"
    return subprocess.run(
        [sys.executable, "-c", f"{setup}; {code}"],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_with_nothing_set_the_app_uses_the_embedded_postgresql_and_in_process_tasks():
    result = settings_of(
        "d = s.DATABASES['default']; print(d['ENGINE'], d['HOST'], d['NAME'], "
        "s.EMBEDDED_DATABASE_DIR, s.CELERY_TASK_ALWAYS_EAGER)"
    )

    assert result.stdout.split() == [
        "django.db.backends.postgresql",
        str(EmbeddedPostgres(ROOT / ".data").socket_dir),
        "labeler",
        str(ROOT / ".data"),
        "True",
    ], result.stderr


def test_database_url_points_the_app_at_another_server():
    result = settings_of(
        "d = s.DATABASES['default']; "
        "print(d['HOST'], d['PORT'], d['NAME'], s.EMBEDDED_DATABASE_DIR)",
        DATABASE_URL="postgres://labeler:pw@db.example.org:6543/labels",
    )

    assert result.stdout.split() == ["db.example.org", "6543", "labels", "None"], result.stderr


def test_a_folder_queue_broker_sends_tasks_to_a_worker_and_keeps_no_results():
    result = settings_of(
        "print(s.CELERY_TASK_ALWAYS_EAGER, s.CELERY_RESULT_BACKEND, "
        "sorted(s.CELERY_BROKER_TRANSPORT_OPTIONS.items()))",
        CELERY_BROKER_URL="filesystem://localhost/srv/labeler/queue",
    )

    assert result.stdout.strip() == (
        "False None [('control_folder', '/srv/labeler/queue/control'), "
        "('data_folder_in', '/srv/labeler/queue'), ('data_folder_out', '/srv/labeler/queue')]"
    ), result.stderr


def test_a_folder_queue_without_a_folder_is_refused():
    result = settings_of("pass", CELERY_BROKER_URL="filesystem://")

    assert result.returncode != 0
    assert "CELERY_BROKER_URL='filesystem://': a folder queue needs an absolute folder" in (
        result.stderr
    )
