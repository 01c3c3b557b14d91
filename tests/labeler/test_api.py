"""The API's shared plumbing: naming an unknown field with the known one it most resembles
(`config.names` finds it)."""

from config.api import unknown_field_message

FRAME = ["repositories", "candidates", "state", "has_fix", "labels", "created_from"]


def test_unknown_field_message_suggests_or_lists_the_known_fields():
    assert unknown_field_message("repo", FRAME) == (
        "unknown field 'repo': did you mean 'repositories'?"
    )
    assert unknown_field_message("zzz", ["b", "a"]) == "unknown field 'zzz' (known: a, b)"
