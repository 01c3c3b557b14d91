"""Undo on a board: the latest change not undone yet goes back to what it was, from the
undo record its BoardEvent holds (events.Change), and the undo is recorded in turn with its
own inverse.

Locks: the board's row lock first (events.board_locked: a frozen board refuses, 409), then
the event undone (select_for_update); the rows are restored in a savepoint, so a restore that
clashes with a name or key made since (409) writes nothing.
"""

from __future__ import annotations

import json
from collections import defaultdict

from django.db import IntegrityError, models, transaction
from django.db.models import ProtectedError
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from labeler.coding.board.events import ROWS, board_locked, conflict
from labeler.coding.board.selectors import NOT_UNDONE
from labeler.models import Board, BoardEvent, Code, CodeUse, Theme


def _inverse(record: dict) -> dict:
    """What undoing `record` changes, as it is now: undoing the undo would restore it."""
    return {
        "update": {
            name: ROWS[name].read([row["id"] for row in rows])
            for name, rows in record.get("update", {}).items()
        },
        "delete": {
            name: [row["id"] for row in rows] for name, rows in record.get("create", {}).items()
        },
        "create": {
            name: ROWS[name].read(ids, whole=True) for name, ids in record.get("delete", {}).items()
        },
    }


def _revived(name: str, row: dict) -> models.Model:
    values = dict(row)
    if name == "code":
        values["created_at"] = parse_datetime(values["created_at"])
    return ROWS[name].model(**values)


def _restore(record: dict) -> None:
    """Deleted rows back, changed rows to what they were, created rows gone."""
    for name in ("theme", "code"):
        rows = record.get("create", {}).get(name, [])
        ROWS[name].model.objects.bulk_create([_revived(name, row) for row in rows])
    for name, rows in record.get("update", {}).items():
        # One UPDATE per set of values: a merge's uses all go back to a few codes.
        same: dict[str, list[int]] = defaultdict(list)
        for row in rows:
            values = {field: row[field] for field in ROWS[name].changing}
            same[json.dumps(values, sort_keys=True)].append(row["id"])
        for values, ids in same.items():
            ROWS[name].model.objects.filter(pk__in=ids).update(**json.loads(values))
    created_codes = record.get("delete", {}).get("code", [])
    used = CodeUse.objects.filter(code__in=created_codes).select_related("code").first()
    if used is not None:
        raise conflict(
            f"“{used.code.name}” has uses written since: merge it into another code instead"
        )
    Code.objects.filter(pk__in=created_codes).delete()
    Theme.objects.filter(pk__in=record.get("delete", {}).get("theme", [])).delete()


@transaction.atomic
def board_undo(*, board: Board, user) -> BoardEvent:
    """Undo the board's latest change not undone yet (undoing again undoes the one before);
    the undo is recorded too. Returns the event undone."""
    board = board_locked(board)
    event = (
        board.events.select_for_update()
        .filter(undone_at__isnull=True)
        .exclude(action__in=NOT_UNDONE)
        .order_by("-created_at", "-pk")
        .first()
    )
    if event is None:
        raise conflict("nothing left to undo on this board")
    inverse = _inverse(event.undo)
    try:
        with transaction.atomic():
            _restore(event.undo)
    except (IntegrityError, ProtectedError):
        raise conflict(
            f"“{event.description}” cannot be undone: a code or category it would bring back "
            "has the name or key of one made since"
        ) from None
    now = timezone.now()
    event.undone_at = now
    event.undone_by = user
    event.save(update_fields=["undone_at", "undone_by"])
    BoardEvent.objects.create(
        board=board,
        user=user,
        action="undo",
        description=f"undid: {event.description}",
        undo=inverse,
        created_at=now,
    )
    return event
