"""Production mode, like every mode, sends a Content-Security-Policy: scripts and styles from
the app only."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

POLICY = {
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
}

# The sign-in page rendered in production mode, with plain static files: the production ones
# need `collectstatic` first, which has nothing to do with the policy.
FETCH = """
import json
import django
django.setup()
from django.test import Client, override_settings
from django.test.utils import setup_test_environment
setup_test_environment()
plain = {"staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
client = Client()
with override_settings(STORAGES=plain):
    page = client.get("/accounts/login/", secure=True, headers={"host": "labels.example.org"})
api = client.get("/api/ping/", secure=True, headers={"host": "labels.example.org"})
print(json.dumps([[r.status_code, r.get("Content-Security-Policy")] for r in (page, api)]))
"""


def test_production_mode_sends_the_policy_on_pages_and_the_api():
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env = {
        **clean,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": "k" * 20 + "-this-is-a-long-random-enough-secret-for-tests-0123456789",
        "ALLOWED_HOSTS": "labels.example.org",
    }

    result = subprocess.run(
        [sys.executable, "-c", FETCH],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 0, result.stderr
    page, api = json.loads(result.stdout.splitlines()[-1])
    for response, status in ((page, 200), (api, 401)):
        assert response[0] == status
        assert set(response[1].split("; ")) == POLICY


def test_every_mode_sends_the_same_policy(client):
    """Development and the tests run under the policy production sends, so a page that breaks
    it breaks in the tests (tests/browser/test_content_security_policy.py)."""
    response = client.get("/accounts/login/")

    assert set(response["Content-Security-Policy"].split("; ")) == POLICY
