"""The export page of a study: its datasheet and the downloads, for its leads and researchers."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.shortcuts import render
from django.views.decorators.http import require_GET

from labeler.common.permissions import (
    access_exports,
    access_figures_final_only,
    access_sees_annotator_names,
    study_get_for_user,
)
from labeler.export.dataset import ExportOptions
from labeler.export.pipeline import FORMATS, Export
from mining.markdown import render_markdown


@require_GET
def study_export(request, slug: str):
    study, access = study_get_for_user(user=request.user, slug=slug)
    if not access_exports(access):
        raise PermissionDenied("only the study's leads and researchers export it")
    blind = access_figures_final_only(access)
    export = Export(study=study, fmt="csv", options=ExportOptions(final_only=blind, blind=blind))
    return render(
        request,
        "labeler/study_export.html",
        {
            "study": study,
            "formats": FORMATS,
            "real_names_allowed": access_sees_annotator_names(access),
            "blind": blind,
            # The datasheet's text comes from people (codebook, study names): sanitised, and
            # its headings under the page's <h1>.
            "datasheet_html": render_markdown(export.datasheet_markdown(), heading_offset=1),
        },
    )
