"""An import job from start to finish: pages from GitHub, stored with their checkpoint.

Every page is stored in the transaction that advances the job's checkpoint, so a worker
killed mid-import resumes from the last stored page, and a page fetched twice is upserted,
not duplicated. Phases: "issues" (reports with, on GraphQL, their comments and links), on
REST "comments" (listed apart), then "patches" (REST commit details of fix commits, for a job
that asks for them during the import; otherwise they come on demand:
mining/services/patches.py), then done.
"""

import datetime as dt
import logging
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connections
from django.utils import timezone

from mining import records, selectors
from mining.github_client import (
    CONNECTIONS,
    ISSUES_QUERY,
    FieldError,
    GitHubClient,
    GitHubError,
    NotFoundError,
    RateLimitedError,
    TokenBudget,
    more_items_query,
)
from mining.models import ImportJob
from mining.services import patches
from mining.services.import_jobs import import_job_finish, import_job_store_page, import_job_update
from mining.services.repositories import repository_update_from_github

logger = logging.getLogger(__name__)

COMMENT_BATCH = 10
ITEM_BATCH = 10  # issue connections per follow-up GraphQL query
STATES = {"open": ["OPEN"], "closed": ["CLOSED"], "all": None}


class JobStoppedError(Exception):
    """The job was cancelled (or vanished) while running."""


ISSUE_NODES = ("repository", "issues", "nodes")


@dataclass
class IssuePage:
    """A page of the issues query, and what GitHub answered errors for instead of data."""

    issues: records.Connection
    # Issues GitHub sent null for (an error on a field that cannot be null): (position on
    # the page, the error, the updatedAt of the issue before it on the page, if any).
    lost: list[tuple[int, FieldError, str | None]] = field(default_factory=list)
    # Errors on fields of issues that came: issue number -> errors.
    incomplete: dict[int, list[FieldError]] = field(default_factory=dict)
    # Errors on the repository's own fields (its default branch, ...).
    repository: list[FieldError] = field(default_factory=list)


def _error_text(error: FieldError, start: int) -> str:
    """What GitHub answered instead of a field, the path read from `start` on."""
    where = ".".join(str(part) for part in error.path[start:]) or error.where()
    kind = f"{error.type}: " if error.type else ""
    return f"GitHub answered an error for {where} ({kind}{error.message})"


def _incomplete(error: FieldError, start: int) -> str:
    return f"incomplete: {_error_text(error, start)}; the rest of the report is stored"


def _mark_incomplete(report: records.ReportRecord, connection: str) -> None:
    """What is stored of the report beyond what came is kept: comments GitHub did not send
    are not taken for deleted, nor links."""
    if connection == "comments":
        report.comments_complete = False
    else:
        report.links_complete = False


def make_client(job_id: int | None = None) -> GitHubClient:
    """A client configured from the settings; a job's (if given) shows its rate-limit waits."""

    def on_wait(resume_at: dt.datetime) -> None:
        import_job_update(
            job_id=job_id, status=ImportJob.Status.WAITING, rate_limit_reset_at=resume_at
        )

    return GitHubClient(
        api_url=settings.GITHUB_API_URL,
        tokens=list(settings.GITHUB_TOKENS),
        budget=TokenBudget(settings.CELERY_BROKER_URL, settings.GITHUB_TOKEN_LOCK_SECONDS),
        timeout=settings.GITHUB_TIMEOUT_SECONDS,
        seconds_between_requests=settings.GITHUB_SECONDS_BETWEEN_REQUESTS,
        seconds_between_writes=settings.GITHUB_SECONDS_BETWEEN_WRITES,
        inline_wait_seconds=settings.GITHUB_INLINE_WAIT_SECONDS,
        secondary_wait_seconds=settings.GITHUB_SECONDARY_WAIT_SECONDS,
        server_error_retries=settings.GITHUB_SERVER_ERROR_RETRIES,
        retry_backoff_seconds=settings.GITHUB_RETRY_BACKOFF_SECONDS,
        on_wait=on_wait if job_id is not None else None,
    )


class JobRun:
    def __init__(self, job: ImportJob, client: GitHubClient):
        self.job = job
        self.client = client
        self.repository = job.repository
        self.rules = selectors.candidate_rules(repository=self.repository)
        self.base_requests = job.api_requests
        self.base_not_modified = job.api_requests_not_modified
        self.base_waits = job.rate_limit_waits
        self.started = time.monotonic()
        self.etags: dict[str, str] = {}
        self.patch_skips: list[dict] = []
        self.repository_info: tuple[int | None, str] | None = None

    def progress(self) -> dict:
        return {
            "status": ImportJob.Status.RUNNING,
            "api_requests": self.base_requests + self.client.requests,
            "api_requests_not_modified": self.base_not_modified + self.client.not_modified,
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
        # An issue lost on some page keeps the incremental watermark at or before it.
        hold = checkpoint.get("watermark_hold")
        if hold is not None and checkpoint.get("max_updated_at"):
            if not hold:
                checkpoint["max_updated_at"] = None
            elif _time(checkpoint["max_updated_at"]) > _time(hold):
                checkpoint["max_updated_at"] = hold
        result = import_job_store_page(
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
                answer = pending.result()
                issues = answer.issues
                if issues.has_next_page:
                    pending = prefetch.submit(self.fetch_issue_page, issues.end_cursor, since)
                if checkpoint.get("cursor") is None:
                    import_job_update(job_id=self.job.pk, reports_total=issues.total_count)
                page = self.graphql_page(answer, checkpoint)
                checkpoint["cursor"] = issues.end_cursor or checkpoint.get("cursor")
                if not issues.has_next_page:
                    checkpoint["phase"] = "patches"
                self.store(page, checkpoint)
                if not issues.has_next_page:
                    return

    def fetch_issue_page(self, cursor: str | None, since: str | None) -> IssuePage:
        try:
            data, errors = self.client.graphql(
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
        for error in errors:
            if error.path[:2] == ("repository", "issues") and not (
                error.path[:3] == ISSUE_NODES and len(error.path) > 3
            ):
                # Not one issue's field but the page itself: nothing of it can be stored.
                raise GitHubError(_error_text(error, 0))
        repo = data.get("repository")
        if repo is None:
            raise NotFoundError(f"Repository {self.repository.full_name} not found", status=404)
        if not isinstance(repo, dict):
            raise records.MalformedPayloadError("repository: expected an object")
        issues = records.connection_from_graphql(repo.get("issues"), "repository.issues")
        if issues.total_count is None:
            raise records.MalformedPayloadError("repository.issues.totalCount: missing")
        if cursor is None:
            self.repository_info = records.repository_from_graphql(repo)
        return self.issue_page(issues, repo["issues"].get("nodes") or [], errors)

    @staticmethod
    def issue_page(issues: records.Connection, nodes: list, errors: list[FieldError]) -> IssuePage:
        """Sort the field errors of a page by issue: lost ones (null) and incomplete ones."""
        answer = IssuePage(issues)
        by_position: dict[int, list[FieldError]] = defaultdict(list)
        for error in errors:
            position = error.path[3] if len(error.path) > 3 else None
            if error.path[:3] == ISSUE_NODES and isinstance(position, int):
                by_position[position].append(error)
            elif error.path[:1] == ("repository",):
                answer.repository.append(error)
        for position, node_errors in sorted(by_position.items()):
            node = nodes[position] if position < len(nodes) else None
            if isinstance(node, dict) and isinstance(node.get("number"), int):
                answer.incomplete[node["number"]] = node_errors
                continue
            before = [n for n in nodes[:position] if isinstance(n, dict) and n.get("updatedAt")]
            updated_before = before[-1]["updatedAt"] if before else None
            answer.lost.append((position, node_errors[0], updated_before))
        return answer

    def graphql_page(self, answer: IssuePage, checkpoint: dict) -> records.Page:
        if self.repository_info is not None:
            github_id, default_branch = self.repository_info
            repository_update_from_github(
                repository=self.repository, github_id=github_id, default_branch=default_branch
            )
            self.repository_info = None
        page = records.Page()
        for error in answer.repository:
            page.skipped.append({"item": "repository", "reason": _error_text(error, 1)})
        for position, error, before in answer.lost:
            page.skipped.append(
                {
                    "item": f"issue {position + 1} of a page",
                    "reason": f"not imported: {_error_text(error, 4)}",
                }
            )
            self.hold_watermark(checkpoint, before)
        pending = []
        incomplete = set()
        nodes = answer.issues.nodes
        unchanged = selectors.reports_unchanged(
            repository=self.repository,
            updated_at={
                node["number"]: _time(node.get("updatedAt"))
                for node in nodes
                if isinstance(node.get("number"), int)
            },
        )
        for node in nodes:
            if node.get("number") in unchanged:
                continue
            try:
                report, related = records.report_from_graphql(
                    node, repo_full_name=self.repository.full_name
                )
                more = records.more_pages_of(node, tuple(CONNECTIONS))
            except records.MalformedPayloadError as exc:
                page.skipped.append(
                    {"item": f"#{node.get('number')}", "reason": f"malformed: {exc}"}
                )
                continue
            for error in answer.incomplete.get(report.number, []):
                connection = str(error.path[4]) if len(error.path) > 4 else ""
                _mark_incomplete(report, connection)
                incomplete.add((report.number, connection))
                page.skipped.append({"item": f"#{report.number}", "reason": _incomplete(error, 4)})
            page.reports.append(report)
            page.pull_requests += related.pull_requests
            page.commits += related.commits
            pending += [(report.number, name, node_id, cursor) for name, node_id, cursor in more]
        self.more_items(page, pending, incomplete)
        return page

    @staticmethod
    def hold_watermark(checkpoint: dict, before: str | None) -> None:
        """An issue of this page was lost: the next incremental run must ask for it again, so
        the point it starts from stays at or before the issue (the one before it on the page,
        updated no later; else where this run stands or started; "" for nowhere yet)."""
        candidates = [before, checkpoint.get("max_updated_at"), checkpoint.get("since")]
        hold = next((_time(value) for value in candidates if _time(value)), None)
        known = checkpoint.get("watermark_hold")
        if known == "" or (known and hold and _time(known) <= hold):
            return
        checkpoint["watermark_hold"] = hold.isoformat() if hold else ""

    def more_items(
        self,
        page: records.Page,
        pending: list[tuple[int, str, str, str]],
        incomplete: set[tuple[int, str]] | None = None,
    ) -> None:
        """Read the rest of the connections (comments, labels, closing references, timeline)
        that have more than their first page: the next 100 of up to ITEM_BATCH of them per
        query, until none has more. (report number, connection, issue node id, cursor).
        `incomplete`: (report number, connection) that GitHub answered an error in."""
        by_number = {r.number: r for r in page.reports}
        incomplete = set(incomplete or ())
        while pending:
            batch, pending = pending[:ITEM_BATCH], pending[ITEM_BATCH:]
            variables = {}
            for i, (_, _, node_id, cursor) in enumerate(batch):
                variables[f"id{i}"] = node_id
                variables[f"after{i}"] = cursor
            data, errors = self.client.graphql(
                more_items_query([name for _, name, _, _ in batch]), variables, partial=True
            )
            errors_of: dict[str, list[FieldError]] = defaultdict(list)
            for error in errors:
                errors_of[str(error.path[0])].append(error)
            for i, (number, name, node_id, _) in enumerate(batch):
                report = by_number.get(number)
                if report is None:  # dropped as malformed by an earlier batch
                    continue
                item = data.get(f"item{i}")
                connection = item.get(name) if isinstance(item, dict) else None
                if connection is None:
                    # The issue went away meanwhile (or GitHub answered an error for it):
                    # keep what is stored, say what is missing.
                    _mark_incomplete(report, name)
                    reason = f"only the first page of {name} read"
                    found = [e for e in errors_of[f"item{i}"] if e.type != "NOT_FOUND"]
                    if found:
                        reason += f": {_error_text(found[0], 1)}"
                    page.skipped.append({"item": f"#{number}", "reason": reason})
                    continue
                try:
                    more = records.connection_from_graphql(connection, name)
                    records.extend_report_from_graphql(
                        report,
                        name,
                        more.nodes,
                        repo_full_name=self.repository.full_name,
                        related=page,
                    )
                except records.MalformedPayloadError as exc:
                    # All of the report or none of it: it waits for a later run.
                    page.reports.remove(by_number.pop(number))
                    page.skipped.append({"item": f"#{number}", "reason": f"malformed: {exc}"})
                    continue
                for error in errors_of[f"item{i}"]:
                    incomplete.add((number, name))
                    page.skipped.append({"item": f"#{number}", "reason": _incomplete(error, 1)})
                if (number, name) in incomplete:
                    _mark_incomplete(report, name)
                if more.has_next_page:
                    pending.append((number, name, node_id, more.end_cursor))
                elif name == "comments" and (number, name) not in incomplete:
                    report.comments_complete = True

    # ---- REST ----

    def import_rest(self) -> None:
        """Phases: the issue listing (reports, timelines), then the comments of the reports
        that changed, each page stored with its checkpoint."""
        checkpoint = dict(self.job.checkpoint)
        checkpoint["since"] = self.since()
        if checkpoint.get("phase", "issues") == "issues":
            self.rest_issues(checkpoint)
        if checkpoint.get("phase") == "comments":
            self.rest_comments(checkpoint)

    def rest_listing(self, checkpoint: dict, path: str, params: dict):
        """Pages of a REST listing from the checkpoint's next_url on; the first page is asked
        with the ETag of the last complete run (a 304 answer is free and means no change)."""
        resume = checkpoint.get("next_url")
        if resume:
            yield from self.client.rest_pages(resume, params={})
            return
        etag_key = f"{path}?{sorted(params.items())}"
        etag = getattr(getattr(self.repository, "sync", None), "etags", {}).get(etag_key, "")
        for index, response in enumerate(self.client.rest_pages(path, params=params, etag=etag)):
            if index == 0 and "etag" in response.headers:
                self.etags[etag_key] = response.headers["etag"]
            yield response

    def rest_issues(self, checkpoint: dict) -> None:
        base = f"/repos/{self.repository.full_name}"
        params = {"state": self.job.issue_state, "sort": "updated", "direction": "asc"}
        params["per_page"] = 100
        if checkpoint["since"]:
            params["since"] = checkpoint["since"]
        for response in self.rest_listing(checkpoint, f"{base}/issues", params):
            self.check_not_cancelled()
            if response.data is None:
                break
            if not isinstance(response.data, list):
                raise GitHubError("GitHub sent a malformed issue listing (not a list)")
            page = records.Page()
            unchanged = selectors.reports_unchanged(
                repository=self.repository,
                updated_at={
                    issue["number"]: _time(issue.get("updated_at"))
                    for issue in response.data
                    if isinstance(issue, dict) and isinstance(issue.get("number"), int)
                },
            )
            for issue in response.data:
                self.rest_item(page, issue, base, unchanged)
            checkpoint["next_url"] = response.next_url
            if not response.next_url:
                checkpoint["phase"] = "comments"
            self.store(page, checkpoint)
        checkpoint["phase"] = "comments"
        checkpoint["next_url"] = None
        self.job.checkpoint = checkpoint

    def rest_comments(self, checkpoint: dict) -> None:
        """The comments of the reports that changed: the repository-wide listing (100 a
        request, `since` on the comment's update time) when that takes fewer requests than
        one listing per report, else per report (which also finds deleted comments)."""
        since = checkpoint["since"]
        with_comments = selectors.reports_with_comments(
            repository=self.repository,
            updated_since=dt.datetime.fromisoformat(since) if since else None,
        )
        stored = ImportJob.objects.filter(pk=self.job.pk).values_list("reports_done", flat=True)
        if not with_comments or (since and not stored.first()):
            checkpoint["phase"] = "patches"
            self.job.checkpoint = checkpoint
            return
        if "comments_mode" not in checkpoint:
            per_report = sum(-(-count // 100) for _, count in with_comments)
            repository_wide = -(-sum(count for _, count in with_comments) // 100)
            checkpoint["comments_mode"] = "repository" if repository_wide < per_report else "report"
        if checkpoint["comments_mode"] == "repository":
            self.rest_repository_comments(checkpoint)
        else:
            self.rest_report_comments(checkpoint, [number for number, _ in with_comments])
        checkpoint["phase"] = "patches"
        self.job.checkpoint = checkpoint

    def rest_repository_comments(self, checkpoint: dict) -> None:
        base = f"/repos/{self.repository.full_name}"
        params = {"sort": "updated", "direction": "asc", "per_page": 100}
        if checkpoint["since"]:
            params["since"] = checkpoint["since"]
        for response in self.rest_listing(checkpoint, f"{base}/issues/comments", params):
            self.check_not_cancelled()
            if response.data is None:
                break
            page = records.Page()
            for item in response.data if isinstance(response.data, list) else []:
                try:
                    page.issue_comments.append(records.issue_comment_from_rest(item))
                except records.MalformedPayloadError as exc:
                    page.skipped.append({"item": "comment", "reason": f"malformed: {exc}"})
            checkpoint["next_url"] = response.next_url
            if not response.next_url:
                checkpoint["phase"] = "patches"
            self.store(page, checkpoint)

    def rest_report_comments(self, checkpoint: dict, numbers: list[int]) -> None:
        base = f"/repos/{self.repository.full_name}"
        after = checkpoint.get("comments_after", 0)
        pending = [n for n in numbers if n > after]
        for start in range(0, len(pending), COMMENT_BATCH):
            self.check_not_cancelled()
            page = records.Page()
            for number in pending[start : start + COMMENT_BATCH]:
                comments = []
                try:
                    for response in self.client.rest_pages(
                        f"{base}/issues/{number}/comments", params={"per_page": 100}
                    ):
                        comments += records.comments_from_rest(response.data)
                except NotFoundError as exc:
                    page.skipped.append({"item": f"#{number}", "reason": str(exc)})
                    continue
                except records.MalformedPayloadError as exc:
                    # None of this report's comments, rather than some of them.
                    item = f"#{number} comments"
                    page.skipped.append({"item": item, "reason": f"malformed: {exc}"})
                    continue
                page.issue_comments += [(number, comment) for comment in comments]
                page.issue_comments_complete.add(number)
                checkpoint["comments_after"] = number
            if start + COMMENT_BATCH >= len(pending):
                checkpoint["phase"] = "patches"
            self.store(page, checkpoint)

    def rest_item(self, page: records.Page, issue: dict, base: str, unchanged: set) -> None:
        number = issue.get("number") if isinstance(issue, dict) else None
        try:
            if records.is_rest_pull_request(issue):
                page.pull_requests.append(records.pull_request_from_rest_issue(issue))
                page.pull_requests_skipped += 1
                return
            report = records.report_from_rest(issue)
            # Comments come in their own phase; the stored ones stay until it runs.
            report.comments_complete = False
            if report.number in unchanged:
                return
            if report.state == "closed":
                shas = []
                for response in self.client.rest_pages(
                    f"{base}/issues/{number}/timeline", params={"per_page": 100}
                ):
                    for item in records.rest_list(response.data, "timeline"):
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
        except records.MalformedPayloadError as exc:
            page.skipped.append({"item": f"#{number}", "reason": f"malformed: {exc}"})
            return
        page.reports.append(report)

    def rest_commit(self, base: str, sha: str) -> records.CommitRecord:
        response = self.client.rest_get(f"{base}/commits/{sha}")
        return records.commit_from_rest(response.data, patch_limit=settings.MINING_PATCH_MAX_CHARS)

    # ---- patches ----

    def fetch_patches(self) -> None:
        """REST details of the fix commits, when the job asks for them now rather than on
        demand (mining/services/patches.py, which stores them PATCH_BATCH commits per
        transaction)."""
        if self.job.patches == ImportJob.Patches.LAZY:
            return
        shas = selectors.commits_needing_patches(
            repository=self.repository, candidates_only=self.job.patches != ImportJob.Patches.ALL
        )

        def between_batches() -> None:
            self.check_not_cancelled()
            import_job_update(job_id=self.job.pk, **self.progress())

        self.patch_skips += patches.commits_fetch_files(
            client=self.client,
            repository=self.repository,
            shas=shas,
            between_batches=between_batches,
        )


def _time(value) -> dt.datetime | None:
    """A payload's timestamp, or None if it is not one (the record parser reports that)."""
    try:
        return records.parse_time(value, "updated_at", required=False)
    except records.MalformedPayloadError:
        return None


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
    import_job_update(
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
        import_job_finish(
            job_id=job_id,
            progress=run.progress(),
            etags=run.etags,
            skipped=run.patch_skips,
        )
        return ImportJob.Status.DONE
    except JobStoppedError:
        return ImportJob.Status.CANCELLED
    except RateLimitedError as exc:
        import_job_update(
            job_id=job_id,
            **{**run.progress(), "status": ImportJob.Status.WAITING},
        )
        logger.info("import %s waits for the rate limit until %s", job_id, exc.resume_at)
        raise
    except (GitHubError, records.MalformedPayloadError) as exc:
        # Anything else is ours, not GitHub's: it goes up to the task, which says so.
        reason = str(exc)
        if not isinstance(exc, GitHubError):
            # A page whose very structure is not GitHub's: nothing of it was stored.
            logger.exception("import %s: malformed answer from GitHub", job_id)
            reason = f"GitHub sent a malformed answer: {exc}"
        import_job_update(
            job_id=job_id,
            **{
                **run.progress(),
                "status": ImportJob.Status.FAILED,
                "error_reason": f"{job.repository.full_name}: {reason}",
                "finished_at": timezone.now(),
            },
        )
        return ImportJob.Status.FAILED
    finally:
        client.close()
