"""Payloads to records: links shown to users are http(s) only; a payload of any shape gives
a record or MalformedPayloadError, never another error."""

import pytest

from mining import records


@pytest.mark.parametrize(
    "url", ["https://github.com/o/r/issues/1", "http://ghe.example/o/r/issues/1", "", None]
)
def test_web_urls_keep_http_and_https(url):
    assert records.web_url(url, "html_url") == (url or "")


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)//", " JavaScript:alert(1)", "data:text/html,x", "vbscript:x"]
)
def test_web_urls_refuse_other_schemes(url):
    with pytest.raises(records.MalformedPayloadError, match="html_url: not an http"):
        records.web_url(url, "html_url")


def test_patches_are_cut_at_the_limit_and_marked_truncated():
    assert records.cap_patch("+a\n+b\n", 100) == ("+a\n+b\n", False)
    assert records.cap_patch("+" + "x" * 50, 10) == ("+xxxxxxxxx", True)
    assert records.cap_patch(None, 10) == ("", False)


def graphql_issue(**fields):
    node = {
        "id": "I_1",
        "number": 1,
        "title": "Slow",
        "state": "OPEN",
        "createdAt": "2024-01-02T03:04:05Z",
        "url": "https://github.com/o/r/issues/1",
        "comments": {"totalCount": 0, "pageInfo": {"hasNextPage": False}, "nodes": []},
    }
    return {**node, **fields}


NO_GET = "unexpected shape (AttributeError: '{}' object has no attribute 'get')"


@pytest.mark.parametrize(
    ("parse", "payload", "message"),
    [
        # A list where an object belongs, text for an object, a number for a list.
        (lambda p: records.report_from_graphql(p, repo_full_name="o/r"),
         graphql_issue(labels=["bug"]), "report_from_graphql: " + NO_GET.format("list")),
        (lambda p: records.report_from_graphql(p, repo_full_name="o/r"),
         graphql_issue(reactionGroups={"content": "HEART"}),
         "report_from_graphql: " + NO_GET.format("str")),
        (records.report_from_rest, {"number": 1, "labels": 5}, "labels: expected list, got int"),
        (lambda p: records.event_from_rest(p, repo_full_name="o/r"),
         {"event": "cross-referenced", "source": ["issue"]},
         "event_from_rest: " + NO_GET.format("list")),
        (lambda p: records.commit_from_rest(p, patch_limit=10),
         {"sha": "a" * 40, "commit": {"message": "m"}, "files": [["patch"]]},
         "commit_from_rest: " + NO_GET.format("list")),
        (lambda p: records.more_pages_of(p, ("comments",)),
         graphql_issue(comments=[]), "comments: expected an object, got list"),
        (records.comments_from_rest, {"id": 1}, "comments: expected a list, got dict"),
        (records.issue_comment_from_rest, "text", "comment: expected an object, got str"),
    ],
)  # fmt: skip
def test_a_payload_of_the_wrong_shape_raises_only_malformed_payload(parse, payload, message):
    with pytest.raises(records.MalformedPayloadError) as raised:
        parse(payload)

    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("connection", "message"),
    [
        ([], "comments: expected an object, got list"),
        ({"nodes": []}, "comments.pageInfo: missing"),
        ({"nodes": {}, "pageInfo": {}}, "comments.nodes: expected list, got dict"),
        ({"pageInfo": {}}, "comments.pageInfo.hasNextPage: missing"),
        ({"pageInfo": {"hasNextPage": True}}, "comments.pageInfo.endCursor: missing"),
        ({"pageInfo": {"hasNextPage": "yes"}}, "comments.pageInfo.hasNextPage: expected bool"),
    ],
)
def test_a_graphql_connection_page_is_checked_field_by_field(connection, message):
    with pytest.raises(records.MalformedPayloadError, match=message.replace(".", r"\.")):
        records.connection_from_graphql(connection, "comments")


def test_a_graphql_connection_page_reads_nodes_cursor_and_total():
    page = records.connection_from_graphql(
        {
            "totalCount": 3,
            "pageInfo": {"hasNextPage": True, "endCursor": "Y3Vyc29y"},
            "nodes": [{"id": "a"}, None, {"id": "b"}],
        },
        "issues",
    )

    assert page == records.Connection(
        nodes=[{"id": "a"}, {"id": "b"}], has_next_page=True, end_cursor="Y3Vyc29y", total_count=3
    )


def test_more_pages_of_lists_the_connections_with_a_next_page():
    node = graphql_issue(
        comments={"pageInfo": {"hasNextPage": True, "endCursor": "c1"}, "nodes": []},
        labels={"pageInfo": {"hasNextPage": False, "endCursor": None}, "nodes": []},
    )

    assert records.more_pages_of(node, ("comments", "labels", "timelineItems")) == [
        ("comments", "I_1", "c1")
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (["not", "an", "object"], "expected a JSON object"),
        ({"repository_url": "https://example.org/x"}, "repository_url: not a repository API"),
        (
            {
                "repository_url": "https://api.github.com/repos/o/r",
                "number": 1,
                "title": "t",
                "state": "open",
                "created_at": "2024-01-02T03:04:05Z",
                "comments_data": {"id": 1},
            },
            "comments: expected a list, got dict",
        ),
    ],
)
def test_an_offline_file_line_of_the_wrong_shape_is_malformed(line, message):
    with pytest.raises(records.MalformedPayloadError, match=message):
        records.page_from_file_issue(line, patch_limit=100)


def test_a_callers_bug_is_not_passed_off_as_a_malformed_payload():
    report, _ = records.report_from_graphql(graphql_issue(), repo_full_name="o/r")

    with pytest.raises(NotImplementedError, match="unknown connection 'reviews'"):
        records.extend_report_from_graphql(
            report, "reviews", [], repo_full_name="o/r", related=records.Page()
        )


COMMENT = {"author": None, "body": "x", "createdAt": "2024-01-02T03:04:05Z"}


@pytest.mark.parametrize(
    ("value", "stored"), [("3436247006", 3436247006), (3436247006, 3436247006), ("7", 7)]
)
def test_graphql_bigint_ids_are_read_whole(value, stored):
    assert records.comment_from_graphql({**COMMENT, "fullDatabaseId": value}).github_id == stored
    issue = records.report_from_graphql(graphql_issue(fullDatabaseId=value), repo_full_name="o/r")
    assert issue[0].github_id == stored


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("12a", "fullDatabaseId: not an id: '12a'"),
        ("-5", "fullDatabaseId: not an id: '-5'"),
        ("\u0663", "fullDatabaseId: not an id: '\u0663'"),  # a digit, but not an ASCII one
        (0, "fullDatabaseId: id out of range: 0"),
        (str(2**63), f"fullDatabaseId: id out of range: {2**63}"),
        (None, "fullDatabaseId: missing"),
        (1.5, "fullDatabaseId: expected int or str, got float"),
    ],
)
def test_a_graphql_id_that_is_no_id_is_malformed(value, message):
    with pytest.raises(records.MalformedPayloadError) as raised:
        records.comment_from_graphql({**COMMENT, "fullDatabaseId": value})
    assert str(raised.value) == message


def test_rest_and_offline_ids_past_2_31_are_read_whole():
    from tests.mining import payloads

    issue = payloads.rest_issue(5, comments_data=[payloads.rest_comment(1, issue_number=5)])
    _, page = records.page_from_file_issue(issue, patch_limit=100)
    report = page.reports[0]
    assert report.github_id == payloads.ISSUE_ID_BASE + 5 > 2**31
    assert report.comments[0].github_id == payloads.comment_id(1) > 2**31
