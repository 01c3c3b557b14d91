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
            if board is not None and not frozen and board.kind == Board.Kind.REVISION
            else None,
            "keys": BOARD_KEYS,
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


def new_study_initial(request) -> dict:
    """What the new-study page starts from when a frozen board links to it: the codebook
    version (`codebook`, `version`), and with `from` a study its user leads, that study's
    frame, overlap and item order; `draw=same` also its sample and seed: the draw of its
    first batch again, the same reports as long as the frame selects what it did then."""
    query = request.GET
    initial: dict = {}
    key, version, slug = (query.get(name, "") for name in ("codebook", "version", "from"))
    # A name no codebook or study can have names none (and a NUL would fail in the database).
    codebook = None
    if codebook_key_problem(key) is None and version_problem(version) is None:
        codebook = Codebook.objects.filter(key=key, version=version).first()
    if codebook is not None:
        initial["codebook"] = codebook.pk
    source = Study.objects.filter(slug=slug).first() if slug_re.match(slug) else None
    if source is None or not study_access(user=request.user, study=source).can_lead:
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
            "guidelines": source.guidelines,
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
