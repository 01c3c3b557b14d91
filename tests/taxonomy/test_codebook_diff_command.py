"""`manage.py codebook_diff`: text and JSON, lineage from the database, unknown names."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from taxonomy.codebook_file import parse_codebook
from taxonomy.services import codebook_load, codebook_revise
from tests.taxonomy.test_codebook_file import GOOD
from tests.taxonomy.test_services import V3, V3_MAPPING

pytestmark = pytest.mark.django_db

V4 = (
    V3.replace('version: "3.0"', 'version: "4.0"')
    .replace("definition: Memory is wasted.", "definition: Memory is wasted or leaked.")
    .replace("      - key: leak\n        parent: other\n        name: Leak\n", "")
)
V4_MAPPING = {
    "root-cause": {
        "memory": ["memory"],
        "memory/unreleased": ["memory/unreleased"],
        "other": ["other"],
        "other/leak": ["other"],
    },
    "impact": {"speed": ["speed"]},
}


def run(*args) -> str:
    out = io.StringIO()
    call_command("codebook_diff", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def versions():
    base, _ = codebook_load(spec=parse_codebook(GOOD))
    third = codebook_revise(base=base, spec=parse_codebook(V3), mapping=V3_MAPPING)
    codebook_revise(base=third, spec=parse_codebook(V4), mapping=V4_MAPPING)


def test_text_follows_the_revision_mapping(versions):
    assert run("perf", "2.1", "3.0") == (
        "Codebook perf: version 2.1 -> 3.0\n"
        "(3.0 was revised from 2.1: categories matched by the recorded mapping)\n"
        "Dimension root-cause (Root cause)\n"
        "  added: memory/unreleased (Unreleased memory)\n"
        "  removed: other (Other)\n"
        "  split: memory/unreleased (Unreleased memory) -> other/leak (Leak), other (Other)\n"
        "Dimension impact (Impact): no change\n"
    )


def test_versions_two_revisions_apart_compose_the_mappings(versions):
    diff = json.loads(run("perf", "2.1", "4.0", "--json"))

    assert diff["lineage"] == {"versions": ["2.1", "3.0", "4.0"], "direction": "forward"}
    assert diff["matched_by"] == "mapping"
    root_cause, impact = diff["dimensions"]
    # 2.1's memory/unreleased went to other/leak and other in 3.0; 4.0 merged those back.
    assert root_cause["renamed"] == [
        {
            "from": {"path": "memory/unreleased", "name": "Unreleased memory"},
            "to": {"path": "other", "name": "Other"},
        }
    ]
    assert root_cause["removed"] == [{"path": "other", "name": "Other"}]
    assert root_cause["added"] == [{"path": "memory/unreleased", "name": "Unreleased memory"}]
    assert root_cause["definitions_changed"] == [
        {
            "from": {"path": "memory", "name": "Memory"},
            "to": {"path": "memory", "name": "Memory"},
            "changes": [
                {
                    "field": "definition",
                    "from": "Memory is wasted.",
                    "to": "Memory is wasted or leaked.",
                }
            ],
        }
    ]
    assert root_cause["merged"] == root_cause["split"] == []
    assert not impact["added"] and not impact["removed"]


def test_the_later_version_first_reads_the_mapping_backwards(versions):
    diff = json.loads(run("perf", "3.0", "2.1", "--json"))

    assert diff["lineage"] == {"versions": ["3.0", "2.1"], "direction": "backward"}
    (root_cause, _) = diff["dimensions"]
    assert root_cause["merged"] == [
        {
            "from": [{"path": "other", "name": "Other"}, {"path": "other/leak", "name": "Leak"}],
            "into": {"path": "memory/unreleased", "name": "Unreleased memory"},
        }
    ]
    assert root_cause["added"] == [{"path": "other", "name": "Other"}]


def test_unrelated_versions_are_matched_by_key_path():
    codebook_load(spec=parse_codebook(GOOD))
    codebook_load(spec=parse_codebook(V3.replace("3.0", "5.0")))

    text = run("perf", "2.1", "5.0")

    assert "neither version was revised from the other: categories matched by key path" in text
    assert "  added: other/leak (Leak)\n" in text


def test_unknown_codebook_or_version_is_named(versions):
    with pytest.raises(CommandError, match=r"^no codebook 'nope'$"):
        run("nope", "1", "2")
    with pytest.raises(
        CommandError, match=r"^codebook 'perf' has no version '9\.9' \(it has: 2\.1, 3\.0, 4\.0\)$"
    ):
        run("perf", "2.1", "9.9")
