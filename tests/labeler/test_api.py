"""The API's shared plumbing: naming an unknown field with the known one it most resembles."""

from config.api import closest_name, unknown_field_message

FRAME = ["repositories", "candidates", "state", "has_fix", "labels", "created_from"]


def test_closest_name_catches_typos_and_abbreviations():
    assert closest_name("repo", FRAME) == "repositories"
    assert closest_name("stat", FRAME) == "state"
    assert closest_name("label", FRAME) == "labels"
    assert closest_name("hasfix", FRAME) == "has_fix"
    assert closest_name("zzz", FRAME) is None


def test_unknown_field_message_suggests_or_lists_the_known_fields():
    assert unknown_field_message("repo", FRAME) == (
        "unknown field 'repo': did you mean 'repositories'?"
    )
    assert unknown_field_message("zzz", ["b", "a"]) == "unknown field 'zzz' (known: a, b)"
