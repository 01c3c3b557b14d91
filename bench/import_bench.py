"""Import benchmark: N synthetic reports from the local fake GitHub, GraphQL and REST.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/mining_bench \
        .venv/bin/python bench/import_bench.py [-n 10000]

Runs the real import path (mining.importer.run_import, in-process instead of on a worker)
against tests/fakegithub on loopback, then re-runs it with nothing changed. Prints API
requests per 1,000 reports and reports stored per second. The database is migrated first;
each run uses fresh repository names, so nothing is overwritten.
"""

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "labeler.settings")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/mining_bench")
os.environ.setdefault("GITHUB_SECONDS_BETWEEN_REQUESTS", "0")
os.environ.setdefault("GITHUB_SECONDS_BETWEEN_WRITES", "0")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402

from mining import importer, services  # noqa: E402
from mining.models import BugReport  # noqa: E402
from tests.fakegithub.server import FakeGitHub  # noqa: E402
from tests.mining.payloads import rest_comment, rest_commit, rest_issue  # noqa: E402


def populate(fake: FakeGitHub, repo_name: str, count: int) -> None:
    repo = fake.repo(repo_name)
    for number in range(1, count + 1):
        comments = 60 if number % 100 == 0 else 3
        repo.comments[number] = [
            rest_comment(number * 1000 + k, user=f"u{k % 4}", hours=k + 1, issue_number=number)
            for k in range(comments)
        ]
        title = "Training got slower" if number % 20 == 0 else f"Crash in op {number}"
        repo.issues[number] = rest_issue(
            number, repo=repo_name, api=fake.url, title=title, comments=comments
        )
        if number % 10 == 0:
            sha = f"{number:040x}"
            repo.commits[sha] = rest_commit(sha, f"Fix #{number}", repo=repo_name, api=fake.url)
            repo.timeline[number] = [
                {"event": "closed", "commit_id": sha},
                {"event": "referenced", "commit_id": sha},
            ]
        if number % 25 == 0:
            repo.closing_prs[number] = [100000 + number]
            repo.pulls[100000 + number] = {"merged": True, "merge_commit_sha": f"{number:040x}"}


def measure(fake: FakeGitHub, repo_name: str, api: str) -> tuple[float, int, int, str]:
    before = len(fake.log)
    patch_before = sum(1 for entry in fake.log if "/commits/" in entry.path)
    started = time.perf_counter()
    job = services.import_job_create(repository_full_name=repo_name, api=api)
    status = importer.run_import(job.pk)
    elapsed = time.perf_counter() - started
    job.refresh_from_db()
    patches = sum(1 for entry in fake.log if "/commits/" in entry.path) - patch_before
    assert status == "done", job.error_reason
    return elapsed, len(fake.log) - before, patches, f"{job.reports_done} reports stored"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=10_000, help="synthetic reports (10,000)")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    fake = FakeGitHub().start()
    fake.limit = fake.remaining = 10_000_000  # measure speed, not GitHub's hourly budget
    settings.GITHUB_API_URL = fake.url
    settings.GITHUB_TOKENS = []
    stamp = int(time.time())
    print(f"{args.n} synthetic reports (3 comments each, 1% with 60; 10% fixed by a commit, "
          f"4% with a closing PR), fake GitHub at {fake.url}")  # fmt: skip
    for api in ("graphql", "rest"):
        repo_name = f"bench/{api}-{stamp}"
        populate(fake, repo_name, args.n)
        elapsed, requests, patches, stored = measure(fake, repo_name, api)
        count = BugReport.objects.filter(repository__full_name=repo_name).count()
        listing = requests - patches if api == "graphql" else requests
        print(
            f"\n[{api}] first import: {stored} in {elapsed:.1f} s"
            f" -> {count / elapsed:,.0f} reports/s"
        )
        print(f"[{api}]   API requests: {requests} total; {listing * 1000 / count:.1f} per 1,000 "
              f"reports{' excluding' if api == 'graphql' else ' including'} {patches} REST "
              f"patch requests (one per fix commit of a candidate report)")  # fmt: skip
        elapsed, requests, patches, stored = measure(fake, repo_name, api)
        print(
            f"[{api}] re-run, nothing changed: {requests} API requests, {elapsed:.2f} s ({stored})"
        )
        elapsed, requests, patches, stored = measure(fake, repo_name, api)
        print(
            f"[{api}] third run, nothing changed: {requests} API requests,"
            f" {elapsed:.2f} s ({stored})"
        )
    fake.stop()


if __name__ == "__main__":
    main()
