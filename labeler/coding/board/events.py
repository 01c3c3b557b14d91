"""What every change of a board shares: the board's row lock, the undo record a change
fills in, and the BoardEvent it writes.

Locks: `board_locked` takes the board's row lock (select_for_update) and refuses a frozen
board (409); every change of a board (cards, themes, undo, freeze) calls it first, inside its
transaction, so two changes of one board never interleave. Each change then writes one
BoardEvent whose `undo` holds what undoing needs, the rows it touched as they were before:

    {"update": {model: [rows before]}, "delete": {model: [ids it created]},
     "create": {model: [rows it deleted]}}

with model one of "code", "theme", "use" (ROWS says which fields each keeps).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from config.api import CONFLICT
from labeler.models import Board, BoardEvent, Code, CodeUse, Theme

# Names a description spells out before "and N more".
NAMED_IN_DESCRIPTION = 5


class _Rows:
    """How one model's rows are kept in an undo record: the fields a change may alter, and
    the fields a deleted row also needs to come back."""

    def __init__(self, model: type[models.Model], changing: list[str], fixed: list[str]):
        self.model = model
        self.changing = changing
        self.fixed = fixed

    def read(self, ids: Iterable[int], *, whole: bool = False) -> list[dict]:
        fields = ["id", *self.changing, *(self.fixed if whole else [])]
        rows = self.model.objects.filter(pk__in=list(ids)).order_by("pk").values(*fields)
        return [{name: _plain(value) for name, value in row.items()} for row in rows]


ROWS = {
    "code": _Rows(
        Code,
        ["name", "merged_into_id", "theme_id", "position"],
        ["board_id", "dimension_id", "source_path", "created_by_id", "created_at"],
    ),
    "theme": _Rows(
        Theme,
        ["parent_id", "key", "name", "definition", "include", "exclude", "examples", "position"],
        ["board_id", "dimension_id"],
    ),
    "use": _Rows(CodeUse, ["code_id"], []),
}


def _plain(value):
    return value.isoformat() if isinstance(value, dt.datetime) else value


class Change:
    """The undo record of one change, filled in as the change goes: rows before they are
    first changed, ids of rows it creates, rows it deletes (parents before children)."""

    def __init__(self) -> None:
        self.update: dict[str, dict[int, dict]] = defaultdict(dict)
        self.delete: dict[str, list[int]] = defaultdict(list)
        self.create: dict[str, list[dict]] = defaultdict(list)

    def before(self, name: str, ids: Iterable[int]) -> None:
        fresh = [pk for pk in ids if pk not in self.update[name]]
        for row in ROWS[name].read(fresh):
            self.update[name][row["id"]] = row

    def created(self, name: str, pk: int) -> None:
        self.delete[name].append(pk)

    def deleting(self, name: str, ids: list[int]) -> None:
        rows = {row["id"]: row for row in ROWS[name].read(ids, whole=True)}
        self.create[name].extend(rows[pk] for pk in ids)

    def as_json(self) -> dict:
        return {
            "update": {name: list(rows.values()) for name, rows in self.update.items() if rows},
            "delete": {name: ids for name, ids in self.delete.items() if ids},
            "create": {name: rows for name, rows in self.create.items() if rows},
        }


def conflict(message: str) -> ValidationError:
    return ValidationError(message, code=CONFLICT)


def board_locked(board: Board) -> Board:
    """The board's row, locked for the change; a frozen board refuses every change."""
    # Not joined to the codebook it was frozen into: a change that waited here for a freeze
    # would get the board's new row with the codebook row read before the wait (none).
    board = Board.objects.select_for_update(of=("self",)).select_related("study").get(pk=board.pk)
    if board.frozen_into_id is not None:
        codebook = board.frozen_into
        raise conflict(
            f"the board was frozen into codebook {codebook.key} v{codebook.version} on "
            f"{board.frozen_at:%Y-%m-%d %H:%M} UTC: it can no longer change"
        )
    return board


def event_record(
    *, board: Board, user, action: str, description: str, change: Change
) -> BoardEvent:
    return BoardEvent.objects.create(
        board=board,
        user=user,
        action=action,
        description=description,
        undo=change.as_json(),
        created_at=timezone.now(),
    )


def cards_word(board: Board, count: int) -> str:
    """What a board's cards are called: codes, or on a revision board cards (each stands for
    a category of the version it revises)."""
    word = "card" if board.kind == Board.Kind.REVISION else "code"
    return word if count == 1 else f"{word}s"


def quoted(names: list[str]) -> str:
    shown = ", ".join(f"“{name}”" for name in names[:NAMED_IN_DESCRIPTION])
    more = len(names) - NAMED_IN_DESCRIPTION
    return f"{shown} and {more} more" if more > 0 else shown
