"""A board's themes: create, update, move, delete, grouping cards under one, what each
records, and its undo."""

import pytest
from django.core.exceptions import ValidationError

from labeler.coding.board.themes import (
    codes_group,
    theme_create,
    theme_delete,
    theme_move,
    theme_update,
)
from labeler.coding.board.undo import board_undo
from labeler.models import Code, Theme
from tests.labeler.board_factories import ThemeFactory, dimension_of
from tests.labeler.coding.board.changes import code, errors_of, latest, snapshot, undone

pytestmark = pytest.mark.django_db


def test_theme_create_makes_a_key_from_the_name_and_undo_deletes_it(coded):
    board, lead = coded["board"], coded["lead"]
    before = snapshot(board)
    memory = theme_create(
        board=board,
        dimension_key="root-cause",
        name="Memory  management",
        definition=" Leaks and bloat. ",
        examples=[" a leak ", ""],
        user=lead,
    )
    assert (memory.key, memory.name, memory.definition, memory.examples, memory.position) == (
        "memory-management",
        "Memory management",
        "Leaks and bloat.",
        ["a leak"],
        0,
    )
    again = theme_create(
        board=board, dimension_key="root-cause", name="Memory management!", user=lead
    )
    assert again.key == "memory-management-2"
    unnamed = theme_create(board=board, dimension_key="symptom", name="Ça lag", user=lead)
    assert unnamed.key == "ca-lag"
    child = theme_create(
        board=board, dimension_key="root-cause", name="Leak", parent_id=memory.pk, user=lead
    )
    assert latest(board).description == (
        "created sub-category “Leak” (leak) under “Memory management” in Root cause"
    )
    for _ in range(4):
        board_undo(board=board, user=lead)
    assert snapshot(board) == before
    assert not Theme.objects.filter(pk=child.pk).exists()


def test_theme_create_at_a_position_moves_its_siblings_and_undo_puts_them_back(coded):
    board, lead = coded["board"], coded["lead"]
    first = theme_create(board=board, dimension_key="root-cause", name="First", user=lead)
    second = theme_create(board=board, dimension_key="root-cause", name="Second", user=lead)
    before = snapshot(board)
    zeroth = theme_create(
        board=board, dimension_key="root-cause", name="Zeroth", position=0, user=lead
    )
    order = Theme.objects.filter(board=board).order_by("position").values_list("pk", flat=True)
    assert list(order) == [zeroth.pk, first.pk, second.pk]
    undone(board, lead, before)


def test_theme_create_refuses_bad_keys_other_dimensions_and_no_name(coded):
    board, lead = coded["board"], coded["lead"]
    symptom = ThemeFactory(board=board, dimension=dimension_of(board, "symptom"), key="hangs")
    cases = [
        ({"name": "A", "key": "Bad_Key"}, "key", "must be lowercase letters and digits"),
        ({"name": "A", "key": "hangs", "dimension_key": "symptom"}, "key", "has the key 'hangs'"),
        ({"name": "A", "parent_id": symptom.pk}, "parent", "is a category of Symptom"),
        ({"name": " "}, "name", "a category needs a name"),
        ({"name": "A", "dimension_key": "impact"}, "dimension", "no dimension 'impact'"),
        ({"name": "A", "examples": "one"}, "examples", "a list of texts"),
    ]
    for arguments, field, message in cases:
        arguments = {"dimension_key": "root-cause", **arguments}
        with pytest.raises(ValidationError) as error:
            theme_create(board=board, user=lead, **arguments)
        assert message in errors_of(error)[field][0], arguments


def test_theme_update_changes_only_what_is_given_and_undo_restores_it(coded):
    board, lead = coded["board"], coded["lead"]
    theme = ThemeFactory(board=board, key="memory", name="Memory", definition="Old.")
    before = snapshot(board)
    theme_update(
        board=board,
        theme_id=theme.pk,
        name="Memory use",
        key="memory-use",
        include="Leaks.",
        exclude="Speed.",
        examples=["grows without end"],
        definition="Old.",
        user=lead,
    )
    theme.refresh_from_db()
    assert (theme.name, theme.key, theme.definition, theme.include, theme.examples) == (
        "Memory use",
        "memory-use",
        "Old.",
        "Leaks.",
        ["grows without end"],
    )
    assert latest(board).description == (
        "edited category “Memory”: name, key, include, exclude, examples"
    )
    undone(board, lead, before)
    with pytest.raises(ValidationError) as error:
        theme_update(board=board, theme_id=theme.pk, name="Memory", user=lead)
    assert error.value.messages == ["nothing to change on category “Memory”"]


def test_theme_move_under_another_and_back_to_the_top(coded):
    board, lead = coded["board"], coded["lead"]
    memory = ThemeFactory(board=board, key="memory", name="Memory", position=0)
    leak = ThemeFactory(board=board, key="leak", name="Leak", position=1)
    bloat = ThemeFactory(board=board, key="bloat", name="Bloat", position=2)
    threads = ThemeFactory(board=board, key="threads", name="Threads", position=3)
    before = snapshot(board)
    theme_move(board=board, theme_id=leak.pk, parent_id=memory.pk, user=lead)
    theme_move(board=board, theme_id=bloat.pk, parent_id=memory.pk, position=0, user=lead)

    assert list(memory.children.order_by("position").values_list("key", flat=True)) == [
        "bloat",
        "leak",
    ]
    top = Theme.objects.filter(board=board, parent=None).order_by("position")
    assert [(t.key, t.position) for t in top] == [("memory", 0), ("threads", 1)]
    assert latest(board).description == "moved “Bloat” under “Memory”, position 1"

    with pytest.raises(ValidationError) as error:
        theme_move(board=board, theme_id=memory.pk, parent_id=leak.pk, user=lead)
    assert errors_of(error)["parent"] == ["“Memory” cannot go under “Leak”: it is inside it"]
    with pytest.raises(ValidationError) as error:
        theme_move(board=board, theme_id=threads.pk, parent_id=None, user=lead)
    assert errors_of(error)["position"] == ["category “Threads” is already there"]

    theme_move(board=board, theme_id=threads.pk, parent_id=None, position=0, user=lead)
    assert list(top.values_list("key", flat=True)) == ["threads", "memory"]
    for _ in range(3):
        board_undo(board=board, user=lead)
    assert snapshot(board) == before


def test_theme_delete_takes_its_subtree_ungroups_its_codes_and_undo_brings_all_back(coded):
    board, lead = coded["board"], coded["lead"]
    memory = theme_create(
        board=board, dimension_key="root-cause", name="Memory", definition="Mem.", user=lead
    )
    leak = theme_create(
        board=board, dimension_key="root-cause", name="Leak", parent_id=memory.pk, user=lead
    )
    deep = theme_create(
        board=board, dimension_key="root-cause", name="Deep", parent_id=leak.pk, user=lead
    )
    keep = theme_create(board=board, dimension_key="root-cause", name="Threads", user=lead)
    codes_group(board=board, code_ids=[code(board, "cache miss").pk], theme_id=memory.pk, user=lead)
    codes_group(board=board, code_ids=[code(board, "slow loop").pk], theme_id=deep.pk, user=lead)
    codes_group(
        board=board, code_ids=[code(board, "lock contention").pk], theme_id=keep.pk, user=lead
    )
    before = snapshot(board)
    theme_delete(board=board, theme_id=memory.pk, user=lead)

    assert list(Theme.objects.filter(board=board).values_list("key", flat=True)) == ["threads"]
    assert code(board, "cache miss").theme is None
    assert code(board, "slow loop").theme is None
    assert code(board, "lock contention").theme == keep
    assert latest(board).description == (
        "deleted category “Memory” (Root cause) and its 2 sub-categories; 2 codes back to ungrouped"
    )
    undone(board, lead, before)
    assert Theme.objects.get(pk=deep.pk).parent_id == leak.pk


def test_group_and_ungroup_codes(coded):
    board, lead = coded["board"], coded["lead"]
    theme = ThemeFactory(board=board, key="loops", name="Loops")
    loops = [code(board, "slow loop").pk, code(board, "inefficient loop").pk]
    before = snapshot(board)
    codes_group(board=board, code_ids=loops, theme_id=theme.pk, user=lead)
    assert set(Code.objects.filter(theme=theme).values_list("pk", flat=True)) == set(loops)
    assert latest(board).description == (
        "grouped “slow loop”, “inefficient loop” under “Loops” (Root cause)"
    )
    with pytest.raises(ValidationError) as error:
        codes_group(board=board, code_ids=loops, theme_id=theme.pk, user=lead)
    assert errors_of(error)["codes"] == ["already under “Loops”"]
    with pytest.raises(ValidationError) as error:
        codes_group(board=board, code_ids=[code(board, "hangs").pk], theme_id=theme.pk, user=lead)
    assert (
        "“hangs” is a code of Symptom, “Loops” a category of Root cause"
        in errors_of(error)["codes"][0]
    )
    codes_group(board=board, code_ids=loops[:1], theme_id=None, user=lead)
    assert latest(board).description == "ungrouped “slow loop”"
    board_undo(board=board, user=lead)
    undone(board, lead, before)


def test_theme_names_are_stored_as_they_read(coded):
    board, lead = coded["board"], coded["lead"]

    theme_create(
        board=board,
        user=lead,
        dimension_key="root-cause",
        name="\u200b\uff2d\uff45\uff4d\uff4f\uff52\uff59\u200e leaks",
    )

    assert Theme.objects.get(board=board).name == "Memory leaks"
