"""Pages of a study's board, for its leads who do not label in it (labeler.common.permissions.
access_sorts_board): the board itself (its script reads and changes it through the board
API), and the open round's carry-over with its CSV. Also what the new-study page starts
from when a frozen board links to it."""

from __future__ import annotations

import csv

from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.core.validators import slug_re
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from labeler.coding.board.boards import study_board_current
from labeler.coding.board.selectors import board_carry_over
from labeler.common.permissions import (
    access_sorts_board,
    codebook_key_refusal,
    study_access,
    study_get_for_user,
)
from labeler.common.writers import SPREADSHEET_FORMULAS
from labeler.models import Board, Study
from taxonomy.codebook_file import codebook_key_problem, version_problem
from taxonomy.models import Codebook

BOARD_ONLY = (
    "only the study's leads sort its board (one who labels in it too, only when the open "
    "round shares its codes)"
)
CARRY_PER_PAGE = 200
# What the board's keys do, in the order the page lists them.
BOARD_KEYS = [
    ("↑ ↓", "move through the codes (also j, k)"),
    ("Space", "select the current code, or unselect it"),
    ("m", "merge the selected codes into the current one"),
    ("r", "rename the current code"),
    ("s", "split the current code: some of its uses become a new code"),
    ("g", "group the selected codes (or the current one) under a category, or ungroup them"),
    ("n", "new category"),
    ("u", "undo the latest change"),
    ("[ ]", "previous, next dimension"),
    ("/", "filter the codes"),
    ("Esc", "clear the selection, close a dialog"),
]
# A revision board's cards are the categories of the version it revises: a split copies one.
REVISION_KEYS = [
    ("↑ ↓", "move through the cards (also j, k)"),
    ("Space", "select the current card, or unselect it"),
    ("m", "merge the selected cards into the current one: their categories become one"),
    ("r", "rename the current card"),
    ("s", "split the current card: a copy of it, to put under another category"),
    ("g", "group the selected cards (or the current one) under a category, or ungroup them"),
    *BOARD_KEYS[6:8],
    ("[ ]", "previous, next dimension"),
    ("/", "filter the cards"),
    ("Esc", "clear the selection, close a dialog"),
]


def _study_sorted(request, slug: str):
    study, access = study_get_for_user(user=request.user, slug=slug)
    if not access_sorts_board(access, study=study):
        raise PermissionDenied(BOARD_ONLY)
    return study, access


def new_study_links(*, study: Study, codebook: Codebook) -> dict[str, str]:
    """The new-study page set up for a closed study on `codebook`: over the same reports
    (the study's frame, sample and seed) or over a new sample of its frame."""
    base = reverse("studies:new")
    query = {"codebook": codebook.key, "version": codebook.version, "from": study.slug}
    return {
        "same": f"{base}?{urlencode({**query, 'draw': 'same'})}",
        "new": f"{base}?{urlencode({**query, 'draw': 'new'})}",
    }


@require_GET
def board_page(request, slug: str):
    study, access = _study_sorted(request, slug)
    board = study_board_current(study=study)
    frozen = board.frozen_into if board is not None else None
    revision = board is not None and board.kind == Board.Kind.REVISION
    api = reverse("study-board", args=[study.slug])
    config = {
        "api": api,
        "study": study.slug,
        "kind": study.kind,
        "codebook": {"key": study.codebook.key, "version": study.codebook.version},
        "name": study.name,
    }
    return render(
        request,
        "labeler/board.html",
        {
            "study": study,
            "access": access,
            "board": board,
            "frozen": frozen,
            "links": new_study_links(study=study, codebook=frozen) if frozen else None,
            # A revision's key is fixed: say before the freeze when it cannot take a version.
            "freeze_refused": codebook_key_refusal(key=board.base.key, user=request.user)
            if revision and not frozen
            else None,
            "keys": REVISION_KEYS if revision else BOARD_KEYS,
            "card_word": "card" if revision else "code",
            "config": config,
        },
    )


def _carried(study):
    if study.kind != Study.Kind.OPEN:
        raise Http404("a carry-over is the result of an open-coding round")
    board = study_board_current(study=study)
    return board, board_carry_over(board=board)


# Beside the download, in the export's words: codes go into the CSV as annotators wrote them.
CARRY_OVER_AS_WRITTEN = (
    f"Codes, titles and categories are in the CSV exactly as written, nothing escaped: "
    f"{SPREADSHEET_FORMULAS}."
)


@require_GET
def carry_over_page(request, slug: str):
    """The open round's result for its leads: each report's codes and the categories they
    were sorted into; a record only, no labels of any study."""
    study, access = _study_sorted(request, slug)
    board, rows = _carried(study)
    page = Paginator(rows, CARRY_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "labeler/board_carry_over.html",
        {
            "study": study,
            "access": access,
            "board": board,
            "page": page,
            "total": len(rows),
            "as_written": CARRY_OVER_AS_WRITTEN,
        },
    )


@require_GET
def carry_over_csv(request, slug: str):
    study, _ = _study_sorted(request, slug)
    _, rows = _carried(study)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{study.slug}-carry-over.csv"'
    writer = csv.writer(response, lineterminator="\r\n")
    writer.writerow(["item", "report", "title", "dimension", "codes", "categories", "unsorted"])
    for row in rows:
        writer.writerow(
            [
                row.item,
                row.report,
                row.title,
                row.dimension,
                "; ".join(code.name for code in row.codes),
                "; ".join(row.categories),
                "; ".join(row.unsorted),
            ]
        )
    return response


def applying_guidelines(*, codebook: Codebook, source: Study | None) -> str:
    """Guidelines a closed study on `codebook` starts from, for its lead to edit: how to
    apply a frozen scheme (the open round's own guidelines were for writing codes)."""
    where = reverse("taxonomy:codebook-detail", args=[codebook.key, codebook.version])
    made = f", made from the codes of the open-coding study “{source.name}”" if source else ""
    return (
        f"Label each report with the codebook [{codebook.name} ({codebook.key} "
        f"v{codebook.version})]({where}){made}. Its page lists every category with its "
        "definition, criteria and examples.\n\n"
        "- Read the report: its title and text, its comments, and its fix where it has one.\n"
        "- For each dimension, choose the category whose definition fits what the report "
        "shows (several only where the dimension takes several). Between two close ones, "
        "their inclusion and exclusion criteria and their examples decide.\n"
        "- Choose the most specific sub-category that fits; its parent category only when none "
        "of its sub-categories does.\n"
        "- Label what the report says, not what you guess: when it does not say enough, skip it "
        "(not enough information) rather than choose.\n"
        "- When no category fits, or two fit equally, say so in the note: the lead reads the "
        "notes when revising the codebook.\n"
    )


def new_study_initial(request) -> dict:
    """What the new-study page starts from when a frozen board links to it: the codebook
    version (`codebook`, `version`) with guidelines for applying it, and with `from` a study
    its user leads, that study's frame, overlap and item order; `draw=same` also its sample
    and seed: the draw of its first batch again, the same reports as long as the frame
    selects what it did then."""
    query = request.GET
    initial: dict = {}
    key, version, slug = (query.get(name, "") for name in ("codebook", "version", "from"))
    # A name no codebook or study can have names none (and a NUL would fail in the database).
    codebook = None
    if codebook_key_problem(key) is None and version_problem(version) is None:
        codebook = Codebook.objects.filter(key=key, version=version).first()
    source = Study.objects.filter(slug=slug).first() if slug_re.match(slug) else None
    if source is not None and not study_access(user=request.user, study=source).can_lead:
        source = None
    if codebook is not None:
        initial["codebook"] = codebook.pk
        initial["guidelines"] = applying_guidelines(codebook=codebook, source=source)
    if source is None:
        return initial
    frame = source.frame or {}
    sampling = source.sampling or {}
    has_fix = {True: "yes", False: "no"}.get(frame.get("has_fix"), "")
    initial.update(
        {
            "name": f"{source.name}: closed round",
            "slug": f"{source.slug}-closed"[:100],
            "repositories": frame.get("repositories") or [],
            "candidates": frame.get("candidates") or "",
            "state": frame.get("state") or "all",
            "has_fix": has_fix,
            "labels": ", ".join(frame.get("labels") or []),
            "keywords": "\n".join(frame.get("keywords") or []),
            "created_from": frame.get("created_from"),
            "created_to": frame.get("created_to"),
            "overlap": source.overlap,
            "item_order": source.item_order,
        }
    )
    if query.get("draw") == "same":
        initial.update(
            {
                "sample_mode": sampling.get("mode") or "all",
                "sample_size": sampling.get("size"),
                "confidence": sampling.get("confidence") or 0.95,
                "margin": sampling.get("margin") or 0.05,
                "stratify": sampling.get("stratify") or "",
                "seed": source.seed,
            }
        )
    return initial
