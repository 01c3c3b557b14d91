"""Undo on a board: one change at a time, each undo recorded with what it changed, and
refused when what it would bring back clashes with what was made since."""

import pytest
from django.core.exceptions import ValidationError

from config.api import CONFLICT
from labeler.coding.board.cards import code_rename, code_split
from labeler.coding.board.themes import codes_group, theme_create
from labeler.coding.board.undo import board_undo
from labeler.models import CodeUse
from tests.labeler.board_factories import code_uses
from tests.labeler.coding.board.changes import code, latest, snapshot

pytestmark = pytest.mark.django_db


def test_undo_goes_back_one_change_at_a_time_and_records_each_undo(coded):
    board, lead = coded["board"], coded["lead"]
    states = [snapshot(board)]
    theme = theme_create(board=board, dimension_key="root-cause", name="Loops", user=lead)
    states.append(snapshot(board))
    codes_group(board=board, code_ids=[code(board, "slow loop").pk], theme_id=theme.pk, user=lead)
    states.append(snapshot(board))
    code_rename(board=board, code_id=code(board, "slow loop").pk, name="loop", user=lead)

    for state in reversed(states):
        board_undo(board=board, user=lead)
        assert snapshot(board) == state
    with pytest.raises(ValidationError) as error:
        board_undo(board=board, user=lead)
    assert error.value.code == CONFLICT
    assert error.value.messages == ["nothing left to undo on this board"]
    actions = [(e.action, e.undone_at is not None) for e in board.events.order_by("pk")]
    assert actions == [
        ("theme_create", True),
        ("group", True),
        ("rename", True),
        ("undo", False),
        ("undo", False),
        ("undo", False),
    ]
    assert latest(board).description == "undid: created category “Loops” (loops) in Root cause"


def test_a_change_after_an_undo_is_the_next_one_undone(coded):
    board, lead = coded["board"], coded["lead"]
    loop = code(board, "slow loop").pk
    code_rename(board=board, code_id=loop, name="loop", user=lead)
    board_undo(board=board, user=lead)
    code_rename(board=board, code_id=loop, name="a loop", user=lead)
    before_both = snapshot(board)
    code_rename(board=board, code_id=code(board, "hangs").pk, name="freezes", user=lead)
    board_undo(board=board, user=lead)
    assert snapshot(board) == before_both
    board_undo(board=board, user=lead)
    assert code(board, "slow loop").pk == loop


def test_an_undo_records_what_it_changed_as_it_was(coded):
    board, lead = coded["board"], coded["lead"]
    loop = code(board, "slow loop")
    copy = code_split(
        board=board, code_id=loop.pk, name="busy loop", item_ids=[coded["items"][1].pk], user=lead
    )
    moved = list(CodeUse.objects.filter(code=copy).values_list("pk", flat=True))
    board_undo(board=board, user=lead)
    record = latest(board).undo
    assert [row["id"] for row in record["create"]["code"]] == [copy.pk]
    assert record["create"]["code"][0]["name"] == "busy loop"
    assert record["update"]["use"] == [{"id": pk, "code_id": copy.pk} for pk in moved]


def test_undo_of_a_rename_is_refused_when_the_old_name_was_written_since(coded):
    board, lead = coded["board"], coded["lead"]
    code_rename(board=board, code_id=code(board, "cache miss").pk, name="cache thrash", user=lead)
    code_uses(board, annotator=coded["ann2"], item=coded["items"][0], names=["cache miss"])
    with pytest.raises(ValidationError) as error:
        board_undo(board=board, user=lead)
    assert error.value.code == CONFLICT
    assert "cannot be undone" in error.value.messages[0]
    assert code(board, "cache thrash").name == "cache thrash"
