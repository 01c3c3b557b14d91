"""Reads of open coding: a study's code board, the codes of an assignment, the codes in use
(for completion while labelling) and the round's saturation.

An assignment's codes are read as its annotator wrote them (its current version's); the
board's names (after renames and merges) are for whoever sees every code.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, F, OuterRef, Subquery

from labeler.coding.saturation import Coding, Saturation, saturation
from labeler.common.names import annotator_names
from labeler.common.scheme import code_normalise
from labeler.models import AnnotationVersion, Assignment, Board, Code, CodeUse, Study
from taxonomy.models import Dimension

# Completions offered while typing a code.
COMPLETIONS = 20
COMPLETIONS_MAX = 500


def study_open_board(*, study_id: int) -> Board | None:
    """The board of the study's codes: the one being sorted, else the latest frozen one; None
    for a study without codes (closed coding)."""
    return (
        Board.objects.filter(study_id=study_id, kind=Board.Kind.OPEN)
        .select_related("frozen_into")
        .order_by(F("frozen_at").desc(nulls_first=True), "-created_at", "-pk")
        .first()
    )


def assignment_codes(*, assignment: Assignment) -> dict[str, list[str]]:
    """The assignment's codes as written, {dimension key: [codes]}: those of its current
    version (none before its first submission)."""
    codes = (
        AnnotationVersion.objects.filter(assignment=assignment, number=assignment.version)
        .values_list("codes", flat=True)
        .first()
    )
    return codes or {}


def current_codes() -> Subquery:
    """An assignment's codes as written (see assignment_codes), as a column of a queryset of
    assignments: no query of its own."""
    return Subquery(
        AnnotationVersion.objects.filter(
            assignment=OuterRef("pk"), number=OuterRef("version")
        ).values("codes")[:1]
    )


@dataclass(frozen=True)
class CodeInUse:
    dimension: str
    name: str
    uses: int


def study_codes_in_use(
    *,
    study: Study,
    user,
    everyone: bool,
    dimension: Dimension | None = None,
    query: str = "",
    limit: int = COMPLETIONS,
) -> list[CodeInUse]:
    """The codes in use in the study (one use at least), most used first: with `everyone`,
    every annotator's, named as the board names them now; else only those `user` wrote, as
    they wrote them (one entry per name whatever its case, in its most used form), so that
    nobody learns another's codes from a board change. `query`: names containing it, in any
    case. Two queries."""
    board = study_open_board(study_id=study.pk)
    if board is None:
        return []
    query = code_normalise(query)
    if everyone:
        codes = Code.objects.filter(board=board, merged_into__isnull=True)
        if dimension is not None:
            codes = codes.filter(dimension=dimension)
        if query:
            codes = codes.filter(name__icontains=query)
        rows = (
            codes.annotate(count=Count("uses"))
            .filter(count__gt=0)
            .order_by("-count", "dimension__position", "name")
            .values_list("dimension__key", "name", "count")[:limit]
        )
        return [CodeInUse(key, name, count) for key, name, count in rows]
    uses = CodeUse.objects.filter(code__board=board, annotator=user)
    if dimension is not None:
        uses = uses.filter(code__dimension=dimension)
    if query:
        uses = uses.filter(written_as__icontains=query)
    rows = (
        uses.values_list("code__dimension__key", "code__dimension__position", "written_as")
        .annotate(count=Count("pk"))
        .order_by("-count", "written_as")
    )
    merged: dict[tuple[str, str], list] = {}
    for key, position, written, count in rows:
        entry = merged.setdefault((key, written.casefold()), [position, written, 0])
        entry[2] += count
    ordered = sorted(merged.items(), key=lambda pair: (-pair[1][2], pair[1][0], pair[1][1]))
    return [CodeInUse(key, written, count) for (key, _), (_, written, count) in ordered[:limit]]


def _resolver(study: Study):
    """code id -> the code it was merged into, through every merge (the board's codes now)."""
    merged = dict(
        Code.objects.filter(board__study=study, merged_into__isnull=False).values_list(
            "pk", "merged_into_id"
        )
    )

    def resolve(code_id: int) -> int:
        seen = {code_id}
        while code_id in merged and merged[code_id] not in seen:
            code_id = merged[code_id]
            seen.add(code_id)
        return code_id

    return resolve


@dataclass(frozen=True)
class StudySaturation:
    """The study's saturation with its annotators by the names shown (usernames or
    pseudonyms), and the dimension it is about (None: every dimension)."""

    saturation: Saturation
    dimension: Dimension | None


def study_saturation(
    *, study: Study, dimension: Dimension | None = None, pseudonyms: bool
) -> StudySaturation:
    """Distinct codes after each N reports coded (see labeler.coding.saturation), every
    submission in the order of its first submission, with the codes as the board resolves
    them now: after renames and merges (a merged code counts as the code it went into).
    Annotators by username, or by the study's pseudonyms. Four queries."""
    names = annotator_names(study=study, real_names=not pseudonyms)
    uses = CodeUse.objects.filter(item__study=study, code__board__kind=Board.Kind.OPEN)
    if dimension is not None:
        uses = uses.filter(code__dimension=dimension)
    resolve = _resolver(study)
    codes: dict[int, set[int]] = {}
    for assignment_id, code_id in uses.values_list("assignment_id", "code_id"):
        codes.setdefault(assignment_id, set()).add(resolve(code_id))
    submitted = (
        Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED)
        .order_by("submitted_at", "pk")
        .values_list("pk", "annotator_id", "item_id")
    )
    found = saturation(
        Coding(
            annotator=names.get(annotator_id, f"user {annotator_id}"),
            item=item_id,
            codes=frozenset(codes.get(assignment_id, ())),
        )
        for assignment_id, annotator_id, item_id in submitted
    )
    return StudySaturation(saturation=found, dimension=dimension)
