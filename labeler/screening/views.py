"""The screening page of a study, for its leads who do not label in it: start a triage run,
follow it, read its quality and estimates beside the ranked reports, and add a prioritised
batch from it. Annotators never reach it (403): no score, rank or model's guess for them."""

from __future__ import annotations

import shlex

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from config.api import MAX_ID
from labeler.common.permissions import SCREENING_LEADS_ONLY as LEADS_ONLY
from labeler.common.permissions import access_screens, study_get_for_user
from labeler.common.scheme import study_scheme
from labeler.models import TriageRun
from labeler.screening.model import THRESHOLD
from labeler.screening.selectors import (
    KEYWORD_FIELDS,
    report_keys,
    study_report_ids,
    triage_run_answer,
    triage_run_get,
    triage_runs,
)
from labeler.screening.services import (
    PRIORITISED_MAX,
    PRIORITY_BY,
    keyword_rule_default,
    prioritised_batch_add,
    triage_run_create,
)
from labeler.screening.tasks import enqueue_triage_run

RANKED_SHOWN = 100
RUNS_SHOWN = 10


def _study(request, slug: str):
    study, access = study_get_for_user(user=request.user, slug=slug)
    if not access_screens(access):
        raise PermissionDenied(LEADS_ONLY)
    return study


def _errors(error: ValidationError) -> list[str]:
    return [f"{name}: {' '.join(texts)}" for name, texts in error.message_dict.items()]


def _form_of(study, run: TriageRun | None, dimensions: list[dict]) -> dict:
    """The form as the run shown was asked for (to run it again changed), or the defaults."""
    if run is not None:
        return {
            "dimension": run.dimension,
            "positive": run.positive,
            "reports": run.reports,
            "keyword_rule": run.keyword_rule,
            "threshold": run.threshold,
        }
    return {
        "dimension": dimensions[0]["key"] if dimensions else "",
        "positive": "",
        "reports": "",
        "keyword_rule": keyword_rule_default(study),
        "threshold": THRESHOLD,
    }


def _command(study, run: TriageRun) -> str:
    """The command that asks what the run asked, its scores into a CSV file."""
    return shlex.join(
        [
            "python",
            "manage.py",
            "triage",
            study.slug,
            "--dimension",
            run.dimension,
            "--positive",
            run.positive,
            *(["--reports", run.reports] if run.reports else []),
            "--keyword-rule",
            run.keyword_rule,
            "--threshold",
            str(run.threshold),
            "--output",
            "scores.csv",
        ]
    )


def _page(request, study, *, run: TriageRun | None, errors=(), form=None):
    scheme = study_scheme(study=study)
    dimensions = [
        {"key": d.key, "name": d.name, "paths": list(scheme.by_path(d))}
        for d in scheme.dimensions
        if not d.multiple
    ]
    answer = triage_run_answer(run=run, limit=0) if run is not None else None
    if answer and answer["scores"] is not None:
        # The page's rows carry each report's id (its link) and whether it is in the study.
        shown = run.scores[:RANKED_SHOWN]
        keys = report_keys(report_ids=[pk for pk, _ in shown])
        in_study = study_report_ids(study=study)
        answer["scores"] = [
            {
                "id": pk,
                "repository": keys[pk][0],
                "number": keys[pk][1],
                "title": keys[pk][2],
                "score": score,
                "in_study": pk in in_study,
            }
            for pk, score in shown
            if pk in keys
        ]
    return render(
        request,
        "labeler/study_triage.html",
        {
            "study": study,
            "dimensions": dimensions,
            "keyword_rules": list(KEYWORD_FIELDS),
            "form": form or _form_of(study, run, dimensions),
            "errors": errors,
            "runs": list(triage_runs(study=study)[:RUNS_SHOWN]),
            "run": run,
            "answer": answer,
            "priority_by": PRIORITY_BY,
            "prioritised_max": PRIORITISED_MAX,
            "ranked_shown": RANKED_SHOWN,
            "command": _command(study, run) if run is not None else "",
        },
        status=400 if errors else 200,
    )


@require_http_methods(["GET", "POST"])
def triage_page(request, slug: str):
    study = _study(request, slug)
    if request.method == "GET":
        latest = triage_runs(study=study).first()
        run = triage_run_get(study=study, run_id=latest.pk) if latest else None
        return _page(request, study, run=run)
    form = {
        name: request.POST.get(name, "").strip()
        for name in ("dimension", "positive", "reports", "keyword_rule", "threshold")
    }
    try:
        threshold = float(form["threshold"] or THRESHOLD)
    except ValueError:
        return _page(
            request, study, run=None, errors=["threshold: a number between 0 and 1"], form=form
        )
    try:
        run = triage_run_create(
            study=study,
            dimension=form["dimension"],
            positive=form["positive"],
            reports=form["reports"],
            keyword_rule=form["keyword_rule"] or None,
            threshold=threshold,
            created_by=request.user,
        )
    except ValidationError as error:
        return _page(request, study, run=None, errors=_errors(error), form=form)
    enqueue_triage_run(run.pk)
    return redirect("studies:triage-run", study.slug, run.pk)


def _run(study, run_id: int) -> TriageRun:
    if run_id > MAX_ID:
        raise Http404(f"no triage run {run_id}")
    try:
        return triage_run_get(study=study, run_id=run_id)
    except TriageRun.DoesNotExist:
        raise Http404(f"no triage run {run_id}") from None


@require_http_methods(["GET"])
def triage_run_page(request, slug: str, run_id: int):
    study = _study(request, slug)
    return _page(request, study, run=_run(study, run_id))


@require_POST
def triage_batch(request, slug: str, run_id: int):
    study = _study(request, slug)
    run = _run(study, run_id)
    count = request.POST.get("count", "")
    if not (count.isascii() and count.isdigit()):
        return _page(request, study, run=run, errors=["count: a whole number of reports"])
    try:
        batch = prioritised_batch_add(
            study=study,
            run=run,
            count=int(count),
            by=request.POST.get("by", "score"),
            created_by=request.user,
        )
    except ValidationError as error:
        return _page(request, study, run=run, errors=_errors(error))
    messages.success(
        request,
        f"Batch {batch.number}: {batch.sample_size} prioritised reports, marked non-random.",
    )
    return redirect("studies:triage-run", study.slug, run.pk)
