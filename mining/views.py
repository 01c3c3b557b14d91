"""Pages of the mining app: reports (list, detail) and imports (list, start, cancel, re-run)."""

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from mining import selectors, tasks
from mining.filters import ReportFilter
from mining.forms import HELP, CandidateRulesForm
from mining.models import BugReport, ImportJob, Repository
from mining.permissions import (
    MANAGE_IMPORTS_REFUSED,
    require_manage_imports,
    user_can_manage_imports,
)
from mining.serializers import ReportDetailSerializer
from mining.services.candidate_rules import candidate_rules_ensure, candidate_rules_update
from mining.services.import_jobs import import_job_cancel, import_job_create, import_job_rerun


def report_list(request):
    filterset = ReportFilter(request.GET, queryset=selectors.report_list())
    # A filter that cannot be read shows no reports rather than all of them, unfiltered.
    reports = filterset.qs if filterset.is_valid() else selectors.report_list().none()
    page = Paginator(reports, 50).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    form = filterset.form
    errors = [
        f"{form.fields[name].label}: {message}"
        for name, messages in filterset.errors.items()
        for message in messages
    ]
    return render(
        request,
        "mining/report_list.html",
        {"filter": filterset, "page": page, "query": query.urlencode(), "filter_errors": errors},
    )


def report_detail(request, pk: int):
    patches = tasks.report_patches_request(report_id=pk)
    try:
        report = selectors.report_for_reading(pk)
    except BugReport.DoesNotExist as exc:
        raise Http404("No such report") from exc
    # The API's representation of the report, so the page shows what every other view shows.
    return render(
        request,
        "mining/report_detail.html",
        {"report": ReportDetailSerializer(report).data, "patches": patches},
    )


def _with_stall_notes(jobs) -> list[ImportJob]:
    jobs = list(jobs)
    for job in jobs:
        job.stall_note = selectors.import_job_stall_note(job)
    return jobs


def import_list(request, typed=None, status=200):
    """The jobs, and the form to start one (`typed`: what was typed before an error)."""
    require_manage_imports(request.user)
    return render(
        request,
        "mining/import_list.html",
        {
            "jobs": _with_stall_notes(selectors.import_job_list()[:100]),
            "can_manage": user_can_manage_imports(request.user),
            "apis": [ImportJob.Api.GRAPHQL, ImportJob.Api.REST],
            "typed": typed or {},
            "has_token": bool(settings.GITHUB_TOKENS),
        },
        status=status,
    )


def _act(request, action):
    """Run an import action for a manager: the job it made or changed, or None (anyone else,
    and a refused action, get a message on the imports page instead)."""
    if not user_can_manage_imports(request.user):
        messages.error(request, MANAGE_IMPORTS_REFUSED)
        return None
    try:
        job = action()
    except ImportJob.DoesNotExist:
        raise Http404("no such import") from None
    except ValidationError as exc:
        messages.error(request, "; ".join(exc.messages))
        return None
    if job is not None:
        messages.success(request, f"Import {job.pk} of {job.repository}: {job.status}.")
    return job


@require_POST
def import_start(request):
    def start():
        job = import_job_create(
            repository_full_name=request.POST.get("repository", ""),
            api=request.POST.get("api", ImportJob.Api.GRAPHQL),
            issue_state=request.POST.get("state", ImportJob.IssueState.ALL),
            created_by=request.user,
        )
        tasks.enqueue_import(job.pk)
        return job

    if _act(request, start) is None:
        return import_list(request, typed=request.POST, status=400)
    return redirect("mining:import-list")


@require_POST
def import_cancel(request, pk: int):
    _act(request, lambda: import_job_cancel(job_id=pk))
    return redirect("mining:import-list")


@require_POST
def import_rerun(request, pk: int):
    def rerun():
        job = import_job_rerun(job_id=pk, created_by=request.user)
        tasks.enqueue_import(job.pk)
        return job

    _act(request, rerun)
    return redirect("mining:import-list")


def candidate_rules(request, repository_id: int):
    """View and (with mining.manage_imports) edit a repository's candidate rules; saving
    reclassifies its reports."""
    require_manage_imports(request.user)
    repository = get_object_or_404(Repository, pk=repository_id)
    rules = candidate_rules_ensure(repository=repository)
    if request.method == "POST":
        form = CandidateRulesForm(request.POST)
        if form.is_valid():
            try:
                count = candidate_rules_update(repository=repository, values=form.values())
            except ValidationError as exc:
                form.add_service_errors(exc)
            else:
                messages.success(
                    request, f"Candidate rules of {repository} saved; {count} reports reclassified."
                )
                return redirect("mining:candidate-rules", repository_id=repository.pk)
    else:
        form = CandidateRulesForm(initial=CandidateRulesForm.initial_from(rules))
    return render(
        request,
        "mining/candidate_rules.html",
        {"repository": repository, "form": form, "help": HELP},
    )
