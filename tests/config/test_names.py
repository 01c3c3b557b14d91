"""Naming an unknown name with the known one it most resembles."""

from config.names import closest_name

FRAME = ["repositories", "candidates", "state", "has_fix", "labels", "created_from"]


def test_closest_name_catches_typos_and_abbreviations():
    assert closest_name("repo", FRAME) == "repositories"
    assert closest_name("stat", FRAME) == "state"
    assert closest_name("label", FRAME) == "labels"
    assert closest_name("hasfix", FRAME) == "has_fix"
    assert closest_name("zzz", FRAME) is None
