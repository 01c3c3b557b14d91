"""Which board a study has: the open-coding study's board (made when it has none), the
board its leads see, and a revision board started from a closed study's codebook version.

Locks: `board_open_get_or_create` takes none (the unique board_one_open_per_study settles a
race: the loser reads the winner's board); `board_revision_start` locks the study's row
(select_for_update) so that two starts make one board.
"""

from __future__ import annotations

from collections import defaultdict

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from labeler.coding.board.cards import CODE_NAME_MAX
from labeler.coding.board.events import conflict
from labeler.models import Board, BoardEvent, Code, Study, Theme


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
        raise conflict(
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
