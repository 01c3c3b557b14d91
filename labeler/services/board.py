"""Writes to a study's board: its cards (rename, merge, split), the themes they are sorted
into (create, update, move, delete; group cards under one), undo, and the freeze into a new
codebook version; and the revision board of a study's codebook version.

Locks: every change takes the board's row lock first (select_for_update), so two changes of
one board never interleave, and refuses a frozen board (409). Each writes one BoardEvent
whose `undo` holds what undoing needs, the rows it touched as they were before:

    {"update": {model: [rows before]}, "delete": {model: [ids it created]},
     "create": {model: [rows it deleted]}}

with model one of "code", "theme", "use". Undoing restores it and records an event of its
own, whose `undo` is the inverse (what the undo changed, as it was before).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import defaultdict
from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import ProtectedError
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.text import slugify

from config.api import CONFLICT
from labeler.board import NOT_UNDONE, board_dimensions, theme_paths, themes_in_order
from labeler.labels import name_normalise
from labeler.models import Board, BoardEvent, Code, CodeUse, Study, Theme
from labeler.permissions import codebook_key_require_addable, codebook_owner_of
from taxonomy.codebook_file import (
    KEY_PATTERN,
    CategorySpec,
    CodebookSpec,
    DimensionSpec,
    codebook_key_problem,
    version_problem,
)
from taxonomy.models import Codebook, Dimension
from taxonomy.services import (
    codebook_freeze,
    codebook_key_lock,
    codebook_load,
    codebook_revise,
)

CODE_NAME_MAX = 120
THEME_NAME_MAX = 200
THEME_KEY_MAX = 100
TEXT_MAX = 10_000
EXAMPLES_MAX = 50
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


class _Change:
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


def _conflict(message: str) -> ValidationError:
    return ValidationError(message, code=CONFLICT)


def _board_locked(board: Board) -> Board:
    """The board's row, locked for the change; a frozen board refuses every change."""
    # Not joined to the codebook it was frozen into: a change that waited here for a freeze
    # would get the board's new row with the codebook row read before the wait (none).
    board = Board.objects.select_for_update(of=("self",)).select_related("study").get(pk=board.pk)
    if board.frozen_into_id is not None:
        codebook = board.frozen_into
        raise _conflict(
            f"the board was frozen into codebook {codebook.key} v{codebook.version} on "
            f"{board.frozen_at:%Y-%m-%d %H:%M} UTC: it can no longer change"
        )
    return board


def _record(*, board: Board, user, action: str, description: str, change: _Change) -> BoardEvent:
    return BoardEvent.objects.create(
        board=board,
        user=user,
        action=action,
        description=description,
        undo=change.as_json(),
        created_at=timezone.now(),
    )


def _quoted(names: list[str]) -> str:
    shown = ", ".join(f"“{name}”" for name in names[:NAMED_IN_DESCRIPTION])
    more = len(names) - NAMED_IN_DESCRIPTION
    return f"{shown} and {more} more" if more > 0 else shown


# Cards


def code_name_clean(name: str) -> str:
    """A card's name as a code is stored (name_normalise), 1 to 120 characters."""
    text = name_normalise(str(name or ""))
    if not text:
        raise ValidationError({"name": "a code needs a name"})
    if len(text) > CODE_NAME_MAX:
        raise ValidationError({"name": f"at most {CODE_NAME_MAX} characters, not {len(text)}"})
    return text


def _name_free(*, board: Board, dimension_id: int, name: str, but: int | None = None) -> None:
    """Refuse a name another card of the dimension has, whatever its case: a name written
    later must resolve to one card."""
    clash = (
        Code.objects.filter(board=board, dimension_id=dimension_id, name__iexact=name)
        .exclude(pk=but)
        .select_related("merged_into")
        .first()
    )
    if clash is None:
        return
    if clash.merged_into is not None:
        raise ValidationError(
            {"name": f"“{clash.name}” is a name merged into “{clash.merged_into.name}”"}
        )
    raise ValidationError({"name": f"another code is called “{clash.name}”: merge the two instead"})


def _codes_locked(*, board: Board, ids: Iterable[int], field: str) -> list[Code]:
    """The board's cards of these ids, locked, in the order given; none may be merged."""
    ids = list(dict.fromkeys(ids))
    found = {
        code.pk: code
        for code in Code.objects.select_for_update(of=("self",))
        .select_related("merged_into", "dimension")
        .filter(board=board, pk__in=ids)
    }
    missing = [pk for pk in ids if pk not in found]
    if missing:
        raise ValidationError({field: f"no code {missing[0]} on this board"})
    for code in found.values():
        if code.merged_into is not None:
            raise ValidationError(
                {field: f"“{code.name}” was merged into “{code.merged_into.name}”: use that one"}
            )
    return [found[pk] for pk in ids]


def _code_locked(*, board: Board, code_id: int, field: str = "code") -> Code:
    return _codes_locked(board=board, ids=[code_id], field=field)[0]


@transaction.atomic
def code_rename(*, board: Board, code_id: int, name: str, user) -> Code:
    """Give a card another name; the uses keep what their annotators wrote."""
    board = _board_locked(board)
    code = _code_locked(board=board, code_id=code_id)
    name = code_name_clean(name)
    if name == code.name:
        raise ValidationError({"name": f"the code is already called “{name}”"})
    _name_free(board=board, dimension_id=code.dimension_id, name=name, but=code.pk)
    change = _Change()
    change.before("code", [code.pk])
    old = code.name
    code.name = name
    code.save(update_fields=["name"])
    _record(
        board=board,
        user=user,
        action="rename",
        description=f"renamed “{old}” to “{name}” ({code.dimension.name})",
        change=change,
    )
    return code


@transaction.atomic
def codes_merge(*, board: Board, code_ids: list[int], into_id: int, user) -> Code:
    """Merge cards meaning the same thing into one: their uses move to it, and each merged
    card is kept, pointing to it, so that its name written later counts for it."""
    board = _board_locked(board)
    ids = [pk for pk in dict.fromkeys(code_ids) if pk != into_id]
    if not ids:
        raise ValidationError({"codes": "name at least one code to merge into another"})
    target = _code_locked(board=board, code_id=into_id, field="into")
    sources = _codes_locked(board=board, ids=ids, field="codes")
    other = [code for code in sources if code.dimension_id != target.dimension_id]
    if other:
        raise ValidationError(
            {
                "codes": f"“{other[0].name}” is a code of {other[0].dimension.name}, "
                f"“{target.name}” of {target.dimension.name}: only codes of one dimension merge"
            }
        )
    source_ids = [code.pk for code in sources]
    aliases = list(Code.objects.filter(merged_into__in=source_ids).values_list("pk", flat=True))
    uses = list(
        CodeUse.objects.select_for_update().filter(code__in=source_ids).values_list("pk", flat=True)
    )
    change = _Change()
    change.before("code", [*source_ids, *aliases])
    change.before("use", uses)
    CodeUse.objects.filter(pk__in=uses).update(code=target)
    # One step from any merged name to the card it counts for.
    Code.objects.filter(pk__in=[*source_ids, *aliases]).update(merged_into=target, theme=None)
    _record(
        board=board,
        user=user,
        action="merge",
        description=f"merged {_quoted([code.name for code in sources])} into “{target.name}” "
        f"({target.dimension.name}): {len(uses)} use{'s' if len(uses) != 1 else ''} moved",
        change=change,
    )
    return target


@transaction.atomic
def code_split(
    *,
    board: Board,
    code_id: int,
    name: str,
    use_ids: list[int] | None = None,
    item_ids: list[int] | None = None,
    user,
) -> Code:
    """A new card from some of a card's uses, chosen by use or by item (every use of the
    card on those items); it starts under the same theme. A revision board's cards have no
    uses: a split there is a copy of the card, from the same category of the base version."""
    board = _board_locked(board)
    code = _code_locked(board=board, code_id=code_id)
    name = code_name_clean(name)
    _name_free(board=board, dimension_id=code.dimension_id, name=name)
    uses = _split_uses(board=board, code=code, use_ids=use_ids, item_ids=item_ids)
    now = timezone.now()
    copy = Code.objects.create(
        board=board,
        dimension_id=code.dimension_id,
        name=name,
        source_path=code.source_path,
        theme_id=code.theme_id,
        position=code.position,
        created_by=user,
        created_at=now,
    )
    change = _Change()
    change.created("code", copy.pk)
    change.before("use", uses)
    CodeUse.objects.filter(pk__in=uses).update(code=copy)
    if board.kind == Board.Kind.REVISION:
        what = f"copied “{code.name}” as “{name}” ({code.dimension.name})"
    else:
        reports = CodeUse.objects.filter(pk__in=uses).values("item").distinct().count()
        what = (
            f"split “{code.name}” ({code.dimension.name}): “{name}” takes {len(uses)} "
            f"use{'s' if len(uses) != 1 else ''} on {reports} report{'s' if reports != 1 else ''}"
        )
    _record(board=board, user=user, action="split", description=what, change=change)
    return copy


def _split_uses(
    *, board: Board, code: Code, use_ids: list[int] | None, item_ids: list[int] | None
) -> list[int]:
    if board.kind == Board.Kind.REVISION:
        if use_ids or item_ids:
            raise ValidationError(
                {"uses": "a revision card has no uses to split: a split makes a copy of it"}
            )
        return []
    if bool(use_ids) == bool(item_ids):
        raise ValidationError({"uses": "choose the uses to split off, by use or by item"})
    own = CodeUse.objects.select_for_update().filter(code=code)
    if use_ids:
        wanted = list(dict.fromkeys(use_ids))
        found = set(own.filter(pk__in=wanted).values_list("pk", flat=True))
        missing = [pk for pk in wanted if pk not in found]
        if missing:
            raise ValidationError({"uses": f"use {missing[0]} is not a use of “{code.name}”"})
    else:
        wanted_items = list(dict.fromkeys(item_ids))
        pairs = list(own.filter(item__in=wanted_items).values_list("pk", "item_id"))
        covered = {item for _, item in pairs}
        missing = [pk for pk in wanted_items if pk not in covered]
        if missing:
            raise ValidationError({"items": f"item {missing[0]} has no use of “{code.name}”"})
        wanted = [pk for pk, _ in pairs]
    if len(wanted) == own.count():
        raise ValidationError(
            {"uses": f"these are all the uses of “{code.name}”: rename it instead"}
        )
    return wanted


# Themes


def _text(value, *, field: str, limit: int = TEXT_MAX) -> str:
    text = str(value or "").strip()
    if len(text) > limit:
        raise ValidationError({field: f"at most {limit} characters, not {len(text)}"})
    return text


def _theme_name(name) -> str:
    text = name_normalise(str(name or ""))
    if not text:
        raise ValidationError({"name": "a category needs a name"})
    if len(text) > THEME_NAME_MAX:
        raise ValidationError({"name": f"at most {THEME_NAME_MAX} characters, not {len(text)}"})
    return text


def _examples(values) -> list[str]:
    if isinstance(values, str) or not all(isinstance(value, str) for value in values):
        raise ValidationError({"examples": "a list of texts"})
    examples = [value.strip() for value in values if value.strip()]
    if len(examples) > EXAMPLES_MAX:
        raise ValidationError({"examples": f"at most {EXAMPLES_MAX} examples"})
    for index, example in enumerate(examples):
        if len(example) > TEXT_MAX:
            raise ValidationError({f"examples[{index}]": f"at most {TEXT_MAX} characters"})
    return examples


def _theme_key(*, board: Board, dimension_id: int, key: str, but: int | None = None) -> str:
    key = str(key or "").strip()
    if len(key) > THEME_KEY_MAX or not KEY_PATTERN.match(key):
        raise ValidationError(
            {
                "key": f"key {key!r} must be lowercase letters and digits separated by single "
                f"hyphens, at most {THEME_KEY_MAX} characters"
            }
        )
    taken = Theme.objects.filter(board=board, dimension_id=dimension_id, key=key).exclude(pk=but)
    if taken.exists():
        raise ValidationError({"key": f"another category of this dimension has the key {key!r}"})
    return key


def _key_from_name(*, board: Board, dimension_id: int, name: str) -> str:
    """A free key made from the name: "Memory leaks" -> memory-leaks (memory-leaks-2, …)."""
    base = re.sub(r"[^a-z0-9]+", "-", slugify(name)).strip("-")
    base = base[: THEME_KEY_MAX - 4].strip("-") or "category"
    taken = set(
        Theme.objects.filter(
            board=board, dimension_id=dimension_id, key__startswith=base
        ).values_list("key", flat=True)
    )
    key, number = base, 1
    while key in taken:
        number += 1
        key = f"{base}-{number}"
    return key


def _dimension_of(board: Board, key: str) -> Dimension:
    dimensions = {dimension.key: dimension for dimension in board_dimensions(board=board)}
    if key not in dimensions:
        raise ValidationError(
            {"dimension": f"no dimension {key!r} on this board (it has: {', '.join(dimensions)})"}
        )
    return dimensions[key]


def _theme_locked(*, board: Board, theme_id, field: str = "theme") -> Theme:
    theme = (
        Theme.objects.select_for_update(of=("self",))
        .select_related("dimension", "parent")
        .filter(board=board, pk=theme_id)
        .first()
    )
    if theme is None:
        raise ValidationError({field: f"no category {theme_id} on this board"})
    return theme


def _siblings(*, board: Board, dimension_id: int, parent_id: int | None):
    return Theme.objects.filter(
        board=board, dimension_id=dimension_id, parent_id=parent_id
    ).order_by("position", "pk")


def _place(*, change: _Change, ordered: list[int]) -> None:
    """Number the themes 0, 1, … in this order, keeping the positions they had in `change`."""
    change.before("theme", ordered)
    for position, pk in enumerate(ordered):
        Theme.objects.filter(pk=pk).exclude(position=position).update(position=position)


def _what(theme: Theme) -> str:
    return f"sub-category “{theme.name}”" if theme.parent_id else f"category “{theme.name}”"


@transaction.atomic
def theme_create(
    *,
    board: Board,
    dimension_key: str,
    name: str,
    key: str = "",
    parent_id: int | None = None,
    definition: str = "",
    include: str = "",
    exclude: str = "",
    examples: list[str] = (),
    position: int | None = None,
    user,
) -> Theme:
    """A category of the dimension (under `parent_id`: a sub-category), last among its
    siblings unless `position` says where; the key is made from the name when not given."""
    board = _board_locked(board)
    dimension = _dimension_of(board, dimension_key)
    parent = None
    if parent_id is not None:
        parent = _theme_locked(board=board, theme_id=parent_id, field="parent")
        if parent.dimension_id != dimension.pk:
            raise ValidationError(
                {"parent": f"“{parent.name}” is a category of {parent.dimension.name}"}
            )
    name = _theme_name(name)
    key = (
        _theme_key(board=board, dimension_id=dimension.pk, key=key)
        if key
        else _key_from_name(board=board, dimension_id=dimension.pk, name=name)
    )
    siblings = list(
        _siblings(board=board, dimension_id=dimension.pk, parent_id=parent_id).values_list(
            "pk", "position"
        )
    )
    theme = Theme.objects.create(
        board=board,
        dimension=dimension,
        parent=parent,
        key=key,
        name=name,
        definition=_text(definition, field="definition"),
        include=_text(include, field="include"),
        exclude=_text(exclude, field="exclude"),
        examples=_examples(examples),
        position=max((at for _, at in siblings), default=-1) + 1,
    )
    change = _Change()
    if position is not None and position < len(siblings):
        ids = [pk for pk, _ in siblings]
        at = max(position, 0)
        _place(change=change, ordered=[*ids[:at], theme.pk, *ids[at:]])
    change.created("theme", theme.pk)
    under = f" under “{parent.name}”" if parent else ""
    _record(
        board=board,
        user=user,
        action="theme_create",
        description=f"created {_what(theme)} ({key}){under} in {dimension.name}",
        change=change,
    )
    return theme


THEME_FIELDS = ("name", "key", "definition", "include", "exclude", "examples")


@transaction.atomic
def theme_update(
    *,
    board: Board,
    theme_id: int,
    user,
    name: str | None = None,
    key: str | None = None,
    definition: str | None = None,
    include: str | None = None,
    exclude: str | None = None,
    examples: list[str] | None = None,
) -> Theme:
    """Change what the codebook will say of a theme; None leaves a field as it is."""
    board = _board_locked(board)
    theme = _theme_locked(board=board, theme_id=theme_id)
    wanted = {
        "name": None if name is None else _theme_name(name),
        "key": None
        if key is None
        else _theme_key(board=board, dimension_id=theme.dimension_id, key=key, but=theme.pk),
        "definition": None if definition is None else _text(definition, field="definition"),
        "include": None if include is None else _text(include, field="include"),
        "exclude": None if exclude is None else _text(exclude, field="exclude"),
        "examples": None if examples is None else _examples(examples),
    }
    changed = [
        field
        for field in THEME_FIELDS
        if wanted[field] is not None and wanted[field] != getattr(theme, field)
    ]
    if not changed:
        raise ValidationError(f"nothing to change on {_what(theme)}")
    change = _Change()
    change.before("theme", [theme.pk])
    described = _what(theme)
    for field in changed:
        setattr(theme, field, wanted[field])
    theme.save(update_fields=changed)
    _record(
        board=board,
        user=user,
        action="theme_update",
        description=f"edited {described}: {', '.join(changed)}",
        change=change,
    )
    return theme


def _subtree(theme: Theme) -> list[int]:
    """The theme and every theme below it, parents before children."""
    children: dict[int | None, list[int]] = defaultdict(list)
    for pk, parent in (
        Theme.objects.filter(board_id=theme.board_id, dimension_id=theme.dimension_id)
        .order_by("position", "pk")
        .values_list("pk", "parent_id")
    ):
        children[parent].append(pk)
    found, stack = [], [theme.pk]
    while stack:
        pk = stack.pop(0)
        found.append(pk)
        stack[:0] = children[pk]
    return found


@transaction.atomic
def theme_move(
    *, board: Board, theme_id: int, parent_id: int | None, position: int | None = None, user
) -> Theme:
    """Put a theme under another (None: at the top level), at `position` among its new
    siblings (None: last); its sub-categories and codes go with it."""
    board = _board_locked(board)
    theme = _theme_locked(board=board, theme_id=theme_id)
    parent = None
    if parent_id is not None:
        parent = _theme_locked(board=board, theme_id=parent_id, field="parent")
        if parent.dimension_id != theme.dimension_id:
            raise ValidationError(
                {"parent": f"“{parent.name}” is a category of {parent.dimension.name}"}
            )
        if parent.pk in _subtree(theme):
            raise ValidationError(
                {"parent": f"“{theme.name}” cannot go under “{parent.name}”: it is inside it"}
            )
    siblings = list(
        _siblings(board=board, dimension_id=theme.dimension_id, parent_id=parent_id)
        .exclude(pk=theme.pk)
        .values_list("pk", flat=True)
    )
    at = len(siblings) if position is None else min(max(position, 0), len(siblings))
    ordered = [*siblings[:at], theme.pk, *siblings[at:]]
    if parent_id == theme.parent_id and ordered == list(
        _siblings(board=board, dimension_id=theme.dimension_id, parent_id=parent_id).values_list(
            "pk", flat=True
        )
    ):
        raise ValidationError({"position": f"{_what(theme)} is already there"})
    change = _Change()
    change.before("theme", [theme.pk])
    if parent_id != theme.parent_id:
        former = _siblings(board=board, dimension_id=theme.dimension_id, parent_id=theme.parent_id)
        _place(
            change=change, ordered=list(former.exclude(pk=theme.pk).values_list("pk", flat=True))
        )
        Theme.objects.filter(pk=theme.pk).update(parent=parent)
    _place(change=change, ordered=ordered)
    where = f"under “{parent.name}”" if parent else "to the top level"
    _record(
        board=board,
        user=user,
        action="theme_move",
        description=f"moved “{theme.name}” {where}, position {at + 1}",
        change=change,
    )
    theme.refresh_from_db()
    return theme


@transaction.atomic
def theme_delete(*, board: Board, theme_id: int, user) -> None:
    """Delete a theme and its sub-categories; the codes under them go back to ungrouped."""
    board = _board_locked(board)
    theme = _theme_locked(board=board, theme_id=theme_id)
    subtree = _subtree(theme)
    codes = list(Code.objects.filter(theme__in=subtree).values_list("pk", flat=True))
    change = _Change()
    change.before("code", codes)
    change.deleting("theme", subtree)
    Code.objects.filter(pk__in=codes).update(theme=None)
    Theme.objects.filter(pk=theme.pk).delete()
    below = len(subtree) - 1
    parts = [f"deleted {_what(theme)} ({theme.dimension.name})"]
    if below:
        parts.append(f" and its {below} sub-categor{'ies' if below != 1 else 'y'}")
    if codes:
        parts.append(f"; {len(codes)} code{'s' if len(codes) != 1 else ''} back to ungrouped")
    _record(
        board=board, user=user, action="theme_delete", description="".join(parts), change=change
    )


@transaction.atomic
def codes_group(*, board: Board, code_ids: list[int], theme_id: int | None, user) -> None:
    """Put cards under a theme, or (theme None) back to ungrouped."""
    board = _board_locked(board)
    if not code_ids:
        raise ValidationError({"codes": "name at least one code"})
    codes = _codes_locked(board=board, ids=code_ids, field="codes")
    theme = None
    if theme_id is not None:
        theme = _theme_locked(board=board, theme_id=theme_id)
        other = [code for code in codes if code.dimension_id != theme.dimension_id]
        if other:
            raise ValidationError(
                {
                    "codes": f"“{other[0].name}” is a code of {other[0].dimension.name}, "
                    f"“{theme.name}” a category of {theme.dimension.name}"
                }
            )
    moving = [code for code in codes if code.theme_id != theme_id]
    if not moving:
        where = f"under “{theme.name}”" if theme else "ungrouped"
        raise ValidationError({"codes": f"already {where}"})
    change = _Change()
    change.before("code", [code.pk for code in moving])
    Code.objects.filter(pk__in=[code.pk for code in moving]).update(theme=theme)
    names = _quoted([code.name for code in moving])
    description = (
        f"grouped {names} under “{theme.name}” ({theme.dimension.name})"
        if theme
        else f"ungrouped {names}"
    )
    _record(board=board, user=user, action="group", description=description, change=change)


# Undo


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
        raise _conflict(
            f"“{used.code.name}” has uses written since: merge it into another code instead"
        )
    Code.objects.filter(pk__in=created_codes).delete()
    Theme.objects.filter(pk__in=record.get("delete", {}).get("theme", [])).delete()


@transaction.atomic
def board_undo(*, board: Board, user) -> BoardEvent:
    """Undo the board's latest change not undone yet (undoing again undoes the one before);
    the undo is recorded too. Returns the event undone."""
    board = _board_locked(board)
    event = (
        board.events.select_for_update()
        .filter(undone_at__isnull=True)
        .exclude(action__in=NOT_UNDONE)
        .order_by("-created_at", "-pk")
        .first()
    )
    if event is None:
        raise _conflict("nothing left to undo on this board")
    inverse = _inverse(event.undo)
    try:
        with transaction.atomic():
            _restore(event.undo)
    except (IntegrityError, ProtectedError):
        raise _conflict(
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


# Which board


def board_open_get_or_create(*, study: Study) -> Board:
    """The open-coding study's board being sorted, made when it has none (a study created
    before boards existed, or by a path that did not make one)."""
    board = Board.objects.filter(study=study, frozen_into__isnull=True).first()
    if board is not None:
        return board
    try:
        with transaction.atomic():
            return Board.objects.create(
                study=study,
                kind=Board.Kind.OPEN,
                created_by=study.created_by,
                created_at=timezone.now(),
            )
    except IntegrityError:
        # Another request made it first (board_one_open_per_study).
        return Board.objects.get(study=study, frozen_into__isnull=True)


def study_board_current(*, study: Study) -> Board | None:
    """The board a study's leads see: the one being sorted, else the latest frozen one. An
    open-coding study always has one (made here if need be); a closed study has one once a
    lead starts revising its codebook version."""
    boards = Board.objects.filter(study=study).select_related(
        "study__codebook", "base", "frozen_into", "frozen_by", "created_by"
    )
    board = (
        boards.filter(frozen_into__isnull=True).first()
        or boards.order_by("-frozen_at", "-pk").first()
    )
    if board is None and study.kind == Study.Kind.OPEN:
        board = board_open_get_or_create(study=study)
    return board


# Revision boards


def _card_names(categories) -> dict[int, str]:
    """A card's name per category: the category's name, with its path when another category
    of the dimension has the same name (card names are unique whatever their case)."""
    seen = defaultdict(int)
    for category in categories:
        seen[category.name.casefold()] += 1
    names = {}
    for category in categories:
        name = category.name
        if seen[name.casefold()] > 1 or len(name) > CODE_NAME_MAX:
            name = f"{name} ({category.path})"
        names[category.pk] = name if len(name) <= CODE_NAME_MAX else name[: CODE_NAME_MAX - 1] + "…"
    return names


@transaction.atomic
def board_revision_start(*, study: Study, user) -> Board:
    """A board to revise the study's codebook version on: a theme per category, copied from
    the version's hierarchy, and under each a card standing for that category
    (`source_path`), which the revision's mapping follows wherever it ends up."""
    study = Study.objects.select_for_update().select_related("codebook").get(pk=study.pk)
    if study.kind == Study.Kind.OPEN:
        raise ValidationError(
            "an open-coding study's board freezes into a new codebook version; a revision "
            "board revises the version a closed study labels with"
        )
    current = Board.objects.filter(study=study, frozen_into__isnull=True).first()
    if current is not None:
        raise _conflict(
            f"the study has a board being sorted since {current.created_at:%Y-%m-%d %H:%M} "
            "UTC: freeze it before starting another"
        )
    base = study.codebook
    now = timezone.now()
    board = Board.objects.create(
        study=study, kind=Board.Kind.REVISION, base=base, created_by=user, created_at=now
    )
    cards = 0
    for dimension in base.dimensions.order_by("position").prefetch_related("categories"):
        categories = sorted(dimension.categories.all(), key=lambda c: (c.position, c.pk))
        # Numbered 0, 1, … among their siblings, as the board numbers its themes.
        among: dict[int | None, int] = defaultdict(int)
        place = {}
        for category in categories:
            place[category.pk] = among[category.parent_id]
            among[category.parent_id] += 1
        themes = Theme.objects.bulk_create(
            [
                Theme(
                    board=board,
                    dimension=dimension,
                    key=category.key,
                    name=category.name,
                    definition=category.definition,
                    include=category.include,
                    exclude=category.exclude,
                    examples=list(category.examples),
                    position=place[category.pk],
                )
                for category in categories
            ]
        )
        theme_of = {category.pk: theme for category, theme in zip(categories, themes, strict=True)}
        for category in categories:
            theme_of[category.pk].parent = theme_of.get(category.parent_id)
        Theme.objects.bulk_update(themes, ["parent"])
        names = _card_names(categories)
        Code.objects.bulk_create(
            Code(
                board=board,
                dimension=dimension,
                name=names[category.pk],
                source_path=category.path,
                theme=theme_of[category.pk],
                position=category.position,
                created_by=user,
                created_at=now,
            )
            for category in categories
        )
        cards += len(categories)
    BoardEvent.objects.create(
        board=board,
        user=user,
        action="start",
        description=f"started revising {base.name} v{base.version}: {cards} categories as cards",
        created_at=now,
    )
    return board


# Freeze


# The sentence a freeze adds to the codebook's description, saying where the version was made.
MADE_ON_OPEN_BOARD = "Made on the code board of the open-coding study “{study}”."
REVISED_ON_BOARD = "Revised from version {version} on the revision board of the study “{study}”."
# Those sentences as an earlier freeze wrote them: a revision replaces them with its own.
MADE_SENTENCE = re.compile(
    r"\s*(?:Made on the code board of the open-coding study"
    r"|Revised from version \S+ on the revision board of the study) “[^”]*”\."
)


def _frozen_description(board: Board) -> str:
    """The description of the version a board freezes into: where it was made; a revision
    keeps its base's own words, less the sentence saying where the base was made."""
    if board.base is None:
        return MADE_ON_OPEN_BOARD.format(study=board.study.name)
    made = REVISED_ON_BOARD.format(version=board.base.version, study=board.study.name)
    kept = MADE_SENTENCE.sub("", board.base.description).strip()
    return f"{kept} {made}" if kept else made


def _freeze_spec(
    *, board: Board, key: str, version: str, name: str, leave_out_ungrouped: bool
) -> tuple[CodebookSpec, dict, list[Code], dict[int, str]]:
    """The codebook the board's themes make, checked before anything is written: (spec,
    frozen map, the board's cards, theme paths). Every problem is named at once."""
    problems: dict[str, list[str]] = defaultdict(list)
    key, version, name = str(key or "").strip(), str(version or "").strip(), str(name or "").strip()
    if problem := codebook_key_problem(key):
        problems["key"].append(problem)
    if problem := version_problem(version):
        problems["version"].append(problem)
    if not name or len(name) > Codebook._meta.get_field("name").max_length:
        problems["name"].append("a name of 1 to 200 characters")
    if board.kind == Board.Kind.REVISION and key != board.base.key:
        problems["key"].append(
            f"a revision keeps the key of the version it revises: {board.base.key!r}"
        )
    if key and version and Codebook.objects.filter(key=key, version=version).exists():
        problems["version"].append(f"codebook {key} v{version} exists already: pick a new version")

    dimensions = board_dimensions(board=board)
    themes = themes_in_order(Theme.objects.filter(board=board))
    paths = theme_paths(themes)
    codes = list(Code.objects.filter(board=board).order_by("name"))
    names = {dimension.pk: dimension.name for dimension in dimensions}
    ungrouped = [c for c in codes if c.merged_into_id is None and c.theme_id is None]
    if ungrouped and not leave_out_ungrouped:
        by_dimension = defaultdict(list)
        for code in ungrouped:
            by_dimension[names.get(code.dimension_id, "?")].append(code.name)
        listed = "; ".join(f"{where}: {_quoted(found)}" for where, found in by_dimension.items())
        problems["ungrouped"].append(
            f"{len(ungrouped)} code{'s are' if len(ungrouped) != 1 else ' is'} under no "
            f"category ({listed}): group them, or freeze leaving them out"
        )
    specs = []
    by_id = {theme.pk: theme for theme in themes}
    for dimension in dimensions:
        own = [theme for theme in themes if theme.dimension_id == dimension.pk]
        if not own:
            problems[f"dimensions.{dimension.key}"].append(
                f"{dimension.name} has no category yet: a codebook needs at least one"
            )
        specs.append(
            DimensionSpec(
                key=dimension.key,
                name=dimension.name,
                help=dimension.help_text,
                multiple=dimension.multiple,
                required=dimension.required,
                leaf_only=dimension.leaf_only,
                categories=tuple(
                    CategorySpec(
                        key=theme.key,
                        name=theme.name,
                        parent=by_id[theme.parent_id].key if theme.parent_id else None,
                        definition=theme.definition,
                        include=theme.include,
                        exclude=theme.exclude,
                        examples=tuple(theme.examples),
                        path=paths[theme.pk],
                    )
                    for theme in own
                ),
            )
        )
    if problems:
        raise ValidationError(dict(problems))
    base = board.base
    spec = CodebookSpec(
        key=key,
        name=name,
        version=version,
        description=_frozen_description(board),
        source=base.source if base is not None else "",
        dimensions=tuple(specs),
    )
    keys = {dimension.pk: dimension.key for dimension in dimensions}
    active = {code.pk: code for code in codes if code.merged_into_id is None}
    frozen_map: dict[str, dict[str, str]] = {dimension.key: {} for dimension in dimensions}
    for code in codes:
        card = active[code.merged_into_id] if code.merged_into_id else code
        if card.theme_id is not None:
            frozen_map[keys[code.dimension_id]][code.name] = paths[card.theme_id]
    return spec, frozen_map, codes, paths


def _revision_mapping(*, board: Board, codes: list[Code], paths: dict[int, str]) -> dict:
    """{dimension key: {old path: [new paths]}}: where each category of the base version went,
    through its card, the cards merged into it and its split copies; [] when all of them were
    left out."""
    keys = {dimension.pk: dimension.key for dimension in board_dimensions(board=board)}
    active = {code.pk: code for code in codes if code.merged_into_id is None}
    mapping: dict[str, dict[str, list[str]]] = {key: {} for key in keys.values()}
    for code in codes:
        card = active[code.merged_into_id] if code.merged_into_id else code
        went = mapping[keys[code.dimension_id]].setdefault(code.source_path, [])
        if card.theme_id is not None and paths[card.theme_id] not in went:
            went.append(paths[card.theme_id])
    return {key: {old: sorted(new) for old, new in found.items()} for key, found in mapping.items()}


@transaction.atomic
def board_freeze(
    *, board: Board, key: str, version: str, name: str, user, leave_out_ungrouped: bool = False
) -> Codebook:
    """Make the board's themes a new codebook version and freeze the board.

    Top-level themes become categories, their children sub-categories, with the board's
    dimensions' settings; the version is loaded as any codebook file is, and frozen. The
    board records it and which code went into which category. Codes under no theme block
    the freeze, named, unless `leave_out_ungrouped`: they then go into no category. A key
    that exists takes a new version only from those who may add one (labeler.permissions.
    codebook_key_require_addable: a 403 naming its owner); a new key is the study's.
    Everything is checked before anything is written.
    A revision board's version derives from the one it revises, with the mapping its cards
    make (taxonomy.services.codebook_revise).
    """
    board = _board_locked(board)
    if codebook_key_problem(str(key or "").strip()) is None:
        codebook_key_lock(key=str(key).strip())
        codebook_key_require_addable(key=str(key).strip(), user=user)
    spec, frozen_map, codes, paths = _freeze_spec(
        board=board,
        key=key,
        version=version,
        name=name,
        leave_out_ungrouped=leave_out_ungrouped,
    )
    if board.kind == Board.Kind.REVISION:
        mapping = _revision_mapping(board=board, codes=codes, paths=paths)
        codebook = codebook_revise(base=board.base, spec=spec, mapping=mapping)
    else:
        codebook, _ = codebook_load(spec=spec, owner=codebook_owner_of(board.study))
    codebook_freeze(codebook=codebook)
    now = timezone.now()
    board.frozen_into = codebook
    board.frozen_map = frozen_map
    board.frozen_at = now
    board.frozen_by = user
    board.save(update_fields=["frozen_into", "frozen_map", "frozen_at", "frozen_by"])
    categories = sum(len(dimension.categories) for dimension in spec.dimensions)
    left_out = sum(1 for c in codes if c.merged_into_id is None and c.theme_id is None)
    BoardEvent.objects.create(
        board=board,
        user=user,
        action="freeze",
        description=f"froze into codebook {codebook.key} v{codebook.version}: {categories} "
        f"categories" + (f", {left_out} codes left out" if left_out else ""),
        created_at=now,
    )
    return codebook
