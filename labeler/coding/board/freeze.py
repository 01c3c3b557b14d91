"""Freezing a board: its themes become a new codebook version (a revision board's
derives from the version it revises), checked whole before anything is written, and the
board keeps which code went into which category.

Locks: the board's row lock first (events.board_locked: a frozen board refuses, 409), then
the codebook key's lock (taxonomy.services.codebook_key_lock) so that two freezes into one
key cannot both take a version.
"""

from __future__ import annotations

import re
from collections import defaultdict

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from labeler.coding.board.events import board_locked, cards_word, quoted
from labeler.coding.board.selectors import board_dimensions, theme_paths, themes_in_order
from labeler.common.permissions import codebook_key_require_addable, codebook_owner_of
from labeler.models import Board, BoardEvent, Code, Theme
from taxonomy.codebook_file import (
    CategorySpec,
    CodebookSpec,
    DimensionSpec,
    codebook_key_problem,
    version_problem,
)
from taxonomy.models import Codebook
from taxonomy.services import codebook_freeze, codebook_key_lock, codebook_load, codebook_revise

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
    key, version, name = str(key or "").strip(), str(version or "").strip(), str(name or "").strip()
    problems = _version_problems(board=board, key=key, version=version, name=name)
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
        listed = "; ".join(f"{where}: {quoted(found)}" for where, found in by_dimension.items())
        problems["ungrouped"].append(
            f"{len(ungrouped)} {cards_word(board, len(ungrouped))} "
            f"{'are' if len(ungrouped) != 1 else 'is'} under no "
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
    return spec, _frozen_map(dimensions=dimensions, codes=codes, paths=paths), codes, paths


def _version_problems(*, board: Board, key: str, version: str, name: str) -> dict[str, list[str]]:
    """What is wrong with the key, version and name the board would freeze into, by field."""
    problems: dict[str, list[str]] = defaultdict(list)
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
    return problems


def _frozen_map(*, dimensions, codes: list[Code], paths: dict[int, str]) -> dict:
    """{dimension key: {code name: category path}}: where each name written on the board
    went, a merged name with the card it was merged into; names left out are not in it."""
    keys = {dimension.pk: dimension.key for dimension in dimensions}
    active = {code.pk: code for code in codes if code.merged_into_id is None}
    frozen_map: dict[str, dict[str, str]] = {dimension.key: {} for dimension in dimensions}
    for code in codes:
        card = active[code.merged_into_id] if code.merged_into_id else code
        if card.theme_id is not None:
            frozen_map[keys[code.dimension_id]][code.name] = paths[card.theme_id]
    return frozen_map


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
    that exists takes a new version only from those who may add one (labeler.common.permissions.
    codebook_key_require_addable: a 403 naming its owner); a new key is the study's.
    Everything is checked before anything is written.
    A revision board's version derives from the one it revises, with the mapping its cards
    make (taxonomy.services.codebook_revise).
    """
    board = board_locked(board)
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
        f"categories"
        + (f", {left_out} {cards_word(board, left_out)} left out" if left_out else ""),
        created_at=now,
    )
    return codebook
