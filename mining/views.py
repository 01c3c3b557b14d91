"""Pages of the mining app: reports (list, detail) and imports (list, start, cancel, re-run)."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from mining import selectors, services, tasks
from mining.filters import ReportFilter
from mining.forms import HELP, CandidateRulesForm
from mining.markdown import render_markdown
from mining.models import BugReport, ImportJob, Repository


def report_list(request):
    filterset = ReportFilter(request.GET, queryset=selectors.report_list())
    page = Paginator(filterset.qs, 50).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "mining/report_list.html",
        {"filter": filterset, "page": page, "query": query.urlencode()},
    )


def report_detail(request, pk: int):
    try:
        report = selectors.report_for_reading(pk)
    except BugReport.DoesNotExist as exc:
        raise Http404("No such report") from exc
    comments = [(c, render_markdown(c.body)) for c in report.comments.all()]
    return render(
        request,
        "mining/report_detail.html",
        {
            "report": report,
            "body_html": render_markdown(report.body),
            "comments": comments,
            "fix_links": list(report.fix_links.all()),
        },
    )


def import_list(request):
    if not request.user.has_perm(services.MANAGE_IMPORTS):
        raise PermissionDenied("You may not manage imports.")
    return render(
        request,
        "mining/import_list.html",
        {
            "jobs": selectors.import_job_list()[:100],
            "can_manage": request.user.has_perm(services.MANAGE_IMPORTS),
            "apis": [ImportJob.Api.GRAPHQL, ImportJob.Api.REST],
        },
    )


def _act(request, action) -> None:
    try:
        job = action()
    except ImportJob.DoesNotExist:
        raise Http404("no such import") from None
    except (ValidationError, PermissionDenied) as exc:
        text = "; ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)
        messages.error(request, text)
        return
    if job is not None:
        messages.success(request, f"Import {job.pk} of {job.repository}: {job.status}.")


@require_POST
def import_start(request):
    def start():
        job = services.import_job_create(
            repository_full_name=request.POST.get("repository", ""),
            api=request.POST.get("api", ImportJob.Api.GRAPHQL),
            issue_state=request.POST.get("state", ImportJob.IssueState.ALL),
            user=request.user,
        )
        tasks.enqueue_import(job.pk)
        return job

    _act(request, start)
    return redirect("mining:import-list")


@require_POST
def import_cancel(request, pk: int):
    _act(request, lambda: services.import_job_cancel(job_id=pk, user=request.user))
    return redirect("mining:import-list")


@require_POST
def import_rerun(request, pk: int):
    def rerun():
        job = services.import_job_rerun(job_id=pk, user=request.user)
        tasks.enqueue_import(job.pk)
        return job

    _act(request, rerun)
    return redirect("mining:import-list")


def candidate_rules(request, repository_id: int):
    """View and (with mining.manage_imports) edit a repository's candidate rules; saving
    reclassifies its reports."""
    if not request.user.has_perm(services.MANAGE_IMPORTS):
        raise PermissionDenied("You may not manage imports.")
    repository = get_object_or_404(Repository, pk=repository_id)
    rules = services.candidate_rules_ensure(repository=repository)
    if request.method == "POST":
        form = CandidateRulesForm(request.POST)
        if form.is_valid():
            try:
                count = services.candidate_rules_update(
                    repository=repository, values=form.values(), user=request.user
                )
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
