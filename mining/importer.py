"""An import job from start to finish: pages from GitHub, stored with their checkpoint.

Every page is stored in the transaction that advances the job's checkpoint, so a worker
killed mid-import resumes from the last stored page, and a page fetched twice is upserted,
not duplicated. Phases: "issues" (reports, comments, links), then "patches" (REST commit
details for the fix commits of candidate reports), then done.
"""

import datetime as dt
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import connections
from django.utils import timezone

from mining import records, selectors, services
from mining.github_client import (
    ISSUES_QUERY,
    GitHubClient,
    GitHubError,
    NotFoundError,
    RateLimitedError,
    TokenBudget,
    more_comments_query,
)
from mining.models import Commit, ImportJob

logger = logging.getLogger(__name__)

COMMENT_BATCH = 10
STATES = {"open": ["OPEN"], "closed": ["CLOSED"], "all": None}


class JobStoppedError(Exception):
    """The job was cancelled (or vanished) while running."""


def make_client(job_id: int) -> GitHubClient:
    def on_wait(resume_at: dt.datetime) -> None:
        services.import_job_update(
            job_id=job_id, status=ImportJob.Status.WAITING, rate_limit_reset_at=resume_at
        )

    return GitHubClient(
        api_url=settings.GITHUB_API_URL,
        tokens=list(settings.GITHUB_TOKENS),
        budget=TokenBudget(settings.CELERY_BROKER_URL, settings.GITHUB_TIMEOUT_SECONDS + 30),
        timeout=settings.GITHUB_TIMEOUT_SECONDS,
        seconds_between_requests=settings.GITHUB_SECONDS_BETWEEN_REQUESTS,
        seconds_between_writes=settings.GITHUB_SECONDS_BETWEEN_WRITES,
        inline_wait_seconds=settings.GITHUB_INLINE_WAIT_SECONDS,
        server_error_retries=settings.GITHUB_SERVER_ERROR_RETRIES,
        retry_backoff_seconds=settings.GITHUB_RETRY_BACKOFF_SECONDS,
        on_wait=on_wait,
    )


class JobRun:
    def __init__(self, job: ImportJob, client: GitHubClient):
        self.job = job
        self.client = client
        self.repository = job.repository
        self.rules = selectors.candidate_rules(repository=self.repository)
        self.base_requests = job.api_requests
        self.base_waits = job.rate_limit_waits
        self.started = time.monotonic()
        self.etags: dict[str, str] = {}
        self.patch_skips: list[dict] = []
        self.repository_info: dict | None = None

    def progress(self) -> dict:
        return {
            "status": ImportJob.Status.RUNNING,
            "api_requests": self.base_requests + self.client.requests,
            "rate_limit_waits": self.base_waits + self.client.rate_limit_waits,
            "rate_limit_remaining": self.client.rate_limit_remaining,
            "rate_limit_reset_at": self.client.rate_limit_reset_at,
            "token_index": self.client.token_index,
        }

    def check_not_cancelled(self) -> None:
        status = ImportJob.objects.filter(pk=self.job.pk).values_list("status", flat=True).first()
        if status in (None, ImportJob.Status.CANCELLED):
            raise JobStoppedError

    def store(self, page: records.Page, checkpoint: dict) -> None:
        updated = [r.updated_at for r in page.reports if r.updated_at]
        if updated:
            latest = max(updated)
            known = checkpoint.get("max_updated_at")
            if not known or latest > dt.datetime.fromisoformat(known):
                checkpoint["max_updated_at"] = latest.isoformat()
        result = services.import_job_store_page(
            job_id=self.job.pk,
            page=page,
            rules=self.rules,
            checkpoint=checkpoint,
            progress=self.progress(),
        )
        if result is None:
            raise JobStoppedError
        self.job.checkpoint = checkpoint

    def since(self) -> str | None:
        checkpoint = self.job.checkpoint
        if "since" not in checkpoint:
            if self.job.since:
                since = self.job.since
            else:
                sync = getattr(self.repository, "sync", None)
                since = sync.issues_updated_until if sync else None
            checkpoint["since"] = since.isoformat() if since else None
        return checkpoint["since"]

    # ---- GraphQL ----

    def import_graphql(self) -> None:
        """Pages of issues, each stored with its checkpoint; the next page is fetched while
        the current one is stored (requests stay one at a time)."""
        checkpoint = dict(self.job.checkpoint)
        since = self.since()
        checkpoint["since"] = since
        if checkpoint.get("phase", "issues") != "issues":
            return
        with ThreadPoolExecutor(max_workers=1) as prefetch:
            pending = prefetch.submit(self.fetch_issue_page, checkpoint.get("cursor"), since)
            while True:
                self.check_not_cancelled()
                issues = pending.result()
                info = issues["pageInfo"]
                if info["hasNextPage"]:
                    pending = prefetch.submit(self.fetch_issue_page, info["endCursor"], since)
                if checkpoint.get("cursor") is None:
                    services.import_job_update(
                        job_id=self.job.pk, reports_total=issues["totalCount"]
                    )
                page = self.graphql_page(issues)
                checkpoint["cursor"] = info["endCursor"] or checkpoint.get("cursor")
                if not info["hasNextPage"]:
                    checkpoint["phase"] = "patches"
                self.store(page, checkpoint)
                if not info["hasNextPage"]:
                    return

    def fetch_issue_page(self, cursor: str | None, since: str | None) -> dict:
        try:
            data = self.client.graphql(
                ISSUES_QUERY,
                {
                    "owner": self.repository.owner,
                    "name": self.repository.name,
                    "first": settings.GITHUB_GRAPHQL_PAGE_SIZE,
                    "after": cursor,
                    "since": since,
                    "states": STATES[self.job.issue_state],
                },
            )
        finally:
            if threading.current_thread() is not threading.main_thread():
                connections.close_all()
        repo = data.get("repository")
        if repo is None:
            raise NotFoundError(f"Repository {self.repository.full_name} not found", status=404)
        if cursor is None:
            self.repository_info = repo
        return repo["issues"]

    def graphql_page(self, issues: dict) -> records.Page:
        if self.repository_info is not None:
            services.repository_update_from_github(
                repository=self.repository,
                github_id=self.repository_info.get("databaseId"),
                default_branch=(self.repository_info.get("defaultBranchRef") or {}).get("name", ""),
            )
            self.repository_info = None
        page = records.Page()
        node_ids = {}
        for node in issues.get("nodes") or []:
            try:
                report, related = records.report_from_graphql(
                    node, repo_full_name=self.repository.full_name
                )
            except (records.MalformedPayloadError, KeyError, TypeError) as exc:
                number = (node or {}).get("number")
                page.skipped.append({"item": f"#{number}", "reason": str(exc)})
                continue
            page.reports.append(report)
            page.pull_requests += related.pull_requests
            page.commits += related.commits
            if not report.comments_complete:
                node_ids[report.number] = (node["id"], node["comments"]["pageInfo"]["endCursor"])
        self.more_comments(page, node_ids)
        return page

    def more_comments(self, page: records.Page, pending: dict[int, tuple[str, str]]) -> None:
        """Fill in the comments of reports with more than the first page, batching issues."""
        by_number = {r.number: r for r in page.reports}
        while pending:
            batch = list(pending.items())[:COMMENT_BATCH]
            variables = {}
            for i, (_, (node_id, cursor)) in enumerate(batch):
                variables[f"id{i}"] = node_id
                variables[f"after{i}"] = cursor
            data = self.client.graphql(more_comments_query(len(batch)), variables)
            for i, (number, (node_id, _)) in enumerate(batch):
                comments = (data.get(f"issue{i}") or {}).get("comments")
                if comments is None:
                    del pending[number]
                    continue
                report = by_number[number]
                report.comments += [records.comment_from_graphql(c) for c in comments["nodes"] if c]
                info = comments["pageInfo"]
                if info["hasNextPage"]:
                    pending[number] = (node_id, info["endCursor"])
                else:
                    report.comments_complete = True
                    del pending[number]

    # ---- REST ----

    def import_rest(self) -> None:
        checkpoint = dict(self.job.checkpoint)
        since = self.since()
        checkpoint["since"] = since
        base = f"/repos/{self.repository.full_name}"
        first_url = checkpoint.get("next_url")
        params = {"state": self.job.issue_state, "sort": "updated", "direction": "asc"}
        params["per_page"] = 100
        if since:
            params["since"] = since
        etag_key = f"issues?{sorted(params.items())}"
        if checkpoint.get("phase", "issues") != "issues":
            return
        if first_url:
            pages = self.client.rest_pages(first_url, params={})
        else:
            etag = getattr(getattr(self.repository, "sync", None), "etags", {}).get(etag_key, "")
            pages = self.client.rest_pages(f"{base}/issues", params=params, etag=etag)
        for response in pages:
            self.check_not_cancelled()
            if not first_url and "etag" in response.headers and not checkpoint.get("cursor"):
                self.etags[etag_key] = response.headers["etag"]
            checkpoint["cursor"] = "started"
            if response.data is None:
                break
            if not isinstance(response.data, list):
                raise GitHubError("GitHub sent a malformed issue listing (not a list)")
            page = records.Page()
            for issue in response.data:
                self.rest_item(page, issue, base)
            checkpoint["next_url"] = response.next_url
            if not response.next_url:
                checkpoint["phase"] = "patches"
            self.store(page, checkpoint)
        checkpoint["phase"] = "patches"
        self.job.checkpoint = checkpoint

    def rest_item(self, page: records.Page, issue: dict, base: str) -> None:
        number = issue.get("number") if isinstance(issue, dict) else None
        try:
            if records.is_rest_pull_request(issue):
                page.pull_requests.append(records.pull_request_from_rest_issue(issue))
                page.pull_requests_skipped += 1
                return
            report = records.report_from_rest(issue)
            if selectors.report_unchanged(
                repository=self.repository, number=report.number, updated_at=report.updated_at
            ):
                return
            if report.comment_count:
                report.comments = [
                    records.comment_from_rest(c)
                    for response in self.client.rest_pages(
                        f"{base}/issues/{number}/comments", params={"per_page": 100}
                    )
                    for c in response.data or []
                ]
            if report.state == "closed":
                shas = []
                for response in self.client.rest_pages(
                    f"{base}/issues/{number}/timeline", params={"per_page": 100}
                ):
                    for item in response.data or []:
                        event, source = records.event_from_rest(
                            item, repo_full_name=self.repository.full_name
                        )
                        if event:
                            report.events.append(event)
                            if event.commit_sha:
                                shas.append(event.commit_sha)
                        if source:
                            page.pull_requests.append(records.pull_request_from_rest_issue(source))
                for sha in dict.fromkeys(shas):
                    page.commits.append(self.rest_commit(base, sha))
        except NotFoundError as exc:
            page.skipped.append({"item": f"#{number}", "reason": str(exc)})
            return
        except (records.MalformedPayloadError, KeyError, TypeError, AttributeError) as exc:
            page.skipped.append({"item": f"#{number}", "reason": f"malformed payload: {exc}"})
            return
        page.reports.append(report)

    def rest_commit(self, base: str, sha: str) -> records.CommitRecord:
        response = self.client.rest_get(f"{base}/commits/{sha}")
        return records.commit_from_rest(response.data, patch_limit=settings.MINING_PATCH_MAX_CHARS)

    # ---- patches ----

    def fetch_patches(self) -> None:
        mode = settings.MINING_FETCH_PATCHES
        if mode == "none":
            return
        base = f"/repos/{self.repository.full_name}"
        for sha in selectors.commits_needing_patches(
            repository=self.repository, candidates_only=mode != "all"
        ):
            self.check_not_cancelled()
            try:
                commit = self.rest_commit(base, sha)
            except NotFoundError as exc:
                Commit.objects.filter(repository=self.repository, sha=sha).update(
                    files_fetched=True
                )
                self.patch_skips.append({"item": sha, "reason": str(exc)})
                continue
            except records.MalformedPayloadError as exc:
                Commit.objects.filter(repository=self.repository, sha=sha).update(
                    files_fetched=True
                )
                self.patch_skips.append({"item": sha, "reason": f"malformed: {exc}"})
                continue
            services.commits_store_files(repository=self.repository, commits=[commit])
            services.import_job_update(job_id=self.job.pk, **self.progress())


def run_import(job_id: int, *, client: GitHubClient | None = None) -> str:
    """Run (or resume) a job; returns its final status. RateLimitedError propagates so the
    task can reschedule itself after the reset."""
    job = ImportJob.objects.select_related("repository").filter(pk=job_id).first()
    if job is None or job.status in (
        ImportJob.Status.DONE,
        ImportJob.Status.FAILED,
        ImportJob.Status.CANCELLED,
    ):
        return job.status if job else "missing"
    services.import_job_update(
        job_id=job_id,
        status=ImportJob.Status.RUNNING,
        started_at=job.started_at or timezone.now(),
    )
    client = client or make_client(job_id)
    run = JobRun(job, client)
    try:
        if job.api == ImportJob.Api.REST:
            run.import_rest()
        else:
            run.import_graphql()
        run.fetch_patches()
        services.import_job_finish(
            job_id=job_id,
            progress=run.progress(),
            etags=run.etags,
            skipped=run.patch_skips,
        )
        return ImportJob.Status.DONE
    except JobStoppedError:
        return ImportJob.Status.CANCELLED
    except RateLimitedError as exc:
        services.import_job_update(
            job_id=job_id,
            **{**run.progress(), "status": ImportJob.Status.WAITING},
        )
        logger.info("import %s waits for the rate limit until %s", job_id, exc.resume_at)
        raise
    except GitHubError as exc:
        services.import_job_update(
            job_id=job_id,
            **{
                **run.progress(),
                "status": ImportJob.Status.FAILED,
                "error_reason": f"{job.repository.full_name}: {exc}",
                "finished_at": timezone.now(),
            },
        )
        return ImportJob.Status.FAILED
    finally:
        client.close()
