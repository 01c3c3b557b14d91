"""A fake GitHub API on loopback: REST endpoints the importer uses and POST /graphql.

State is programmed per test (repositories, issues, comments, timelines, commits, pull
requests, rate limits, injected failures) and every request is logged. GraphQL queries are
parsed and validated against GitHub's public schema (/work/shared/github/schema.graphql) and
executed by graphql-core with resolvers over the same REST-shaped data, so both APIs serve
the same repository.

Ids are GitHub's of today (see REPOSITORY_ID): a query asking `databaseId` of an issue,
comment or pull request gets GraphQL's 32-bit error, as from GitHub. A test can make one field
of chosen nodes answer an error beside the data (`fail_graphql_field`), and make error answers
echo the request's Authorization header, as some proxies and Enterprise servers do.

For the benchmark, `RemoteFake` runs the fake in its own process (so its CPU does not
compete with the importer's); `/_fake/log` then hands the request log over HTTP.
"""

import datetime as dt
import hashlib
import json
import multiprocessing
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlparse

from graphql import build_ast_schema, execute, parse, validate

SCHEMA_PATH = Path("/work/shared/github/schema.graphql")


# GitHub's ids as they are today: issues, comments and pull requests past 2^31 (GraphQL's
# `Int` cannot carry them: `databaseId` answers an error, `fullDatabaseId` a BigInt string);
# repositories still below it (Repository has only `databaseId`).
REPOSITORY_ID = 65_600_975
PULL_REQUEST_ID_BASE = 2_800_000_000


@cache
def github_schema():
    # GitHub's published SDL defines a few fields twice; assume_valid_sdl skips that check.
    schema = build_ast_schema(parse(SCHEMA_PATH.read_text(encoding="utf-8")), assume_valid_sdl=True)
    # GitHub sends a BigInt as a string ("it may exceed the size of a 32-bit integer").
    schema.type_map["BigInt"].serialize = _big_int
    return schema


def _big_int(value) -> str:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"BigInt cannot represent {value!r}")
    return str(value)


def validate_query(query: str) -> list[str]:
    try:
        document = parse(query)
    except Exception as exc:
        return [str(exc)]
    return [error.message for error in validate(github_schema(), document)]


@dataclass
class FakeRepo:
    full_name: str
    issues: dict[int, dict] = field(default_factory=dict)  # REST issue objects (PRs too)
    comments: dict[int, list[dict]] = field(default_factory=dict)
    timeline: dict[int, list[dict]] = field(default_factory=dict)
    commits: dict[str, dict] = field(default_factory=dict)  # REST commit objects
    pulls: dict[int, dict] = field(default_factory=dict)  # extra PR facts (merged, merge sha...)
    closing_prs: dict[int, list[int]] = field(default_factory=dict)  # GraphQL closing refs


@dataclass
class FieldFailure:
    """GraphQL answers an error (with `data` for everything else) for this field of the nodes
    of this type that `when(node)` picks; "{authorization}" in the message is replaced by the
    request's Authorization header, as an echoing server would."""

    typename: str
    field: str
    message: str
    type: str | None = None
    when: Callable[[dict], bool] | None = None


class FieldFailed(Exception):
    def __init__(self, message: str, kind: str | None):
        super().__init__(message)
        self.kind = kind


@dataclass
class Logged:
    method: str
    path: str
    query: dict
    status: int
    kind: str  # "rest" or "graphql"
    headers: dict = field(default_factory=dict)  # request headers the tests look at
    variables: dict = field(default_factory=dict)  # GraphQL variables
    at: float = 0.0  # when it was answered (epoch seconds)


class FakeGitHub:
    def __init__(self):
        self.repos: dict[str, FakeRepo] = {}
        self.log: list[Logged] = []
        self.valid_tokens: set[str] | None = None
        self.limit = 5000
        self.remaining = 5000
        self.reset_in = 3600.0
        self.reset_at = time.time() + self.reset_in
        self.failures: list[tuple] = []  # (predicate(path), status, headers, body)
        self.field_failures: list[FieldFailure] = []
        # Seconds to hold each answer back, given (path, GraphQL variables); see `slow_down`.
        self.delay: Callable[[str, dict], float] | None = None
        self.released = threading.Event()
        # GraphQL variables of the requests being held back now (see `slow_down`).
        self.holding: list[dict] = []
        self._walks: dict[tuple, list] = {}
        self.lock = threading.Lock()
        self.server = _QuietServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    # ---- control ----

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> "FakeGitHub":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()

    def repo(self, full_name: str) -> FakeRepo:
        return self.repos.setdefault(full_name, FakeRepo(full_name))

    def fail_next(self, status: int, *, headers=None, body=None, times=1, when=None) -> None:
        """The next matching request(s) answer this; "{authorization}" in the body's texts is
        replaced by the request's Authorization header (an error page echoing the request)."""
        for _ in range(times):
            self.failures.append((when, status, headers or {}, body or {"message": "boom"}))

    def fail_graphql_field(
        self, typename: str, field: str, message: str, *, type=None, when=None
    ) -> None:
        self.field_failures.append(FieldFailure(typename, field, message, type, when))

    def set_budget(self, remaining: int, *, reset_in: float = 3600) -> None:
        self.remaining = remaining
        self.reset_at = time.time() + reset_in

    def requests(self, kind: str | None = None) -> list[Logged]:
        return [entry for entry in self.log if kind is None or entry.kind == kind]

    def slow_down(self, delay: Callable[[str, dict], float] | None) -> None:
        """Hold answers back (`delay(path, variables)` seconds) until `delay` is None again;
        answers held at that moment are released."""
        if delay is None:
            self.released.set()
        else:
            self.released = threading.Event()
        self.delay = delay

    # ---- HTTP ----

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def do_GET(self):
                fake._dispatch(self, "GET")

            def do_POST(self):
                fake._dispatch(self, "POST")

        return Handler

    def _rate_headers(self) -> dict:
        return {
            "x-ratelimit-limit": str(self.limit),
            "x-ratelimit-remaining": str(max(self.remaining, 0)),
            "x-ratelimit-used": str(self.limit - max(self.remaining, 0)),
            "x-ratelimit-reset": str(int(self.reset_at)),
            "x-ratelimit-resource": "core",
        }

    def _dispatch(self, handler, method: str) -> None:
        parsed = urlparse(handler.path)
        query = {k: v[-1] for k, v in parse_qs(parsed.query).items()}
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else b""
        kind = "graphql" if parsed.path == "/graphql" else "rest"
        if parsed.path == "/_fake/log":
            self._send(handler, 200, {}, [vars(entry) for entry in self.log])
            return
        variables = _variables(body) if kind == "graphql" else {}
        delay, released = self.delay, self.released
        if delay is not None:
            with self.lock:
                self.holding.append(variables)
            try:
                released.wait(delay(parsed.path, variables))
            finally:
                with self.lock:
                    self.holding.remove(variables)
        with self.lock:
            status, headers, payload = self._answer(handler, method, parsed.path, query, body, kind)
            sent = {
                k.lower(): v for k, v in handler.headers.items() if k.lower() == "if-none-match"
            }
            self.log.append(
                Logged(method, parsed.path, query, status, kind, sent, variables, time.time())
            )
        self._send(handler, status, headers, payload)

    @staticmethod
    def _send(handler, status, headers, payload) -> None:
        data = b"" if payload is None else json.dumps(payload).encode()
        handler.send_response(status)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Type", "application/json; charset=utf-8")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _answer(self, handler, method, path, query, body, kind):
        if self.valid_tokens is not None:
            token = (handler.headers.get("Authorization") or "").removeprefix("token ").strip()
            token = token.removeprefix("Bearer ").strip()
            if token not in self.valid_tokens:
                return 401, {}, {"message": "Bad credentials"}
        authorization = handler.headers.get("Authorization") or ""
        for index, (when, status, headers, payload) in enumerate(self.failures):
            if when is None or when(path):
                del self.failures[index]
                return status, {**self._rate_headers(), **headers}, _echo(payload, authorization)
        if time.time() >= self.reset_at:
            self.remaining = self.limit
            self.reset_at = time.time() + self.reset_in
        if self.remaining <= 0:
            if kind == "graphql":
                errors = [{"type": "RATE_LIMITED", "message": "API rate limit exceeded"}]
                return 200, self._rate_headers(), {"errors": errors}
            return 403, self._rate_headers(), {"message": "API rate limit exceeded for user."}
        if kind == "graphql" and method == "POST":
            self.remaining -= 1
            return self._graphql(body, authorization)
        if method != "GET":
            return 404, {}, {"message": "Not Found"}
        status, headers, payload = self._rest(path, query)
        etag = '"' + hashlib.sha1(json.dumps(payload).encode()).hexdigest() + '"'  # noqa: S324
        if status == 200 and handler.headers.get("If-None-Match") == etag:
            return 304, {**self._rate_headers(), "ETag": etag}, None
        self.remaining -= 1
        return status, {**self._rate_headers(), "ETag": etag, **headers}, payload

    # ---- REST ----

    def _paginate(self, path, query, items):
        """One page of `items` (a list, or a callable making it), as GitHub pages: `page` and
        `per_page` (default 30), a Link header to the next page. The list made for page 1 of
        a walk serves its later pages (a snapshot, so big listings stay cheap)."""
        per_page = int(query.get("per_page", 30))
        page = int(query.get("page", 1))
        walk = (path, tuple(sorted((k, v) for k, v in query.items() if k != "page")))
        if callable(items):
            if page == 1 or walk not in self._walks:
                self._walks[walk] = items()
            items = self._walks[walk]
        chunk = items[(page - 1) * per_page : page * per_page]
        headers = {}
        if page * per_page < len(items):
            next_query = urlencode({**query, "page": page + 1})
            headers["Link"] = f'<{self.url}{path}?{next_query}>; rel="next"'
        return 200, headers, chunk

    def _rest(self, path, query):
        parts = path.strip("/").split("/")
        if len(parts) < 3 or parts[0] != "repos":
            return 404, {}, {"message": "Not Found"}
        repo = self.repos.get(f"{parts[1]}/{parts[2]}")
        if repo is None:
            return 404, {}, {"message": "Not Found"}
        rest = parts[3:]
        if rest == ["issues"]:
            return self._paginate(path, query, lambda: self._repo_issues(repo, query))
        if rest == ["issues", "comments"]:
            return self._paginate(path, query, lambda: self._repo_comments(repo, query))
        if len(rest) == 3 and rest[0] == "issues" and rest[2] in ("comments", "timeline"):
            number = int(rest[1])
            source = repo.comments if rest[2] == "comments" else repo.timeline
            return self._paginate(path, query, source.get(number, []))
        if len(rest) == 2 and rest[0] == "commits":
            commit = repo.commits.get(rest[1])
            if commit is None:
                return 404, {}, {"message": "Not Found"}
            return 200, {}, commit
        return 404, {}, {"message": "Not Found"}

    @staticmethod
    def _repo_issues(repo, query):
        items = sorted(repo.issues.values(), key=lambda i: (i["updated_at"], i["number"]))
        if query.get("state", "open") != "all":
            items = [i for i in items if i["state"] == query.get("state", "open")]
        if query.get("since"):
            since = _time(query["since"])
            items = [i for i in items if _time(i["updated_at"]) >= since]
        return items

    def _repo_comments(self, repo, query):
        """GET /repos/{o}/{r}/issues/comments: every issue's comments, by creation (or update)
        time ascending, `since` on the update time, each with its issue_url."""
        items = [
            {"issue_url": f"{self.url}/repos/{repo.full_name}/issues/{number}", **comment}
            for number, comments in repo.comments.items()
            for comment in comments
        ]
        key = "updated_at" if query.get("sort") == "updated" else "created_at"
        items.sort(key=lambda c: (c.get(key) or c["created_at"], c["id"]))
        if query.get("direction") == "desc":
            items.reverse()
        if query.get("since"):
            since = _time(query["since"])
            items = [c for c in items if _time(c.get("updated_at") or c["created_at"]) >= since]
        return items

    # ---- GraphQL ----

    def _graphql(self, body, authorization=""):
        try:
            request = json.loads(body)
            document = parse(request["query"])
        except Exception as exc:
            return 400, self._rate_headers(), {"message": f"Problems parsing JSON: {exc}"}
        errors = validate(github_schema(), document)
        if errors:
            return 200, self._rate_headers(), {"errors": [{"message": e.message} for e in errors]}
        root = {
            "rateLimit": {
                "cost": 1,
                "limit": self.limit,
                "remaining": self.remaining,
                "nodeCount": 0,
                "used": self.limit - self.remaining,
                "resetAt": _iso(dt.datetime.fromtimestamp(self.reset_at, dt.UTC)),
            },
            "repository": lambda owner, name, **_: self._gql_repo(owner, name),
            "node": lambda id, **_: self._gql_node(id),
        }
        result = execute(
            github_schema(),
            document,
            root_value=root,
            variable_values=request.get("variables") or {},
            field_resolver=self._resolve,
        )
        payload = {"data": result.data}
        if result.errors:
            payload["errors"] = [
                {
                    "message": _echo(e.message, authorization),
                    "path": e.path,
                    "type": _error_type(e.original_error),
                }
                for e in result.errors
            ]
        return 200, self._rate_headers(), payload

    def _resolve(self, source, info, **args):
        if isinstance(source, dict):
            for failure in self.field_failures:
                if (
                    failure.field == info.field_name
                    and failure.typename == source.get("__typename")
                    and (failure.when is None or failure.when(source))
                ):
                    raise FieldFailed(failure.message, failure.type)
        value = source.get(info.field_name) if isinstance(source, dict) else None
        return value(**args) if callable(value) else value

    def _gql_repo(self, owner, name):
        repo = self.repos.get(f"{owner}/{name}")
        if repo is None:
            raise LookupError(f"Could not resolve to a Repository with the name '{owner}/{name}'.")
        return {
            "databaseId": REPOSITORY_ID,
            "nameWithOwner": repo.full_name,
            "url": f"https://github.com/{repo.full_name}",
            "defaultBranchRef": {"name": "main"},
            "issues": lambda **args: self._gql_issues(repo, **args),
        }

    def _gql_node(self, node_id):
        for repo in self.repos.values():
            for issue in repo.issues.values():
                if issue.get("node_id") == node_id:
                    return self._gql_issue(repo, issue)
        raise LookupError(f"Could not resolve to a node with the global id of '{node_id}'")

    def _gql_issues(self, repo, first, after=None, filterBy=None, orderBy=None, **_):
        filters = filterBy or {}
        items = [i for i in repo.issues.values() if "pull_request" not in i]
        items.sort(key=lambda i: (i["updated_at"], i["number"]))
        if filters.get("since"):
            since = _time(filters["since"])
            items = [i for i in items if _time(i["updated_at"]) >= since]
        if filters.get("states"):
            states = {s.lower() for s in filters["states"]}
            items = [i for i in items if i["state"] in states]
        return _connection(items, first, after, lambda i: self._gql_issue(repo, i))

    def _gql_issue(self, repo, issue):
        number = issue["number"]
        reactions = issue.get("reactions") or {}
        return {
            "__typename": "Issue",
            "id": issue["node_id"],
            "databaseId": issue["id"],
            "fullDatabaseId": issue["id"],
            "number": number,
            "title": issue["title"],
            "body": issue.get("body") or "",
            "state": issue["state"].upper(),
            "stateReason": (issue.get("state_reason") or "").upper() or None,
            "url": issue["html_url"],
            "createdAt": issue["created_at"],
            "updatedAt": issue["updated_at"],
            "closedAt": issue.get("closed_at"),
            "author": _actor(issue.get("user")),
            "milestone": issue.get("milestone"),
            "labels": lambda first, after=None, **_: _connection(
                issue["labels"], first, after, lambda label: label
            ),
            "reactionGroups": [
                {"content": "THUMBS_UP", "reactors": {"totalCount": reactions.get("+1", 0)}}
            ],
            "comments": lambda first, after=None, **_: _connection(
                repo.comments.get(number, []), first, after, _gql_comment
            ),
            "closedByPullRequestsReferences": lambda first, after=None, **_: _connection(
                repo.closing_prs.get(number, []), first, after, lambda n: self._gql_pr(repo, n)
            ),
            "timelineItems": lambda first, after=None, **_: _connection(
                [e for e in repo.timeline.get(number, []) if self._gql_event(repo, e)],
                first,
                after,
                lambda e: self._gql_event(repo, e),
            ),
        }

    def _gql_pr(self, repo, number):
        pr = repo.pulls.get(number, {})
        issue = repo.issues.get(number, {})
        github_id = issue.get("id", PULL_REQUEST_ID_BASE + number)
        return {
            "__typename": "PullRequest",
            "databaseId": github_id,
            "fullDatabaseId": github_id,
            "number": number,
            "title": issue.get("title", f"PR {number}"),
            "body": issue.get("body", ""),
            "state": pr.get("state", "MERGED" if pr.get("merged") else "CLOSED"),
            "merged": bool(pr.get("merged")),
            "url": f"https://github.com/{repo.full_name}/pull/{number}",
            "additions": pr.get("additions", 5),
            "deletions": pr.get("deletions", 1),
            "repository": {"nameWithOwner": repo.full_name},
            "mergeCommit": (
                self._gql_commit(repo, pr["merge_commit_sha"])
                if pr.get("merge_commit_sha")
                else None
            ),
            "labels": lambda first, **_: {
                "nodes": [{"name": n} for n in pr.get("labels", [])][:first]
            },
        }

    def _gql_commit(self, repo, sha):
        # A commit the test did not describe (a merge commit named by a PR) still has what
        # GitHub never leaves out.
        commit = repo.commits.get(sha) or {"sha": sha, "commit": {"message": ""}}
        stats = commit.get("stats") or {}
        author = (commit.get("commit") or {}).get("author") or {"date": "2021-01-01T00:00:00Z"}
        return {
            "__typename": "Commit",
            "oid": sha,
            "message": commit["commit"]["message"],
            "url": f"https://github.com/{repo.full_name}/commit/{sha}",
            "authoredDate": author.get("date"),
            "additions": stats.get("additions", 0),
            "deletions": stats.get("deletions", 0),
            "changedFilesIfAvailable": len(commit.get("files") or []),
            "author": {"name": author.get("name"), "user": _actor(commit.get("author"))},
        }

    def _gql_event(self, repo, event):
        kind = event.get("event")
        if kind == "closed":
            closer = None
            if event.get("commit_id"):
                closer = self._gql_commit(repo, event["commit_id"])
            elif event.get("closer_pr"):
                closer = self._gql_pr(repo, event["closer_pr"])
            return {"__typename": "ClosedEvent", "closer": closer}
        if kind == "cross-referenced":
            number = event["source"]["issue"]["number"]
            return {
                "__typename": "CrossReferencedEvent",
                "willCloseTarget": bool(event.get("will_close")),
                "source": self._gql_pr(repo, number),
            }
        if kind == "referenced" and event.get("commit_id"):
            return {
                "__typename": "ReferencedEvent",
                "commitRepository": {"nameWithOwner": repo.full_name},
                "commit": self._gql_commit(repo, event["commit_id"]),
            }
        return None


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        """A client that went away (a killed worker) is no error of the fake's."""


def _variables(body: bytes) -> dict:
    try:
        return json.loads(body).get("variables") or {}
    except (ValueError, AttributeError):
        return {}


def _serve(populate, args, connection) -> None:
    fake = FakeGitHub()
    populate(fake, *args)
    fake.start()
    connection.send(fake.url)
    connection.recv()  # until the parent says stop
    fake.stop()


class RemoteFake:
    """A FakeGitHub in a child process, populated there by `populate(fake, *args)`."""

    def __init__(self, populate: Callable, *args):
        context = multiprocessing.get_context("fork")
        self._connection, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(populate, args, child), daemon=True)
        self._process.start()
        self.url = self._connection.recv()

    def requests(self) -> list[Logged]:
        with urllib.request.urlopen(f"{self.url}/_fake/log") as response:
            return [Logged(**entry) for entry in json.loads(response.read())]

    def stop(self) -> None:
        self._connection.send("stop")
        self._process.join(timeout=10)


def _echo(value, authorization: str):
    """`value` with "{authorization}" in its texts replaced by the Authorization header."""
    if isinstance(value, str):
        return value.replace("{authorization}", authorization)
    if isinstance(value, list):
        return [_echo(item, authorization) for item in value]
    if isinstance(value, dict):
        return {key: _echo(item, authorization) for key, item in value.items()}
    return value


def _error_type(error) -> str | None:
    if isinstance(error, LookupError):
        return "NOT_FOUND"
    if isinstance(error, FieldFailed):
        return error.kind
    return None


def _connection(items, first, after, convert):
    start = int(after) if after else 0
    chunk = items[start : start + first]
    end = start + len(chunk)
    return {
        "totalCount": len(items),
        "pageInfo": {"hasNextPage": end < len(items), "endCursor": str(end) if chunk else after},
        "nodes": [convert(item) for item in chunk],
    }


def _gql_comment(comment):
    return {
        "__typename": "IssueComment",
        "databaseId": comment["id"],
        "fullDatabaseId": comment["id"],
        "author": _actor(comment.get("user")),
        "body": comment.get("body") or "",
        "createdAt": comment["created_at"],
        "updatedAt": comment.get("updated_at"),
    }


def _actor(user):
    return None if not user else {"__typename": "User", "login": user["login"]}


def _time(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value)


def _iso(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")
