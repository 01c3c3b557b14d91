"""A board's cards (its codes): rename, merge, split.

Locks: each change takes the board's row lock first (events.board_locked: a frozen board
refuses, 409), then the cards it changes (select_for_update, `codes_locked`), and when it moves
uses, those uses; it records one BoardEvent that undo can reverse.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from labeler.coding.board.events import Change, board_locked, event_record, quoted
from labeler.coding.board.selectors import final_labels_on
from labeler.common.scheme import name_normalise
from labeler.models import Board, Code, CodeUse

CODE_NAME_MAX = 120


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


def codes_locked(*, board: Board, ids: Iterable[int], field: str) -> list[Code]:
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
    return codes_locked(board=board, ids=[code_id], field=field)[0]


@transaction.atomic
def code_rename(*, board: Board, code_id: int, name: str, user) -> Code:
    """Give a card another name; the uses keep what their annotators wrote."""
    board = board_locked(board)
    code = _code_locked(board=board, code_id=code_id)
    name = code_name_clean(name)
    if name == code.name:
        raise ValidationError({"name": f"the code is already called “{name}”"})
    _name_free(board=board, dimension_id=code.dimension_id, name=name, but=code.pk)
    change = Change()
    change.before("code", [code.pk])
    old = code.name
    code.name = name
    code.save(update_fields=["name"])
    event_record(
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
    board = board_locked(board)
    ids = [pk for pk in dict.fromkeys(code_ids) if pk != into_id]
    if not ids:
        raise ValidationError({"codes": "name at least one code to merge into another"})
    target = _code_locked(board=board, code_id=into_id, field="into")
    sources = codes_locked(board=board, ids=ids, field="codes")
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
    change = Change()
    change.before("code", [*source_ids, *aliases])
    change.before("use", uses)
    CodeUse.objects.filter(pk__in=uses).update(code=target)
    # One step from any merged name to the card it counts for.
    Code.objects.filter(pk__in=[*source_ids, *aliases]).update(merged_into=target, theme=None)
    names = quoted([code.name for code in sources])
    if board.kind == Board.Kind.REVISION:
        # A revision's cards carry the study's final labels on their categories, no uses.
        paths = [c.source_path for c in Code.objects.filter(pk__in=[*source_ids, *aliases])]
        labels = final_labels_on(
            board=board, dimension_id=target.dimension_id, paths=sorted(set(paths))
        )
        categories = "category" if len(sources) == 1 else "categories"
        description = (
            f"merged {categories} {names} into “{target.name}” "
            f"({target.dimension.name}): {labels} final label{'s' if labels != 1 else ''} moved"
        )
    else:
        description = (
            f"merged {names} into “{target.name}” ({target.dimension.name}): "
            f"{len(uses)} use{'s' if len(uses) != 1 else ''} moved"
        )
    event_record(board=board, user=user, action="merge", description=description, change=change)
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
    board = board_locked(board)
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
    change = Change()
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
    event_record(board=board, user=user, action="split", description=what, change=change)
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
