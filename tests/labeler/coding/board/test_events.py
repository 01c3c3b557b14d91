"""What every change of a board shares: a frozen board refuses every change."""

import pytest
from django.core.exceptions import ValidationError

from config.api import CONFLICT
from labeler.coding.board.cards import code_rename, code_split, codes_merge
from labeler.coding.board.freeze import board_freeze
from labeler.coding.board.themes import (
    codes_group,
    theme_create,
    theme_delete,
    theme_move,
    theme_update,
)
from labeler.coding.board.undo import board_undo
from tests.labeler.board_factories import ThemeFactory
from tests.labeler.coding.board.changes import code, snapshot
from tests.taxonomy.factories import CodebookFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def frozen(coded):
    board = coded["board"]
    board.frozen_into = CodebookFactory(key="perf", version="1")
    board.frozen_at = board.created_at
    board.save()
    return coded


@pytest.mark.parametrize(
    "change",
    [
        lambda b, c, t: code_rename(board=b, code_id=c, name="other", user=None),
        lambda b, c, t: codes_merge(board=b, code_ids=[c], into_id=c + 1, user=None),
        lambda b, c, t: code_split(board=b, code_id=c, name="other", use_ids=[1], user=None),
        lambda b, c, t: theme_create(board=b, dimension_key="root-cause", name="A", user=None),
        lambda b, c, t: theme_update(board=b, theme_id=t, name="B", user=None),
        lambda b, c, t: theme_move(board=b, theme_id=t, parent_id=None, position=5, user=None),
        lambda b, c, t: theme_delete(board=b, theme_id=t, user=None),
        lambda b, c, t: codes_group(board=b, code_ids=[c], theme_id=t, user=None),
        lambda b, c, t: board_undo(board=b, user=None),
        lambda b, c, t: board_freeze(board=b, key="perf", version="2", name="P", user=None),
    ],
)
def test_a_frozen_board_refuses_every_change(frozen, change):
    board = frozen["board"]
    theme = ThemeFactory(board=board)
    before = snapshot(board)
    with pytest.raises(ValidationError) as error:
        change(board, code(board, "slow loop").pk, theme.pk)
    assert error.value.code == CONFLICT
    assert error.value.messages == [
        f"the board was frozen into codebook perf v1 on {board.frozen_at:%Y-%m-%d %H:%M} UTC: "
        "it can no longer change"
    ]
    assert snapshot(board) == before
