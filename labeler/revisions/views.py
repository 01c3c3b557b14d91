"""A study's move to a later version of its codebook: the plan with its counts, for the
study's leads, and the button that runs it (labeler.revisions.services)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from labeler.common.permissions import study_get_for_user
from labeler.common.views import require_lead
from labeler.models import Study
from labeler.revisions.selectors import study_revision_plan
from labeler.revisions.services import COUNTS, study_revise
from taxonomy.models import Codebook


@require_http_methods(["GET", "POST"])
def revision_page(request, slug: str, version: str):
    study, access = study_get_for_user(user=request.user, slug=slug)
    require_lead(access)
    source = Codebook.objects.get(pk=study.codebook_id)
    study.codebook = source
    target = get_object_or_404(Codebook, key=source.key, version=version)
    context = {"study": study, "source": source, "target": target}
    if study.kind == Study.Kind.OPEN:
        context["errors"] = [
            f"{study.name} is an open-coding round: it has no labels to move to another "
            "version; its code board freezes into a version that a closed study labels with"
        ]
        return render(request, "labeler/revision.html", context, status=400)
    try:
        if request.method == "POST":
            outcome = study_revise(study=study, codebook=target, user=request.user)
            counts = outcome.counts
            messages.success(
                request,
                f"Study moved to {target.key} v{target.version}: "
                f"{counts['annotations_carried']} labels carried over, "
                f"{counts['annotations_relabel']} to label again, "
                f"{counts['finals_reopened']} final labels reopened.",
            )
            return redirect("studies:detail", study.slug)
        plan = study_revision_plan(study=study, target=target)
    except ValidationError as error:
        context["errors"] = error.messages
        return render(request, "labeler/revision.html", context, status=400)
    counts = plan.counts
    context.update(
        plan=plan,
        counts=[(counts[name], what) for name, what in COUNTS],
        categories=plan.categories,
    )
    return render(request, "labeler/revision.html", context)
