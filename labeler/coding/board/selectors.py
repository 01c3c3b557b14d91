"""Reads of a study's board: its cards with their counts, annotators and example reports;
its themes as a tree with the counts under each; its history; one card's uses; and the
carry-over of an open round, each report's codes mapped to the categories they were sorted
into.

Annotators are named by the study's pseudonyms (labeler.common.names.study_pseudonyms)
unless a lead asks for real names. Counts are of the codes as resolved on the board now:
after merges and splits.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field

from django.db import connection
from django.db.models import Count, Q, QuerySet
from django.urls import reverse

from labeler.common.names import annotator_names, report_ref
from labeler.models import (
    Board,
    BoardEvent,
    Code,
    CodeUse,
    DisagreementReason,
    FinalLabel,
    StudyItem,
    Theme,
)
from mining.selectors import report_refs
from taxonomy.models import Dimension

# Example reports shown on a card; the latest history entries in the board's main read.
EXAMPLES_SHOWN = 3
HISTORY_SHOWN = 50
UNKNOWN_ANNOTATOR = "an annotator"
# Events undoing does not take back: the board's start, undos themselves, the freeze.
NOT_UNDONE = ("start", "undo", "freeze")


def board_dimensions(*, board: Board) -> list[Dimension]:
    """The dimensions a board sorts: a revision board, every dimension of the version it
    revises; an open board, those of its study."""
    if board.kind == Board.Kind.REVISION:
        return list(board.base.dimensions.order_by("position"))
    return list(board.study.dimensions.order_by("position"))


def theme_paths(themes) -> dict[int, str]:
    """Each theme's key path from the top (memory/leak), by theme id."""
    by_id = {theme.pk: theme for theme in themes}
    paths: dict[int, str] = {}

    def path(theme) -> str:
        if theme.pk not in paths:
            parent = by_id.get(theme.parent_id)
            paths[theme.pk] = f"{path(parent)}/{theme.key}" if parent else theme.key
        return paths[theme.pk]

    for theme in themes:
        path(theme)
    return paths


def themes_in_order(themes) -> list:
    """Themes depth first, siblings by position: the order the codebook lists them in."""
    children = defaultdict(list)
    for theme in sorted(themes, key=lambda t: (t.position, t.pk)):
        children[theme.parent_id].append(theme)
    ordered, stack = [], list(reversed(children[None]))
    while stack:
        theme = stack.pop()
        ordered.append(theme)
        stack.extend(reversed(children[theme.pk]))
    return ordered


# Plain SQL: every card's counts, annotators and reports in one pass over the uses.
CODE_COUNTS_SQL = """
SELECT code.id, count(use.id), count(DISTINCT use.item_id),
       COALESCE(array_agg(DISTINCT use.annotator_id) FILTER (WHERE use.id IS NOT NULL), '{}'),
       COALESCE(array_agg(DISTINCT use.item_id) FILTER (WHERE use.id IS NOT NULL), '{}')
FROM labeler_code code
LEFT JOIN labeler_codeuse use ON use.code_id = code.id
WHERE code.board_id = %s
GROUP BY code.id
"""

# Revision boards: the study's final labels per dimension key and category path.
FINAL_COUNTS_SQL = """
SELECT dimension.key, path.value, count(*)
FROM labeler_finallabel final
JOIN labeler_studyitem item ON item.id = final.item_id
JOIN taxonomy_dimension dimension ON dimension.id = final.dimension_id
CROSS JOIN LATERAL jsonb_array_elements_text(final."values") AS path(value)
WHERE item.study_id = %s
GROUP BY dimension.key, path.value
"""

# Revision boards: each adjudicated final label with why the annotators disagreed, its
# value and every value its annotators gave.
DISAGREEMENTS_SQL = """
SELECT dimension.key, final.item_id, final.reason, final.rationale, final."values",
       COALESCE((SELECT jsonb_agg(DISTINCT answer.value)
                 FROM labeler_annotation annotation
                 CROSS JOIN LATERAL jsonb_array_elements_text(annotation."values")
                     AS answer(value)
                 WHERE annotation.item_id = final.item_id
                   AND annotation.dimension_id = final.dimension_id), '[]'),
       item.report_id
FROM labeler_finallabel final
JOIN labeler_studyitem item ON item.id = final.item_id
JOIN taxonomy_dimension dimension ON dimension.id = final.dimension_id
WHERE item.study_id = %s AND final.method = 'adjudicated'
ORDER BY final.decided_at, final.id
"""


def _fetch(sql: str, params) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _codebook(codebook) -> dict | None:
    if codebook is None:
        return None
    return {
        "key": codebook.key,
        "version": codebook.version,
        "name": codebook.name,
        "url": reverse("taxonomy:codebook-detail", args=[codebook.key, codebook.version]),
    }


def _user(user) -> str | None:
    return user.get_username() if user is not None else None


def board_header(board: Board) -> dict:
    return {
        "id": board.pk,
        "kind": board.kind,
        "base": _codebook(board.base),
        "frozen": board.frozen_into_id is not None,
        "frozen_into": _codebook(board.frozen_into),
        "frozen_at": board.frozen_at,
        "frozen_by": _user(board.frozen_by),
        "created_at": board.created_at,
    }


def board_figures(*, board: Board) -> dict[str, int]:
    """What a board holds, counted: its cards (codes after merges), the codes merged into
    them, the cards under no category, its categories (top level, below), and the uses of its
    codes on how many reports. Three queries whatever the board's size."""
    figures = Code.objects.filter(board=board).aggregate(
        cards=Count("pk", filter=Q(merged_into__isnull=True)),
        merged=Count("pk", filter=Q(merged_into__isnull=False)),
        ungrouped=Count("pk", filter=Q(merged_into__isnull=True, theme__isnull=True)),
    )
    figures.update(
        Theme.objects.filter(board=board).aggregate(
            categories=Count("pk", filter=Q(parent__isnull=True)),
            sub_categories=Count("pk", filter=Q(parent__isnull=False)),
        )
    )
    figures.update(
        CodeUse.objects.filter(code__board=board).aggregate(
            uses=Count("pk"), reports=Count("item", distinct=True)
        )
    )
    return figures


def final_labels_on(*, board: Board, dimension_id: int, paths: list[str]) -> int:
    """How many of the study's final labels on a dimension hold any of `paths`: on a
    revision board, the labels its cards standing for those categories carry."""
    if not paths:
        return 0
    holds = Q()
    for path in paths:
        holds |= Q(values__contains=[path])
    return (
        FinalLabel.objects.filter(item__study_id=board.study_id, dimension_id=dimension_id)
        .filter(holds)
        .count()
    )


def board_get(*, pk: int) -> Board:
    return Board.objects.select_related(
        "study__codebook", "base", "frozen_into", "frozen_by", "created_by"
    ).get(pk=pk)


def event_row(event: BoardEvent) -> dict:
    return {
        "id": event.pk,
        "action": event.action,
        "description": event.description,
        "user": _user(event.user),
        "at": event.created_at,
        "undone_at": event.undone_at,
        "undone_by": _user(event.undone_by),
    }


def board_history(*, board: Board) -> QuerySet[BoardEvent]:
    """Every change on the board, latest first."""
    return board.events.select_related("user", "undone_by").order_by("-created_at", "-pk")


def board_undo_next(*, board: Board) -> BoardEvent | None:
    """The change an undo would take back now."""
    return (
        board.events.filter(undone_at__isnull=True)
        .exclude(action__in=NOT_UNDONE)
        .order_by("-created_at", "-pk")
        .first()
    )


@dataclass
class _Counts:
    """What lies under a theme: its cards, their uses and the reports they are on."""

    uses: int = 0
    items: set = field(default_factory=set)
    codes: set = field(default_factory=set)


def _study_items(item_ids) -> dict[int, StudyItem]:
    items = (
        StudyItem.objects.filter(pk__in=list(item_ids))
        .select_related("report__repository")
        .only(
            "pk",
            "position",
            "report__number",
            "report__title",
            "report__html_url",
            "report__repository__full_name",
        )
    )
    return {item.pk: item for item in items}


def _example(slug: str, item: StudyItem) -> dict:
    return {
        "item": item.pk,
        "report": report_ref(item.report),
        "title": item.report.title,
        "url": reverse("studies:item-history", args=[slug, item.pk]),
        "html_url": item.report.html_url,
    }


def _revision_facts(board: Board) -> tuple[dict, dict]:
    """(final labels by (dimension key, path), disagreements by (dimension key, path)) of
    the board's study: what each card of a revision board shows."""
    finals = {(key, path): count for key, path, count in _fetch(FINAL_COUNTS_SQL, [board.study_id])}
    disagreements: dict[tuple[str, str], list[dict]] = defaultdict(list)
    rows = _fetch(DISAGREEMENTS_SQL, [board.study_id])
    # Reports are mining's: read through its selectors, not joined here.
    refs = report_refs(report_ids={row[-1] for row in rows}) if rows else {}
    for key, item_id, reason, rationale, final, answers, report_id in rows:
        # The driver hands JSON over as text here (Django decodes it only for model fields).
        final, answers = json.loads(final), json.loads(answers)
        entry = {
            "item": item_id,
            "report": refs[report_id],
            "reason": reason,
            "rationale": rationale,
            "final": final,
            "answers": sorted(answers),
        }
        for path in dict.fromkeys([*final, *sorted(answers)]):
            disagreements[(key, path)].append(entry)
    return finals, disagreements


def board_state(*, board: Board, real_names: bool = False) -> dict:
    """Everything the board page draws, in a fixed number of queries whatever its size:
    the dimensions, the themes as a tree (depth first) with the counts under each, every
    card not merged away with its counts, annotators and example reports (revision boards:
    the study's final labels and disagreements on its categories), the latest history and
    the change an undo would take back."""
    study = board.study
    dimensions = board_dimensions(board=board)
    keys = {dimension.pk: dimension.key for dimension in dimensions}
    themes = themes_in_order(Theme.objects.filter(board=board))
    paths = theme_paths(themes)
    codes = list(Code.objects.filter(board=board).order_by("pk"))
    counts = {
        pk: (uses, reports, annotators, items)
        for pk, uses, reports, annotators, items in _fetch(CODE_COUNTS_SQL, [board.pk])
    }
    shown_items = {item for _, _, _, item_ids in counts.values() for item in item_ids}
    items = _study_items(shown_items) if shown_items else {}
    every_annotator = {user for _, _, annotators, _ in counts.values() for user in annotators}
    names = (
        annotator_names(study=study, user_ids=every_annotator, real_names=real_names)
        if every_annotator
        else {}
    )
    revision = board.kind == Board.Kind.REVISION
    finals, disagreements = _revision_facts(board) if revision else ({}, {})

    merged = _merged_into(codes)
    under: dict[int | None, _Counts] = defaultdict(_Counts)
    cards = []
    order = {pk: index for index, pk in enumerate(keys)}
    for code in sorted(
        (c for c in codes if c.merged_into_id is None),
        key=lambda c: (order.get(c.dimension_id, len(order)), c.name.casefold(), c.pk),
    ):
        uses, reports, annotators, item_ids = counts.get(code.pk, (0, 0, [], []))
        tally = under[code.theme_id]
        tally.uses += uses
        tally.items.update(item_ids)
        tally.codes.add(code.pk)
        examples = sorted((items[pk] for pk in item_ids if pk in items), key=lambda i: i.position)
        card = {
            "id": code.pk,
            "dimension": keys.get(code.dimension_id),
            "name": code.name,
            "theme": code.theme_id,
            "theme_path": paths.get(code.theme_id),
            "source_path": code.source_path,
            "uses": uses,
            "reports": reports,
            "annotators": sorted(names.get(user, UNKNOWN_ANNOTATOR) for user in annotators),
            "examples": [_example(study.slug, item) for item in examples[:EXAMPLES_SHOWN]],
            "merged": sorted(alias.name for alias in merged[code.pk]),
        }
        if revision:
            card.update(
                _revision_card(
                    code,
                    merged[code.pk],
                    key=keys.get(code.dimension_id),
                    finals=finals,
                    disagreements=disagreements,
                )
            )
        cards.append(card)

    theme_rows = _theme_rows(themes, paths, keys, under)
    history = list(board_history(board=board)[:HISTORY_SHOWN])
    undo = board_undo_next(board=board)
    return {
        "study": _study(study),
        "board": board_header(board),
        "dimensions": [_dimension_row(dimension, cards) for dimension in dimensions],
        "themes": theme_rows,
        "codes": cards,
        "history": [event_row(event) for event in history],
        "history_total": board.events.count(),
        "undo": {"id": undo.pk, "description": undo.description} if undo else None,
        "names": "real" if real_names else "pseudonyms",
    }


def _merged_into(codes: list[Code]) -> dict[int, list[Code]]:
    """The cards merged into each card, by its id."""
    merged = defaultdict(list)
    for code in codes:
        if code.merged_into_id is not None:
            merged[code.merged_into_id].append(code)
    return merged


def _revision_card(code, aliases, *, key, finals: dict, disagreements: dict) -> dict:
    """What a revision board's card adds: the base version's categories it stands for (its
    own and those merged into it), their final labels, and the disagreements on them."""
    sources = list(dict.fromkeys([code.source_path, *(alias.source_path for alias in aliases)]))
    entries = list(
        {id(e): e for path in sources for e in disagreements.get((key, path), [])}.values()
    )
    reasons = defaultdict(int)
    for entry in entries:
        reasons[entry["reason"]] += 1
    return {
        "sources": sources,
        "final_labels": sum(finals.get((key, path), 0) for path in sources),
        "reasons": {r: reasons[r] for r in DisagreementReason.values if reasons[r]},
        "disagreements": entries,
    }


def _dimension_row(dimension, cards: list[dict]) -> dict:
    return {
        "key": dimension.key,
        "name": dimension.name,
        "multiple": dimension.multiple,
        "required": dimension.required,
        "leaf_only": dimension.leaf_only,
        "ungrouped": sum(
            1 for c in cards if c["dimension"] == dimension.key and c["theme"] is None
        ),
    }


def _study(study) -> dict:
    return {"slug": study.slug, "kind": study.kind, "codebook": _codebook(study.codebook)}


def board_state_none(*, study, real_names: bool = False) -> dict:
    """The state of a study without a board yet (a closed study nobody revises)."""
    return {
        "study": _study(study),
        "board": None,
        "dimensions": [],
        "themes": [],
        "codes": [],
        "history": [],
        "history_total": 0,
        "undo": None,
        "names": "real" if real_names else "pseudonyms",
    }


def _theme_rows(themes, paths, keys, under: dict[int | None, _Counts]) -> list[dict]:
    """Each theme with the counts of its own codes and of everything below it."""
    children = defaultdict(list)
    for theme in themes:
        children[theme.parent_id].append(theme.pk)
    totals: dict[int, _Counts] = {}

    def total(pk: int) -> _Counts:
        if pk not in totals:
            own = under.get(pk, _Counts())
            summed = _Counts(uses=own.uses, items=set(own.items), codes=set(own.codes))
            for child in children[pk]:
                below = total(child)
                summed.uses += below.uses
                summed.items |= below.items
                summed.codes |= below.codes
            totals[pk] = summed
        return totals[pk]

    depth: dict[int, int] = {}
    rows = []
    for theme in themes:
        depth[theme.pk] = depth[theme.parent_id] + 1 if theme.parent_id in depth else 0
        summed = total(theme.pk)
        rows.append(
            {
                "id": theme.pk,
                "dimension": keys.get(theme.dimension_id),
                "parent": theme.parent_id,
                "key": theme.key,
                "name": theme.name,
                "path": paths[theme.pk],
                "depth": depth[theme.pk],
                "position": theme.position,
                "definition": theme.definition,
                "include": theme.include,
                "exclude": theme.exclude,
                "examples": theme.examples,
                "codes": len(under.get(theme.pk, _Counts()).codes),
                "all_codes": len(summed.codes),
                "uses": summed.uses,
                "reports": len(summed.items),
            }
        )
    return rows


def code_uses(*, board: Board, code: Code, real_names: bool = False) -> dict:
    """One card and each of its uses (who wrote what on which report), in item order: what
    a split chooses from."""
    uses = list(
        CodeUse.objects.filter(code=code)
        .select_related("item__report__repository")
        .order_by("item__position", "created_at", "pk")
    )
    names = annotator_names(
        study=board.study, user_ids={use.annotator_id for use in uses}, real_names=real_names
    )
    return {
        "id": code.pk,
        "name": code.name,
        "uses": [
            {
                "id": use.pk,
                "item": use.item_id,
                "report": report_ref(use.item.report),
                "title": use.item.report.title,
                "annotator": names.get(use.annotator_id, UNKNOWN_ANNOTATOR),
                "written_as": use.written_as,
                "at": use.created_at,
            }
            for use in uses
        ],
    }


# Plain SQL: every use of the board's codes, as resolved now, per item and dimension.
CARRY_SQL = """
SELECT use.item_id, code.dimension_id, COALESCE(code.merged_into_id, code.id),
       count(DISTINCT use.annotator_id)
FROM labeler_codeuse use
JOIN labeler_code code ON code.id = use.code_id
WHERE code.board_id = %s
GROUP BY 1, 2, 3
"""


@dataclass(frozen=True)
class CarriedCode:
    name: str
    annotators: int
    category: str | None


@dataclass(frozen=True)
class CarryRow:
    """One report's codes on one dimension and the categories they were sorted into."""

    item: int
    report: str
    title: str
    dimension: str
    codes: tuple[CarriedCode, ...]

    @property
    def categories(self) -> list[str]:
        return sorted({code.category for code in self.codes if code.category})

    @property
    def unsorted(self) -> list[str]:
        return [code.name for code in self.codes if code.category is None]


def board_carry_over(*, board: Board) -> list[CarryRow]:
    """Each coded report's codes, per dimension in the study's order, mapped to the
    category each code was sorted into (its theme's key path; on a frozen board the same
    paths its codebook has). A record of the open round only: these are no labels of any
    study, and agreement never counts them."""
    dimensions = board_dimensions(board=board)
    order = {dimension.pk: index for index, dimension in enumerate(dimensions)}
    keys = {dimension.pk: dimension.key for dimension in dimensions}
    themes = list(Theme.objects.filter(board=board))
    paths = theme_paths(themes)
    codes = {code.pk: code for code in Code.objects.filter(board=board)}
    grouped: dict[tuple[int, int], list[CarriedCode]] = defaultdict(list)
    for item_id, dimension_id, code_id, annotators in _fetch(CARRY_SQL, [board.pk]):
        code = codes[code_id]
        grouped[(item_id, dimension_id)].append(
            CarriedCode(code.name, annotators, paths.get(code.theme_id))
        )
    items = _study_items({item for item, _ in grouped})
    ordered = sorted(
        (key for key in grouped if key[1] in keys),
        key=lambda key: (items[key[0]].position, key[0], order[key[1]]),
    )
    return [
        CarryRow(
            item=item_id,
            report=report_ref(items[item_id].report),
            title=items[item_id].report.title,
            dimension=keys[dimension_id],
            codes=tuple(sorted(grouped[(item_id, dimension_id)], key=lambda c: c.name.casefold())),
        )
        for item_id, dimension_id in ordered
    ]
