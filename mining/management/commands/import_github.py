"""`manage.py import_github OWNER/NAME ... [--wait] [--json]` and `--from-file FILE.jsonl`."""

import datetime as dt
import json
import time
from collections import Counter

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from mining import tasks
from mining.models import ImportJob
from mining.services.import_jobs import import_job_create
from mining.services.offline_file import reports_import_from_file


def _since(value: str) -> dt.datetime:
    try:
        parsed = dt.datetime.fromisoformat(value)
    except ValueError as exc:
        raise CommandError(f"--since {value!r}: not an ISO date or datetime") from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def job_summary(job: ImportJob) -> dict:
    return {
        "job": job.pk,
        "repository": job.repository.full_name,
        "api": job.api,
        "patches": job.patches,
        "status": job.status,
        "reports": job.reports_done,
        "pull_requests_skipped": job.pull_requests_skipped,
        "comments": job.comments,
        "fix_links": job.fix_links,
        "api_requests": job.api_requests,
        "rate_limit_waits": job.rate_limit_waits,
        "rate_limit_remaining": job.rate_limit_remaining,
        "errors": ([job.error_reason] if job.error_reason else []) + job.skipped_items,
    }


def jobs_total(summaries: list[dict]) -> dict:
    """The figures of several jobs added up, with each job's own summary under "jobs"."""
    fix_links: Counter = Counter()
    for summary in summaries:
        fix_links.update(summary["fix_links"])
    total = {
        key: sum(summary[key] for summary in summaries)
        for key in ("reports", "pull_requests_skipped", "comments", "api_requests")
    }
    return {
        **total,
        "fix_links": dict(sorted(fix_links.items())),
        "rate_limit_waits": sum(summary["rate_limit_waits"] for summary in summaries),
        "errors": [error for summary in summaries for error in summary["errors"]],
        "jobs": summaries,
    }


class Command(BaseCommand):
    help = "Import GitHub issues, comments and fixes of repositories (or from a JSONL file)."

    def add_arguments(self, parser):
        parser.add_argument("repositories", nargs="*", metavar="OWNER/NAME")
        parser.add_argument("--since", type=_since, help="Only issues updated at or after.")
        parser.add_argument("--state", choices=["open", "closed", "all"], default="all")
        parser.add_argument("--api", choices=["graphql", "rest"], default="graphql")
        parser.add_argument("--wait", action="store_true", help="Follow the jobs to the end.")
        parser.add_argument("--json", action="store_true", help="Print a JSON summary.")
        parser.add_argument("--from-file", help="Import GitHub API objects from a JSONL file.")
        parser.add_argument(
            "--patches",
            nargs="?",
            const=ImportJob.Patches.CANDIDATES,
            choices=[ImportJob.Patches.CANDIDATES, ImportJob.Patches.ALL],
            help=(
                "Fetch fix commits' per-file patches during the import (REST, one request per "
                "commit): of candidate reports (the default of --patches) or of all. Without "
                "it they come when a report enters a study or is opened."
            ),
        )

    def handle(self, *args, **options):
        if options["from_file"]:
            try:
                summary = reports_import_from_file(path=options["from_file"])
            except ValidationError as exc:
                raise CommandError("\n".join(exc.messages)) from exc
            # An offline import asks GitHub nothing; the figures keep the summary's shape.
            self._print({**summary, "api_requests": 0, "rate_limit_waits": 0}, options["json"])
            return
        if not options["repositories"]:
            raise CommandError("Name at least one OWNER/NAME, or --from-file FILE.")
        jobs = []
        for name in options["repositories"]:
            try:
                job = import_job_create(
                    repository_full_name=name,
                    api=options["api"],
                    issue_state=options["state"],
                    since=options["since"],
                    patches=options["patches"],
                )
            except ValidationError as exc:
                raise CommandError(f"{name}: {'; '.join(exc.messages)}") from exc
            tasks.enqueue_import(job.pk)
            jobs.append(job.pk)
            if not options["json"]:
                self.stdout.write(f"Queued import {job.pk} of {job.repository.full_name}")
        if not options["wait"]:
            if options["json"]:
                self._print({"jobs": jobs}, True)
            return
        while True:
            current = list(ImportJob.objects.select_related("repository").filter(pk__in=jobs))
            if not any(job.is_active for job in current):
                break
            time.sleep(1)
        current.sort(key=lambda job: jobs.index(job.pk))  # in the order they were named
        summaries = [job_summary(job) for job in current]
        if options["json"]:
            self._print(summaries[0] if len(summaries) == 1 else jobs_total(summaries), True)
        else:
            for summary in summaries:
                self._print(summary, False)
        if any(s["status"] != ImportJob.Status.DONE for s in summaries):
            raise CommandError(
                "Some imports did not finish: "
                + ", ".join(f"{s['repository']} {s['status']}" for s in summaries)
            )

    def _print(self, summary: dict, as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps(summary, indent=2, default=str))
            return
        for key, value in summary.items():
            self.stdout.write(f"{key}: {value}")
