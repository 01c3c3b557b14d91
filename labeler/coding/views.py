"""The open-coding block of a study's page: how the round runs, its code board, and its
saturation (chart, table and CSV) for leads and researchers."""

from __future__ import annotations

from labeler.coding.board.selectors import board_figures
from labeler.coding.saturation import Saturation
from labeler.coding.selectors import study_open_board, study_saturation
from labeler.common.permissions import (
    StudyAccess,
    access_sees_agreement,
    access_sees_all_codes,
    access_sees_annotator_names,
)
from labeler.models import Study
from taxonomy.models import Category


def saturation_table(found: Saturation) -> dict:
    """One row per N reports coded: the team's distinct codes, then each annotator's (None
    past the reports they coded)."""
    names = list(found.annotators)
    return {
        "annotators": names,
        "rows": [
            {
                "reports": index + 1,
                "team": team,
                "cells": [
                    curve[index] if index < len(curve) else None
                    for curve in found.annotators.values()
                ],
            }
            for index, team in enumerate(found.team)
        ],
    }


def open_coding_context(*, study: Study, access: StudyAccess) -> dict:
    """`open_coding` for the study page of an open study; nothing for a closed one. The
    board's figures (codes, cards, categories) and the saturation count every annotator's
    codes: shown only to whoever may read them all."""
    if study.kind != Study.Kind.OPEN:
        return {}
    board = study_open_board(study_id=study.pk)
    block = {
        "board": board,
        "shared": study.codes_shared,
        "categories": Category.objects.filter(dimension__studies=study).exists(),
    }
    # Saturation counts every annotator's codes report by report: hidden from whoever codes
    # in the study unless it shares codes (blind by person, labeler.common.permissions).
    if access_sees_agreement(access) and access_sees_all_codes(access, shared=study.codes_shared):
        found = study_saturation(
            study=study, pseudonyms=not access_sees_annotator_names(access)
        ).saturation
        block["saturation"] = saturation_table(found)
        block["pseudonyms"] = not access_sees_annotator_names(access)
        if board is not None:
            block["figures"] = board_figures(board=board)
    return {"open_coding": block}
