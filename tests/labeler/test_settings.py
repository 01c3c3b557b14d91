"""Settings come from the environment; the production mode passes Django's deploy checks."""

import os
import subprocess
import sys
from pathlib import Path

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


def test_with_nothing_set_the_app_uses_sqlite_and_in_process_tasks():
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.DATABASES['default']['ENGINE'], s.CELERY_TASK_ALWAYS_EAGER)"
    )
    clean = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL"}}
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.stdout.split() == ["django.db.backends.sqlite3", "True"], result.stderr
