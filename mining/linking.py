"""Fix-link heuristics: which commits and pull requests fix a report, and on what evidence.

Plain functions over texts and plain records (no Django), so each rule is tested on its own.
Strong evidence is what GitHub itself records (closing references, the timeline) and the
landing conventions of the big projects; a commit message that merely mentions the report
(the seed study's method) is weak evidence.
"""

import re
from dataclasses import dataclass, field

CLOSING = "closing_reference"
CLOSED_BY_COMMIT = "closed_by_commit"
CLOSED_BY_PULL_REQUEST = "closed_by_pull_request"
WILL_CLOSE = "will_close"
LANDED_PULL_REQUEST = "landed_pull_request"
IMPORTED_PULL_REQUEST = "imported_pull_request"
MERGE_COMMIT = "merge_commit"
MESSAGE_MENTION = "message_mention"

STRONG = "strong"
WEAK = "weak"

_KEYWORD = r"(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)"
_SHA = re.compile(r"This reverts commit ([0-9a-f]{7,40})", re.IGNORECASE)


def _repo(full_name: str) -> str:
    return re.escape(full_name)


def _github_url(full_name: str, kind: str) -> str:
    return rf"https?://(?:www\.)?github\.com/{_repo(full_name)}/{kind}/(\d+)"


def _issue_target(full_name: str) -> str:
    """A reference to an issue of this repository: #N, owner/repo#N or the issue's URL."""
    return rf"(?:(?<![\w/])#(\d+)|{_repo(full_name)}#(\d+)|{_github_url(full_name, 'issues')})"


def _numbers(match: re.Match) -> int:
    return int(next(group for group in match.groups() if group))


def closing_references(text: str, *, repo_full_name: str) -> set[int]:
    """Issue numbers of this repository that a closing keyword ("Fixes #12") targets."""
    if not text:
        return set()
    pattern = re.compile(rf"\b{_KEYWORD}:?\s+{_issue_target(repo_full_name)}(?!\w)", re.IGNORECASE)
    return {_numbers(match) for match in pattern.finditer(text)}


def mentions_report(text: str, *, number: int, repo_full_name: str) -> bool:
    """Whether the text links the report by URL or by number (#N), as the seed study did."""
    if not text:
        return False
    pattern = re.compile(rf"{_issue_target(repo_full_name)}(?!\w)", re.IGNORECASE)
    return any(_numbers(match) == number for match in pattern.finditer(text))


def landed_pull_request(message: str, *, repo_full_name: str) -> int | None:
    """PyTorch's merge bot: "Pull Request resolved: https://github.com/pytorch/pytorch/pull/N"."""
    pattern = rf"Pull Request resolved:\s*{_github_url(repo_full_name, 'pull')}"
    match = re.search(pattern, message or "", re.IGNORECASE)
    return int(match.group(1)) if match else None


def imported_pull_request(message: str, *, repo_full_name: str) -> int | None:
    """TensorFlow's mirror: "Imported from GitHub PR <URL>" or "COPYBARA_INTEGRATE_REVIEW=<URL>"."""
    url = _github_url(repo_full_name, "pull")
    pattern = rf"(?:Imported from GitHub PR\s*|COPYBARA_INTEGRATE_REVIEW=){url}"
    match = re.search(pattern, message or "", re.IGNORECASE)
    return int(match.group(1)) if match else None


def is_revert(message: str) -> bool:
    text = message or ""
    return bool(_SHA.search(text)) or text.lstrip().lower().startswith("revert ")


def reverted_commits(message: str) -> set[str]:
    """Shas a revert commit undoes ("This reverts commit <sha>."), lower-case."""
    return {sha.lower() for sha in _SHA.findall(message or "")}


def reverted_pull_requests(message: str, *, repo_full_name: str) -> set[int]:
    """PRs that PyTorch's bot reverted: "Reverted https://github.com/o/r/pull/N on behalf of"."""
    pattern = rf"Reverted\s+{_github_url(repo_full_name, 'pull')}"
    return {int(n) for n in re.findall(pattern, message or "", re.IGNORECASE)}


@dataclass(frozen=True)
class PullRequestInfo:
    number: int
    body: str = ""
    merged: bool = False
    merge_commit_sha: str = ""
    labels: tuple[str, ...] = ()


@dataclass(frozen=True)
class TimelineEvent:
    """One timeline item: kind is "closed", "cross_referenced" or "referenced"."""

    kind: str
    commit_sha: str = ""
    pull_request: int | None = None
    will_close: bool = False


@dataclass(frozen=True)
class Link:
    evidence: str
    strength: str
    commit_sha: str = ""
    pull_request: int | None = None
    reverted: bool = False
    detail: str = ""

    @property
    def target(self) -> str:
        return f"commit:{self.commit_sha}" if self.commit_sha else f"pr:{self.pull_request}"


@dataclass
class Reverts:
    """What the commit messages seen so far say was reverted."""

    commits: set[str] = field(default_factory=set)
    pull_requests: set[int] = field(default_factory=set)

    def add_message(self, message: str, *, repo_full_name: str) -> None:
        self.commits |= reverted_commits(message)
        self.pull_requests |= reverted_pull_requests(message, repo_full_name=repo_full_name)


def report_fix_links(
    *,
    number: int,
    repo_full_name: str,
    closing_pull_requests: list[int],
    events: list[TimelineEvent],
    commit_messages: dict[str, str],
    pull_requests: dict[int, PullRequestInfo],
    reverts: Reverts,
) -> list[Link]:
    """Every fix link of report `number`, one per (target, evidence), strongest rules first.

    `commit_messages` and `pull_requests` hold what is known about the commits and PRs the
    report's data points at; `reverts` what any commit message said was reverted.
    """
    links: dict[tuple[str, str], Link] = {}

    def add(link: Link) -> None:
        links.setdefault((link.target, link.evidence), link)

    for pr in closing_pull_requests:
        add(Link(CLOSING, STRONG, pull_request=pr, detail="GitHub closing reference"))
    for pr in pull_requests.values():
        if number in closing_references(pr.body, repo_full_name=repo_full_name):
            add(Link(CLOSING, STRONG, pull_request=pr.number, detail="Closing keyword in PR body"))

    for link in _event_links(number, repo_full_name, events, commit_messages):
        add(link)
    for link in _landing_links(
        list(links.values()), repo_full_name, commit_messages, pull_requests
    ):
        add(link)

    return [
        _mark_reverted(link, pull_requests, reverts, commit_messages, repo_full_name)
        for link in links.values()
    ]


def _event_links(
    number: int, repo_full_name: str, events: list[TimelineEvent], commit_messages: dict[str, str]
) -> list[Link]:
    """The links the report's timeline gives, in its order: closed by a commit or a pull
    request, a pull request that will close it, a commit that references it (closing it or
    mentioning it; a revert does not count)."""
    found: list[Link] = []
    add = found.append
    for event in events:
        sha = event.commit_sha.lower()
        if event.kind == "closed" and sha:
            add(Link(CLOSED_BY_COMMIT, STRONG, commit_sha=sha, detail="Closed by this commit"))
        elif event.kind == "closed" and event.pull_request:
            add(
                Link(
                    CLOSED_BY_PULL_REQUEST,
                    STRONG,
                    pull_request=event.pull_request,
                    detail="Closed by this pull request",
                )
            )
        elif event.kind == "cross_referenced" and event.pull_request and event.will_close:
            add(
                Link(
                    WILL_CLOSE,
                    STRONG,
                    pull_request=event.pull_request,
                    detail="Cross-referenced by a pull request that will close it",
                )
            )
        elif event.kind == "referenced" and sha:
            message = commit_messages.get(sha, "")
            if is_revert(message):
                continue
            if number in closing_references(message, repo_full_name=repo_full_name):
                add(
                    Link(
                        CLOSING,
                        STRONG,
                        commit_sha=sha,
                        detail="Closing keyword in commit message",
                    )
                )
            elif mentions_report(message, number=number, repo_full_name=repo_full_name):
                add(
                    Link(
                        MESSAGE_MENTION,
                        WEAK,
                        commit_sha=sha,
                        detail="Commit message mentions the report",
                    )
                )
    return found


def _landing_links(
    links: list[Link],
    repo_full_name: str,
    commit_messages: dict[str, str],
    pull_requests: dict[int, PullRequestInfo],
) -> list[Link]:
    """The links that tie the commits and pull requests of `links` to each other: a commit
    that lands or imports a pull request, and a merged pull request's merge commit."""
    found: list[Link] = []
    add = found.append
    linked_prs = {link.pull_request for link in links if link.pull_request}
    linked_commits = {link.commit_sha for link in links if link.commit_sha}
    for sha in sorted(linked_commits):
        message = commit_messages.get(sha, "")
        landed = landed_pull_request(message, repo_full_name=repo_full_name)
        imported = imported_pull_request(message, repo_full_name=repo_full_name)
        if landed:
            add(Link(LANDED_PULL_REQUEST, STRONG, commit_sha=sha, detail=f"Lands PR #{landed}"))
            add(Link(LANDED_PULL_REQUEST, STRONG, pull_request=landed, detail=f"Landed by {sha}"))
        if imported:
            detail = f"Imports PR #{imported}"
            add(Link(IMPORTED_PULL_REQUEST, STRONG, commit_sha=sha, detail=detail))
            add(
                Link(
                    IMPORTED_PULL_REQUEST,
                    STRONG,
                    pull_request=imported,
                    detail=f"Imported by {sha}",
                )
            )
    for sha, message in sorted(commit_messages.items()):
        landed = landed_pull_request(message, repo_full_name=repo_full_name)
        if landed in linked_prs and not is_revert(message):
            add(Link(LANDED_PULL_REQUEST, STRONG, commit_sha=sha, detail=f"Lands PR #{landed}"))
        imported = imported_pull_request(message, repo_full_name=repo_full_name)
        if imported in linked_prs and not is_revert(message):
            add(
                Link(
                    IMPORTED_PULL_REQUEST, STRONG, commit_sha=sha, detail=f"Imports PR #{imported}"
                )
            )
    for pr_number in sorted(linked_prs):
        pr = pull_requests.get(pr_number)
        if pr and pr.merged and pr.merge_commit_sha:
            add(
                Link(
                    MERGE_COMMIT,
                    STRONG,
                    commit_sha=pr.merge_commit_sha.lower(),
                    detail=f"Merge commit of PR #{pr_number}",
                )
            )
    return found


def _mark_reverted(
    link: Link,
    pull_requests: dict[int, PullRequestInfo],
    reverts: Reverts,
    commit_messages: dict[str, str],
    repo_full_name: str,
) -> Link:
    reverted_prs = set(reverts.pull_requests) | {
        pr.number for pr in pull_requests.values() if "reverted" in {x.lower() for x in pr.labels}
    }
    if link.commit_sha:
        message = commit_messages.get(link.commit_sha, "")
        landed = landed_pull_request(message, repo_full_name=repo_full_name)
        reverted = any(link.commit_sha.startswith(sha) for sha in reverts.commits) or (
            landed is not None and landed in reverted_prs
        )
    else:
        reverted = link.pull_request in reverted_prs
    if not reverted:
        return link
    return Link(
        link.evidence,
        link.strength,
        link.commit_sha,
        link.pull_request,
        reverted=True,
        detail=link.detail,
    )
