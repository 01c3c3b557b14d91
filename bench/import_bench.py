"""Import benchmark: N synthetic reports from the local fake GitHub, GraphQL and REST.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/mining_bench \
        .venv/bin/python bench/import_bench.py [-n 10000] [--study 300]

Runs the real import path (mining.importer.run_import, in-process instead of on a worker)
against tests/fakegithub on loopback, then re-runs it twice with nothing changed. Prints API
requests per 1,000 reports and reports stored per second. 40% of the reports have a fix (a
closing commit, sometimes with further commits, or a merged pull request); the GraphQL import
brings their sizes and asks for no patch. Then a study of --study items is drawn from the
GraphQL repository, as a lead would, and the per-file patches of its items' fix commits are
fetched on demand (one REST request per commit): printed apart from the import's requests.
The fake runs in a separate process (its GraphQL execution would otherwise compete with the
importer for this process's CPU); --in-process keeps it here. The database is migrated first;
each run uses fresh repository names. The benchmark's database (default `mining_bench`) is
dropped and created afresh.
"""

import argparse
import io
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/mining_bench")
os.environ.setdefault("GITHUB_SECONDS_BETWEEN_REQUESTS", "0")
os.environ.setdefault("GITHUB_SECONDS_BETWEEN_WRITES", "0")
os.environ.setdefault("LOG_LEVEL", "WARNING")  # the in-process tasks' lines would drown the figures

from bench_db import database_at  # noqa: E402

# Start from an empty database of the benchmark's own, so every run measures the same thing on
# any machine.
database_at(os.environ["DATABASE_URL"], "create")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402

from mining import importer  # noqa: E402
from mining.models import BugReport, Commit  # noqa: E402
from mining.services.import_jobs import import_job_create  # noqa: E402
from tests.fakegithub.server import FakeGitHub, RemoteFake  # noqa: E402
from tests.mining.payloads import rest_comment, rest_commit, rest_issue  # noqa: E402


def populate(fake: FakeGitHub, repo_name: str, count: int) -> None:
    """Reports with 3 comments (1% with 60); 40% fixed: by number % 10, 0-1 closed by a
    commit (one in three of those with two more commits referencing it), 2 closed by a
    commit that lands a pull request, 3 by a merged pull request (GitHub's closing
    reference, with its merge commit)."""
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
        kind = number % 10
        if kind > 3:
            continue
        sha = f"{number:040x}"
        if kind == 3:
            repo.closing_prs[number] = [100_000 + number]
            repo.pulls[100_000 + number] = {"merged": True, "merge_commit_sha": sha}
            repo.commits[sha] = rest_commit(sha, f"Merge #{number}", repo=repo_name, api=fake.url)
            continue
        message = f"Fix #{number}"
        if kind == 2:
            message += f"\n\nPull Request resolved: https://github.com/{repo_name}/pull/{number}"
        repo.commits[sha] = rest_commit(sha, message, repo=repo_name, api=fake.url)
        repo.timeline[number] = [{"event": "closed", "commit_id": sha}]
        if kind == 0 and number % 3 == 0:
            for part in (1, 2):
                extra = f"{number:038x}{part:02x}"
                repo.commits[extra] = rest_commit(
                    extra, f"Part {part} of the fix for #{number}", repo=repo_name, api=fake.url
                )
                repo.timeline[number].append({"event": "referenced", "commit_id": extra})


COMMITS = {
    "graphql": "none: patches come on demand",
    "rest": "one per commit in a closed report's timeline, for its message and patch",
}


def populate_all(fake: FakeGitHub, repo_names: list[str], count: int) -> None:
    fake.limit = fake.remaining = 10_000_000  # measure speed, not GitHub's hourly budget
    for repo_name in repo_names:
        populate(fake, repo_name, count)


@dataclass
class Run:
    seconds: float
    reports: int
    requests: int
    not_modified: int
    commit_requests: int
    job_requests: int
    job_not_modified: int


def measure(fake: RemoteFake | FakeGitHub, repo_name: str, api: str) -> Run:
    before = len(fake.requests())
    started = time.perf_counter()
    job = import_job_create(repository_full_name=repo_name, api=api)
    status = importer.run_import(job.pk)
    elapsed = time.perf_counter() - started
    job.refresh_from_db()
    assert status == "done", job.error_reason
    log = fake.requests()[before:]
    patches = [entry for entry in log if "/commits/" in entry.path]
    return Run(
        seconds=elapsed,
        reports=job.reports_done,
        requests=len(log),
        not_modified=sum(1 for entry in log if entry.status == 304),
        commit_requests=len(patches),
        job_requests=job.api_requests,
        job_not_modified=job.api_requests_not_modified,
    )


def draw_study(fake: RemoteFake | FakeGitHub, repo_name: str, size: int) -> None:
    """A study of `size` items drawn from the repository, as a lead would; the patches of
    its items' fix commits are then fetched on demand (in-process: no broker)."""
    from labeler.studies.frames import FrameQuery
    from labeler.studies.sampling import SampleMode, SampleSpec
    from labeler.studies.services import study_create
    from taxonomy.models import Codebook

    call_command(
        "load_codebook", builtin=["dl-performance-root-causes"], verbosity=0, stdout=io.StringIO()
    )
    before = len(fake.requests())
    started = time.perf_counter()
    study, batch = study_create(
        slug=f"bench-{repo_name.rsplit('-', 1)[-1]}",
        name="Bench study",
        codebook=Codebook.objects.get(key="dl-performance-root-causes"),
        frame=FrameQuery(repositories=(repo_name,)),
        sample=SampleSpec(mode=SampleMode.SIZE, size=size),
        seed=7,
    )
    elapsed = time.perf_counter() - started
    log = fake.requests()[before:]
    patch_requests = [entry for entry in log if "/commits/" in entry.path]
    reports = study.items.values("report_id")
    with_fix = BugReport.objects.filter(pk__in=reports, has_fix=True).count()
    commits = Commit.objects.filter(fix_links__report__in=reports).distinct()
    fetched = commits.filter(files_fetched=True).count()
    print(f"\n[study] {batch.sample_size} items drawn ({with_fix} with a fix; "
          f"{commits.count()} fix commits): {len(patch_requests)} REST requests for their "
          f"patches ({len(log) - len(patch_requests)} other), {fetched} commits now with "
          f"patches, {elapsed:.1f} s including the draw")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=10_000, help="synthetic reports (10,000)")
    parser.add_argument("--study", type=int, default=300, help="items of the study drawn (300)")
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="run the fake GitHub in this process (its CPU then competes with the importer's)",
    )
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    stamp = int(time.time())
    names = {api: f"bench/{api}-{stamp}" for api in ("graphql", "rest")}
    if args.in_process:
        fake = FakeGitHub().start()
        populate_all(fake, list(names.values()), args.n)
        where = "in this process"
    else:
        fake = RemoteFake(populate_all, list(names.values()), args.n)
        where = "in a separate process"
    settings.GITHUB_API_URL = fake.url
    settings.GITHUB_TOKENS = []
    print(f"{args.n} synthetic reports (3 comments each, 1% with 60; 40% with a fix: 20% "
          f"closed by a commit, a third of them with two more commits, 10% by a commit "
          f"landing a PR, 10% by a merged PR); fake GitHub {where} at {fake.url}; "
          f"{os.cpu_count()} CPUs")  # fmt: skip
    for api, repo_name in names.items():
        first = measure(fake, repo_name, api)
        count = BugReport.objects.filter(repository__full_name=repo_name).count()
        listing = first.requests - first.commit_requests
        print(f"\n[{api}] first import: {first.reports} reports stored in {first.seconds:.1f} s"
              f" -> {count / first.seconds:,.0f} reports/s")  # fmt: skip
        print(f"[{api}]   GitHub requests: {first.requests} ({first.job_requests} counted by "
              f"the job): {first.requests * 1000 / count:.1f} per 1,000 reports, of which "
              f"{listing * 1000 / count:.1f} for reports, comments and fix links and "
              f"{first.commit_requests * 1000 / count:.1f} REST commit requests "
              f"({COMMITS[api]})")  # fmt: skip
        for label in ("re-run", "third run"):
            again = measure(fake, repo_name, api)
            print(f"[{api}] {label}, nothing changed: {again.requests} API requests, of which "
                  f"{again.not_modified} answered 304 Not Modified (free of quota; the job "
                  f"counted {again.job_not_modified} free), {again.seconds:.2f} s, "
                  f"{again.reports} reports stored")  # fmt: skip
        if api == "graphql":
            draw_study(fake, repo_name, args.study)
    fake.stop()


if __name__ == "__main__":
    main()
