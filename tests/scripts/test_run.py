"""`make run`'s script, as a person uses it: with no broker configured, an import started on
the imports page returns at once and runs in the background on the folder-queue worker."""

import http.cookiejar
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from mining.models import BugReport, ImportJob
from tests.database import database_url
from tests.mining import github_data

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]
REPO = "octo/repo"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


class Browser:
    """Cookies and CSRF like a browser's, over urllib."""

    def __init__(self, base: str):
        self.base = base
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def get(self, path: str) -> str:
        with self.opener.open(self.base + path, timeout=30) as response:
            return response.read().decode()

    def post(self, path: str, **fields) -> str:
        token = next(c.value for c in self.cookies if c.name == "csrftoken")
        body = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": token}).encode()
        with self.opener.open(self.base + path, data=body, timeout=30) as response:
            return response.read().decode()


class App:
    """scripts/run.py on the test database, its data folder in `data`, no broker."""

    def __init__(self, data: Path, api_url: str):
        self.data = data
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("DJANGO_", "CELERY_", "GITHUB_"))
        }
        env.update(
            DATABASE_URL=database_url(),
            GITHUB_API_URL=api_url,
            GITHUB_SECONDS_BETWEEN_REQUESTS="0",
            GITHUB_SECONDS_BETWEEN_WRITES="0",
        )
        self.output = open(data / f"run-{self.port}.log", "w+")  # noqa: SIM115 (read later)
        self.process = subprocess.Popen(
            [sys.executable, "scripts/run.py", "--port", str(self.port), "--data", str(data)],
            cwd=ROOT,
            env=env,
            stdout=self.output,
            stderr=subprocess.STDOUT,
        )
        wait_for(lambda: "Serving on" in self.log() or self.process.poll() is not None, 120, "app")
        assert self.process.poll() is None, self.log()
        wait_for(lambda: _answers(self.base), 60, "the development server")

    def log(self) -> str:
        self.output.seek(0)
        return self.output.read()

    def browser_as(self, username: str, password: str) -> "Browser":
        browser = Browser(self.base)
        browser.get("/accounts/login/")
        browser.post("/accounts/login/", username=username, password=password)
        return browser

    def stop(self) -> int:
        """As `kill` does (the script treats it as Ctrl-C)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=60)
        self.output.close()
        return code


@pytest.fixture
def run_app(tmp_path, fake_github):
    started = []

    def run() -> App:
        started.append(App(tmp_path, fake_github.url))
        return started[-1]

    yield run
    for app in started:
        if app.process.poll() is None:
            app.stop()


def _answers(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/accounts/login/", timeout=5):
            return True
    except OSError:
        return False


def hold_second_page(fake_github) -> None:
    """The second page of issues is held back until released: no import can end before."""
    fake_github.slow_down(lambda path, variables: 120 if variables.get("after") == "100" else 0)


def wait_for_first_page(job: ImportJob) -> None:
    wait_for(
        lambda: ImportJob.objects.filter(pk=job.pk, reports_done=100).exists(),
        60,
        "the first page, stored by the worker",
    )


def test_an_import_started_on_the_page_runs_in_the_background(run_app, fake_github):
    app = run_app()
    github_data.add_issues(fake_github, REPO, 250)
    hold_second_page(fake_github)
    browser = app.browser_as("lead", "demo-lead")

    page = browser.post("/imports/start/", repository=REPO, api="graphql", state="all")

    assert re.search(r"Import \d+ of octo/repo: queued", page), page
    job = ImportJob.objects.get(repository__full_name=REPO)
    wait_for_first_page(job)
    job.refresh_from_db()
    assert job.status == ImportJob.Status.RUNNING
    assert job.celery_task_id
    assert list((app.data / "queue").glob("*.msg")) == []  # the worker took the message

    fake_github.slow_down(None)
    wait_for(lambda: not ImportJob.objects.get(pk=job.pk).is_active, 60, "the import to end")
    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE, job.error_reason
    assert BugReport.objects.filter(repository__full_name=REPO).count() == 250
    assert app.stop() == 130, app.log()
    assert not _answers(app.base)


def test_an_import_cut_short_by_stopping_the_app_resumes_on_the_next_run(run_app, fake_github):
    first = run_app()
    github_data.add_issues(fake_github, REPO, 250)
    hold_second_page(fake_github)
    first.browser_as("researcher", "demo-researcher").post("/imports/start/", repository=REPO)
    job = ImportJob.objects.get(repository__full_name=REPO)
    wait_for_first_page(job)

    assert first.stop() == 130, first.log()
    assert len(list((first.data / "queue").glob("*.msg"))) == 1  # back in the queue
    job.refresh_from_db()
    assert (job.status, job.reports_done) == (ImportJob.Status.RUNNING, 100)

    fake_github.slow_down(None)
    run_app()
    wait_for(lambda: not ImportJob.objects.get(pk=job.pk).is_active, 60, "the import to end")
    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE, job.error_reason
    assert job.reports_done == 250
    assert BugReport.objects.filter(repository__full_name=REPO).count() == 250
    # The stored page was not fetched again; the page in flight was.
    cursors = [entry.variables.get("after") for entry in fake_github.requests("graphql")]
    assert cursors.count(None) == 1 and cursors.count("100") == 2
