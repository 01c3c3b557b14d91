"""The documentation's links lead somewhere: every relative link in the README, docs/ and
bench/README.md names a file that exists, and every `#anchor` into a Markdown file names one
of its headings (as GitHub makes heading anchors). The README stays a five-minute read."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "bench" / "README.md",
]
README_MOST_LINES = 220

FENCE = re.compile(r"^```.*?^```", re.M | re.S)
CODE_SPAN = re.compile(r"`[^`]*`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def prose(text):
    """The text a reader sees as prose: no fenced blocks, no code spans."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def github_slug(heading):
    """GitHub's anchor for a heading: its text without Markdown, lowercased, every character
    but letters, digits, spaces, hyphens and underscores dropped, spaces made hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").replace("*", "")
    text = "".join(c for c in text.lower() if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path):
    """Every heading anchor of a Markdown file; a repeated heading gets -1, -2, ..."""
    seen = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text())):
        slug = github_slug(heading)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def links(path):
    """(target file, anchor or None) for each relative link of a document."""
    for target in LINK.findall(prose(path.read_text())):
        if SCHEME.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        yield (path.parent / file_part).resolve() if file_part else path, anchor or None


def test_github_slug_follows_githubs_rules():
    assert github_slug("The code board: from open codes to a codebook version") == (
        "the-code-board-from-open-codes-to-a-codebook-version"
    )
    assert github_slug("Migrating a study's labels") == "migrating-a-studys-labels"
    assert github_slug("The `make run` command") == "the-make-run-command"
    assert github_slug("Embedded PostgreSQL or docker compose") == (
        "embedded-postgresql-or-docker-compose"
    )


def test_the_documents_exist():
    assert [path for path in DOCUMENTS if not path.is_file()] == []


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_relative_links_point_at_files_that_exist(document):
    missing = [str(target) for target, _ in links(document) if not target.exists()]
    assert missing == [], f"{document.relative_to(ROOT)} links to missing files: {missing}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_anchors_match_a_heading_of_their_file(document):
    unmatched = [
        f"{target.relative_to(ROOT)}#{anchor}"
        for target, anchor in links(document)
        if anchor and target.suffix == ".md" and target.exists()
        if anchor not in anchors(target)
    ]
    assert unmatched == [], f"{document.relative_to(ROOT)} links to no heading: {unmatched}"


def test_readme_is_a_five_minute_read():
    lines = len((ROOT / "README.md").read_text().splitlines())
    assert lines < README_MOST_LINES, f"README.md has {lines} lines"
