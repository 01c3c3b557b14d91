"""The themes a board's cards are sorted into (the categories its codebook will have):
create, update, move, delete; and grouping cards under one.

Locks: each change takes the board's row lock first (events.board_locked: a frozen board
refuses, 409), then the themes it changes (select_for_update, `_theme_locked`) and, to group,
the cards (cards.codes_locked); it records one BoardEvent that undo can reverse.
"""

from __future__ import annotations

import re
from collections import defaultdict

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import slugify

from labeler.coding.board.cards import codes_locked
from labeler.coding.board.events import (
    Change,
    board_locked,
    cards_word,
    event_record,
    quoted,
)
from labeler.coding.board.selectors import board_dimensions
from labeler.common.scheme import name_normalise
from labeler.models import Board, Code, Theme
from taxonomy.codebook_file import KEY_PATTERN
from taxonomy.models import Dimension

THEME_NAME_MAX = 200
THEME_KEY_MAX = 100
TEXT_MAX = 10_000
EXAMPLES_MAX = 50


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


def _place(*, change: Change, ordered: list[int]) -> None:
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
    board = board_locked(board)
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
    change = Change()
    if position is not None and position < len(siblings):
        ids = [pk for pk, _ in siblings]
        at = max(position, 0)
        _place(change=change, ordered=[*ids[:at], theme.pk, *ids[at:]])
    change.created("theme", theme.pk)
    under = f" under “{parent.name}”" if parent else ""
    event_record(
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
    board = board_locked(board)
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
    change = Change()
    change.before("theme", [theme.pk])
    described = _what(theme)
    for field in changed:
        setattr(theme, field, wanted[field])
    theme.save(update_fields=changed)
    event_record(
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
    board = board_locked(board)
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
    change = Change()
    change.before("theme", [theme.pk])
    if parent_id != theme.parent_id:
        former = _siblings(board=board, dimension_id=theme.dimension_id, parent_id=theme.parent_id)
        _place(
            change=change, ordered=list(former.exclude(pk=theme.pk).values_list("pk", flat=True))
        )
        Theme.objects.filter(pk=theme.pk).update(parent=parent)
    _place(change=change, ordered=ordered)
    where = f"under “{parent.name}”" if parent else "to the top level"
    event_record(
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
    board = board_locked(board)
    theme = _theme_locked(board=board, theme_id=theme_id)
    subtree = _subtree(theme)
    codes = list(Code.objects.filter(theme__in=subtree).values_list("pk", flat=True))
    change = Change()
    change.before("code", codes)
    change.deleting("theme", subtree)
    Code.objects.filter(pk__in=codes).update(theme=None)
    Theme.objects.filter(pk=theme.pk).delete()
    below = len(subtree) - 1
    parts = [f"deleted {_what(theme)} ({theme.dimension.name})"]
    if below:
        parts.append(f" and its {below} sub-categor{'ies' if below != 1 else 'y'}")
    if codes:
        parts.append(f"; {len(codes)} {cards_word(board, len(codes))} back to ungrouped")
    event_record(
        board=board, user=user, action="theme_delete", description="".join(parts), change=change
    )


@transaction.atomic
def codes_group(*, board: Board, code_ids: list[int], theme_id: int | None, user) -> None:
    """Put cards under a theme, or (theme None) back to ungrouped."""
    board = board_locked(board)
    if not code_ids:
        raise ValidationError({"codes": "name at least one code"})
    codes = codes_locked(board=board, ids=code_ids, field="codes")
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
    change = Change()
    change.before("code", [code.pk for code in moving])
    Code.objects.filter(pk__in=[code.pk for code in moving]).update(theme=theme)
    names = quoted([code.name for code in moving])
    description = (
        f"grouped {names} under “{theme.name}” ({theme.dimension.name})"
        if theme
        else f"ungrouped {names}"
    )
    event_record(board=board, user=user, action="group", description=description, change=change)
