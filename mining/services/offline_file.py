"""Writes of an offline file: a JSON Lines file of GitHub REST issue objects, imported
whole or not at all.

Locks: none beyond the rows written (see mining.services.reports); the whole file is one
transaction, so another writer storing the same reports meanwhile waits for it to commit.
"""

from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction

from mining import candidates, records
from mining.services.candidate_rules import candidate_rules_ensure
from mining.services.reports import PageResult, reports_store_page
from mining.services.repositories import repository_get_or_create

MAX_FILE_ERRORS = 20


def _read_file(path: Path) -> list[tuple[str, records.Page]]:
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise ValidationError({"path": f"{path}: {exc.strerror}"}) from exc
    pages: list[tuple[str, records.Page]] = []
    errors: list[str] = []
    with handle:
        for line_number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
                if not line.strip():
                    continue
                issue = records.json_from_file_line(line)
                pages.append(
                    records.page_from_file_issue(issue, patch_limit=settings.MINING_PATCH_MAX_CHARS)
                )
            except UnicodeDecodeError as exc:
                errors.append(f"{path.name}, line {line_number}: not UTF-8 (byte {exc.start + 1})")
            except records.MalformedPayloadError as exc:
                errors.append(f"{path.name}, line {line_number}: {exc}")
    if len(errors) > MAX_FILE_ERRORS:
        hidden = len(errors) - MAX_FILE_ERRORS
        errors = [*errors[:MAX_FILE_ERRORS], f"{path.name}: … and {hidden} more bad lines"]
    if errors:
        raise ValidationError({"path": errors})
    return pages


@transaction.atomic
def reports_import_from_file(*, path: str | Path) -> dict:
    """Import a JSON Lines file of GitHub REST issue objects; all of it or, on any bad line,
    nothing.

    The whole file is validated before the first write, and the writes share one
    transaction, so a file either imports completely or leaves the database as it was. Lines
    are grouped per repository into pages of MINING_FILE_PAGE_SIZE reports.
    """
    pages = _read_file(Path(path))
    by_repository: dict[str, list[records.Page]] = {}
    for repo_full_name, page in pages:
        by_repository.setdefault(repo_full_name, []).append(page)
    total = PageResult()
    size = settings.MINING_FILE_PAGE_SIZE
    for repo_full_name, repo_pages in by_repository.items():
        repository = repository_get_or_create(full_name=repo_full_name)
        rules = candidates.Rules.of(candidate_rules_ensure(repository=repository))
        for start in range(0, len(repo_pages), size):
            merged = records.Page()
            for page in repo_pages[start : start + size]:
                merged.reports += page.reports
                merged.pull_requests += page.pull_requests
                merged.commits += page.commits
                merged.pull_requests_skipped += page.pull_requests_skipped
            total.add(reports_store_page(repository=repository, page=merged, rules=rules))
    summary = total.as_dict()
    summary["repositories"] = sorted(by_repository)
    return summary
