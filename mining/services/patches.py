"""Per-file patches of fix commits, fetched when someone will read them.

Patches exist only in GitHub's REST API, one request per commit: on a repository where many
reports have a fix, fetching them during the import would cost far more than the import
itself (GraphQL brings 100 reports a request, with each fix commit's additions, deletions and
changed files, so every measure is exact without patches). So the import leaves them out
(unless `import_github --patches` asks for them) and they come on demand: when reports enter
a study (after the draw) and when a report is opened without them (mining/tasks.py has the
entry points; a Celery task fetches).

A request claims the commits it will fetch (`files_requested_at`), in one statement, so that
several readers, or one reader's page polling, ask GitHub once. A claim older than
PATCH_RETRY is taken for lost (a worker killed, GitHub failing) and may be made again; a
failure is kept on the commit (`files_error`) and shown until then.
"""

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass
from itertools import groupby

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from mining import records
from mining.github_client import GitHubClient, GitHubError, NotFoundError
from mining.models import Commit, Repository
from mining.services.reports import commits_store_files

logger = logging.getLogger(__name__)

PATCH_RETRY = dt.timedelta(minutes=10)
PATCH_BATCH = 50  # commits stored per transaction


@dataclass(frozen=True)
class PatchState:
    """Of a report's fix commits without patches: whether a fetch is under way, and why the
    last one failed (empty if none did)."""

    pending: bool = False
    error: str = ""

    def as_dict(self) -> dict:
        return {"pending": self.pending, "error": self.error}


def commits_patches_claim(*, commit_ids: list[int]) -> list[int]:
    """Of these commits, those without patches and not asked for within PATCH_RETRY, now
    marked as asked (and their last error cleared). Concurrent callers never claim the same
    commit: rows another caller holds are skipped, and once it commits they are recent."""
    now = timezone.now()
    claimable = Commit.objects.filter(pk__in=commit_ids, files_fetched=False).filter(
        Q(files_requested_at__isnull=True) | Q(files_requested_at__lt=now - PATCH_RETRY)
    )
    with transaction.atomic():
        ids = list(claimable.select_for_update(skip_locked=True).values_list("pk", flat=True))
        Commit.objects.filter(pk__in=ids).update(files_requested_at=now, files_error="")
    return ids


def commits_patches_state(*, commit_ids: list[int]) -> PatchState:
    """Where the patches of these commits stand (the ones already fetched count for nothing)."""
    now = timezone.now()
    rows = Commit.objects.filter(pk__in=commit_ids, files_fetched=False).values_list(
        "files_requested_at", "files_error"
    )
    pending, error = False, ""
    for requested_at, failure in rows:
        if failure:
            error = error or failure
        elif requested_at is not None and requested_at >= now - PATCH_RETRY:
            pending = True
    return PatchState(pending=pending, error="" if pending else error)


def commits_patches_delay(*, commit_ids: list[int], until: dt.datetime, error: str = "") -> None:
    """The fetch of these commits waits until `until` (a rate limit): nobody claims them again
    before then (plus PATCH_RETRY). `error` says so to readers when nothing will retry."""
    Commit.objects.filter(pk__in=commit_ids, files_fetched=False).update(
        files_requested_at=until, files_error=error
    )


def commits_fetch_files(
    *,
    client: GitHubClient,
    repository: Repository,
    shas: list[str],
    between_batches: Callable[[], None] | None = None,
) -> list[dict]:
    """Fetch the REST details (stats, capped per-file patches) of these commits of the
    repository and store them, PATCH_BATCH per transaction. Commits gone from GitHub, or
    malformed there, are stored as fetched without files (no one asks again). Returns what
    was skipped and why; other GitHub errors propagate (what was stored stays)."""
    base = f"/repos/{repository.full_name}"
    skipped = []
    for start in range(0, len(shas), PATCH_BATCH):
        if between_batches is not None:
            between_batches()
        fetched, unavailable = [], []
        for sha in shas[start : start + PATCH_BATCH]:
            try:
                response = client.rest_get(f"{base}/commits/{sha}")
                fetched.append(
                    records.commit_from_rest(
                        response.data, patch_limit=settings.MINING_PATCH_MAX_CHARS
                    )
                )
            except NotFoundError as exc:
                unavailable.append(sha)
                skipped.append({"item": sha, "reason": str(exc)})
            except records.MalformedPayloadError as exc:
                unavailable.append(sha)
                skipped.append({"item": sha, "reason": f"malformed: {exc}"})
        commits_store_files(repository=repository, commits=fetched, unavailable=unavailable)
    return skipped


def commits_patches_fetch(*, commit_ids: list[int], client: GitHubClient) -> int:
    """Fetch and store the patches of those of these commits that still lack them; returns
    how many commits that was. Safe to run twice. A GitHub failure is recorded
    on the commits left (readers see it; they are asked again after PATCH_RETRY); a rate
    limit (RateLimitedError) propagates, for the task to retry after the reset."""
    commits = (
        Commit.objects.filter(pk__in=commit_ids, files_fetched=False)
        .select_related("repository")
        .order_by("repository_id", "sha")
    )
    asked = 0
    for repository, group in groupby(commits, key=lambda commit: commit.repository):
        shas = [commit.sha for commit in group]
        asked += len(shas)
        try:
            skipped = commits_fetch_files(client=client, repository=repository, shas=shas)
        except GitHubError as exc:
            reason = f"{repository.full_name}: {exc}"
            Commit.objects.filter(repository=repository, sha__in=shas, files_fetched=False).update(
                files_error=reason
            )
            logger.warning("patches of %d commits not fetched: %s", len(shas), reason)
            continue
        for item in skipped:
            logger.info("patches of %s@%s: %s", repository.full_name, item["item"], item["reason"])
    return asked
