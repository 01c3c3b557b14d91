"""API of a study's move to a later version of its codebook (labeler.revisions.services):

- `GET /api/studies/{slug}/codebook-migration/{version}/`: the plan as it would go now, what
  becomes of each category in use and the counts, writing nothing (the command's --dry-run);
- `POST` to the same address: the migration itself, answering its record and counts.

The study's leads only (and staff), as on the page and with the command. A version the
codebook does not have is a 404 naming those it has; a version that is not a revision of the
study's, and a dimension the new version lacks, a 400; items annotators hold right now, a 409
(try again once they are submitted or their holds expire). A migration posted while another
of the study runs waits for it, then is refused as a repeat is (a 400 saying the version the
study is on now), with nothing written.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from labeler.common.permissions import study_get_for_user
from labeler.models import CodebookMigration
from labeler.revisions.selectors import RevisionPlan, study_revision_plan
from labeler.revisions.services import study_revise
from taxonomy.models import Codebook


def _version(codebook: Codebook) -> dict:
    return {"key": codebook.key, "version": codebook.version}


def _plan_json(plan: RevisionPlan) -> dict:
    return {
        "study": plan.study.slug,
        "from": _version(plan.source),
        "to": _version(plan.target),
        "holds": plan.holds,
        "counts": plan.counts,
        "categories": [
            {
                "dimension": move.dimension,
                "path": move.path,
                "change": move.change,
                "into": move.into,
                "annotations": move.annotations,
                "finals": move.finals,
            }
            for move in plan.categories
        ],
    }


def _record_json(record: CodebookMigration) -> dict:
    return {
        "id": record.pk,
        "study": record.study.slug,
        "from": _version(record.from_codebook),
        "to": _version(record.to_codebook),
        "migrated_by": record.migrated_by.username if record.migrated_by else None,
        "created_at": record.created_at.isoformat(),
        "reason": record.reason,
        "counts": record.counts,
    }


class StudyRevisionView(APIView):
    """Move the study, its labels with it, to a later version of its codebook: renamed and
    merged categories carry over, labels on a split or removed one go back to their annotators
    for re-labelling, and final labels touching them are reopened. GET plans it and writes
    nothing; POST does it. Leads of the study only."""

    def _target(self, request, slug: str, version: str):
        study, access = study_get_for_user(user=request.user, slug=slug)
        if not access.can_lead:
            raise PermissionDenied("only the study's leads move it to another codebook version")
        source = Codebook.objects.get(pk=study.codebook_id)
        target = Codebook.objects.filter(key=source.key, version=version).first()
        if target is None:
            known = ", ".join(
                Codebook.objects.filter(key=source.key)
                .order_by("created_at", "pk")
                .values_list("version", flat=True)
            )
            raise NotFound(f"codebook {source.key!r} has no version {version!r} (it has: {known})")
        study.codebook = source
        return study, target

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request, slug: str, version: str):
        study, target = self._target(request, slug, version)
        return Response(_plan_json(study_revision_plan(study=study, target=target)))

    @extend_schema(request=None, responses=OpenApiTypes.OBJECT)
    def post(self, request, slug: str, version: str):
        study, target = self._target(request, slug, version)
        outcome = study_revise(study=study, codebook=target, user=request.user)
        return Response(_record_json(outcome.record), status=201)


urlpatterns = [
    path(
        "studies/<slug:slug>/codebook-migration/<str:version>/",
        StudyRevisionView.as_view(),
        name="study-codebook-migration",
    ),
]
