from mining import linking
from mining.linking import PullRequestInfo, Reverts, TimelineEvent

REPO = "pytorch/pytorch"


def links_of(**kwargs):
    defaults = {
        "number": 7,
        "repo_full_name": REPO,
        "closing_pull_requests": [],
        "events": [],
        "commit_messages": {},
        "pull_requests": {},
        "reverts": Reverts(),
    }
    defaults.update(kwargs)
    return {(link.target, link.evidence): link for link in linking.report_fix_links(**defaults)}


def test_closing_keywords_all_forms_same_repo_only():
    text = (
        "Fixes #7, closes pytorch/pytorch#8 and resolved: #9.\n"
        "fix https://github.com/pytorch/pytorch/issues/10\n"
        "Fixes other/repo#11; fixes #12345x; mentions #13"
    )
    assert linking.closing_references(text, repo_full_name=REPO) == {7, 8, 9, 10}


def test_closing_keyword_needs_word_boundary_and_exact_number():
    assert linking.closing_references("prefixes #7", repo_full_name=REPO) == set()
    assert linking.closing_references("Fixes #70", repo_full_name=REPO) == {70}


def test_mentions_by_number_or_url_but_not_longer_numbers():
    assert linking.mentions_report("see #7.", number=7, repo_full_name=REPO)
    assert linking.mentions_report(
        "https://github.com/pytorch/pytorch/issues/7", number=7, repo_full_name=REPO
    )
    assert not linking.mentions_report("see #77", number=7, repo_full_name=REPO)
    assert not linking.mentions_report("abc#7", number=7, repo_full_name=REPO)


def test_landing_conventions():
    message = "Fix it\n\nPull Request resolved: https://github.com/pytorch/pytorch/pull/55\n"
    assert linking.landed_pull_request(message, repo_full_name=REPO) == 55
    tf = (
        "Imported from GitHub PR https://github.com/tensorflow/tensorflow/pull/99\n\n"
        "PiperOrigin-RevId: 1"
    )
    assert linking.imported_pull_request(tf, repo_full_name="tensorflow/tensorflow") == 99
    assert linking.imported_pull_request(tf, repo_full_name=REPO) is None


def test_revert_detection():
    message = 'Revert "Speed up conv"\n\nThis reverts commit ABCDEF1234567.'
    assert linking.is_revert(message)
    assert linking.reverted_commits(message) == {"abcdef1234567"}
    bot = "Reverted https://github.com/pytorch/pytorch/pull/55 on behalf of someone"
    assert linking.reverted_pull_requests(bot, repo_full_name=REPO) == {55}
    assert not linking.is_revert("Fix revert logic in parser")


def test_github_closing_reference_and_merge_commit_are_strong():
    links = links_of(
        closing_pull_requests=[30],
        pull_requests={30: PullRequestInfo(30, merged=True, merge_commit_sha="AAA")},
    )
    assert links[("pr:30", linking.CLOSING)].strength == linking.STRONG
    assert links[("commit:aaa", linking.MERGE_COMMIT)].detail == "Merge commit of PR #30"


def test_timeline_rules():
    links = links_of(
        events=[
            TimelineEvent("closed", commit_sha="c1"),
            TimelineEvent("closed", pull_request=31),
            TimelineEvent("cross_referenced", pull_request=32, will_close=True),
            TimelineEvent("cross_referenced", pull_request=33, will_close=False),
        ]
    )
    assert set(links) == {
        ("commit:c1", linking.CLOSED_BY_COMMIT),
        ("pr:31", linking.CLOSED_BY_PULL_REQUEST),
        ("pr:32", linking.WILL_CLOSE),
    }


def test_referenced_commit_closing_keyword_is_strong_mention_is_weak_revert_ignored():
    links = links_of(
        events=[
            TimelineEvent("referenced", commit_sha="c1"),
            TimelineEvent("referenced", commit_sha="c2"),
            TimelineEvent("referenced", commit_sha="c3"),
        ],
        commit_messages={
            "c1": "Fixes #7",
            "c2": "Workaround for #7",
            "c3": 'Revert "Fixes #7"\n\nThis reverts commit c1.',
        },
    )
    assert links[("commit:c1", linking.CLOSING)].strength == linking.STRONG
    assert links[("commit:c2", linking.MESSAGE_MENTION)].strength == linking.WEAK
    assert not any(target == "commit:c3" for target, _ in links)


def test_pytorch_bot_commit_links_pr_and_revert_marks_both():
    message = (
        "Faster conv (#55)\n\nPull Request resolved: https://github.com/pytorch/pytorch/pull/55"
    )
    reverts = Reverts()
    reverts.add_message(
        "Reverted https://github.com/pytorch/pytorch/pull/55 on behalf of bot", repo_full_name=REPO
    )
    links = links_of(
        closing_pull_requests=[55],
        events=[TimelineEvent("closed", commit_sha="d1")],
        commit_messages={"d1": message},
        reverts=reverts,
    )
    assert links[("commit:d1", linking.LANDED_PULL_REQUEST)].detail == "Lands PR #55"
    assert links[("pr:55", linking.CLOSING)].reverted
    assert links[("commit:d1", linking.CLOSED_BY_COMMIT)].reverted


def test_tensorflow_imported_commit_found_from_linked_pr():
    message = "Imported from GitHub PR https://github.com/tensorflow/tensorflow/pull/99\n\nFix"
    links = {
        (link.target, link.evidence): link
        for link in linking.report_fix_links(
            number=5,
            repo_full_name="tensorflow/tensorflow",
            closing_pull_requests=[],
            events=[TimelineEvent("cross_referenced", pull_request=99, will_close=True)],
            commit_messages={"e1": message},
            pull_requests={},
            reverts=Reverts(),
        )
    }
    assert ("commit:e1", linking.IMPORTED_PULL_REQUEST) in links


def test_pr_body_closing_keyword_and_reverted_label():
    links = links_of(pull_requests={40: PullRequestInfo(40, body="Fixes #7", labels=("Reverted",))})
    assert links[("pr:40", linking.CLOSING)].reverted
