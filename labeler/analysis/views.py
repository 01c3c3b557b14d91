"""Analysis pages: two groups of reports compared (any signed-in user, as the reports page),
and a study's final labels counted, crossed, compared and followed over time (its leads and
researchers, and staff)."""

from __future__ import annotations

import shlex
from urllib.parse import urlencode

from django.core.exceptions import PermissionDenied, ValidationError
from django.http import QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from config.csp import chart_styles
from labeler.adjudication.selectors import study_final_labels
from labeler.analysis.comparison import reports_compare, reports_trend
from labeler.analysis.forms import StudyAnalysisForm
from labeler.analysis.groups import groups_prioritised, report_group, report_groups
from labeler.analysis.study import LEVELS, study_crosstab, study_label_counts
from labeler.common.permissions import (
    access_figures_final_only,
    access_sorts_board,
    study_get_for_user,
)
from labeler.common.scheme import study_scheme
from labeler.models import Study
from labeler.screening.selectors import (
    prioritised_batches,
)
from mining.filters import ReportFilter
from mining.selectors import report_repository_names

GROUPS = ("a", "b")


def _group_query(params: QueryDict, name: str) -> str:
    """A group's QUERY from its form fields (`a-repository`, ...), left out those that filter
    nothing (empty, or "unknown" for whether it has a fix); kept are the fields the form
    does not know (a study's final labels) and those it refuses, for the error to name."""
    prefix = f"{name}-"
    form = ReportFilter(params, prefix=name).form
    form.is_valid()
    unset = {
        field
        for field, value in getattr(form, "cleaned_data", {}).items()
        if value in (None, "") and field not in form.errors
    }
    return urlencode(
        [
            (key.removeprefix(prefix), value)
            for key, values in params.lists()
            if key.startswith(prefix) and key.removeprefix(prefix) not in unset
            for value in values
            if value != ""
        ]
    )


def _group_form(name: str, query: str) -> dict:
    """The reports filter form of a group, filled from its QUERY; parameters the form has no
    field for (a study's final labels) are kept as they are."""
    params = QueryDict(query)
    data = QueryDict(mutable=True)
    kept = []
    for key, values in params.lists():
        if key in ReportFilter.base_filters:
            data.setlist(f"{name}-{key}", values)
        else:
            kept += [(key, value) for value in values]
    return {
        "name": name,
        "query": query,
        "form": ReportFilter(data, prefix=name).form,
        "kept": kept,
        "errors": [],
    }


def _command(a: str, b: str) -> str:
    return shlex.join(["python", "manage.py", "compare_reports", "--a", a, "--b", b])


@require_GET
@chart_styles
def reports_compare_page(request):
    if any(key.startswith(f"{name}-") for key in request.GET for name in GROUPS):
        queries = {name: _group_query(request.GET, name) for name in GROUPS}
        queries["of"] = request.GET.get("of", "")
        return redirect(f"{reverse('reports-compare')}?{urlencode(queries)}")
    queries = {name: request.GET.get(name, "") for name in GROUPS}
    of = request.GET.get("of", "")
    groups = [_group_form(name, queries[name]) for name in GROUPS]
    context = {"groups": groups, "of": of, "of_errors": [], "comparison": None}
    status = 200
    if any(name in request.GET for name in (*GROUPS, "of")):
        try:
            context |= _compare(request.user, queries, of)
        except ValidationError as error:
            status = 400
            for group in groups:
                group["errors"] = error.message_dict.get(group["name"], [])
            context["of_errors"] = error.message_dict.get("of", [])
    return render(request, "labeler/reports_compare.html", context, status=status)


def _compare(user, queries: dict[str, str], of: str) -> dict:
    """The comparison of groups a and b, and each one's monthly share of the reports `of`
    selects."""
    errors = {}
    try:
        a, b = report_groups(queries=queries, user=user)
    except ValidationError as error:
        errors |= error.message_dict
    try:
        base = report_group(name="of", query=of, user=user)
    except ValidationError as error:
        errors |= error.message_dict
    if errors:
        raise ValidationError(errors)
    within = [
        report_group(name=name.upper(), query=queries[name], user=user, within=base.reports)
        for name in GROUPS
    ]
    trend = reports_trend(groups=within, base=base.reports)
    return {
        "comparison": reports_compare(a=a, b=b),
        "prioritised": groups_prioritised(queries=[queries[name] for name in GROUPS]),
        "trend": trend,
        "trend_rows": trend_rows(trend),
        "trend_base": f"the reports of “{of}”" if of else "every imported report",
        "command": _command(queries["a"], queries["b"]),
        "api_url": f"{reverse('api-reports-compare')}?{urlencode({n: queries[n] for n in GROUPS})}",
    }


def trend_rows(trend: dict) -> list[dict]:
    """The trend by month, as the table shows it: each group's (count, share), and the total."""
    return [
        {
            "month": month,
            "total": trend["totals"][index],
            "cells": [
                (group["counts"][index], group["shares"][index]) for group in trend["groups"]
            ],
        }
        for index, month in enumerate(trend["months"])
    ]


@require_GET
@chart_styles
def study_analysis(request, slug: str):
    study, access = study_get_for_user(user=request.user, slug=slug)
    if not access.can_analyse:
        raise PermissionDenied("only the study's leads and researchers may see its analysis")
    if study.kind == Study.Kind.OPEN:  # codes, never final labels: say where its result is
        context = {"study": study, "sorts_board": access_sorts_board(access, study=study)}
        return render(request, "labeler/study_analysis_open.html", context)
    scheme = study_scheme(study=study)
    rows = study_final_labels(study=study)
    form = StudyAnalysisForm(request.GET or StudyAnalysisForm.defaults(scheme), scheme=scheme)
    context = {
        "study": study,
        "form": form,
        "counts": study_label_counts(scheme=scheme, rows=rows),
        "items_final": len({row.item_id for row in rows}),
        "items": study.items.count(),
        "prioritised_batches": prioritised_batches(study=study),
        # Which batch a model chose would tell whoever labels in the study its guess for items.
        "prioritised_named": not access_figures_final_only(access),
    }
    status = 200
    if not form.is_valid():
        return render(request, "labeler/study_analysis.html", context, status=400)
    data = form.cleaned_data
    context["crosstab"] = study_crosstab(
        scheme=scheme,
        rows=rows,
        repositories=report_repository_names(report_ids={row.report_id for row in rows}),
        row_axis=data["rows"],
        column_axis=data["columns"],
        level=data["level"],
    )
    context["crosstab_axes"] = (
        dict(form.fields["rows"].choices)[data["rows"]],
        dict(form.fields["columns"].choices)[data["columns"]],
        LEVELS[data["level"]],
    )
    queries = {name: form.group_query(name, study_slug=study.slug) for name in GROUPS}
    try:
        a, b = report_groups(queries=queries, user=request.user)
    except ValidationError as error:
        status = 400
        for name, messages in error.message_dict.items():
            for message in messages:
                form.add_error(f"{name}_query", message)
    else:
        context["comparison"] = reports_compare(a=a, b=b)
        context["command"] = _command(queries["a"], queries["b"])
    group_query, base_query = form.trend_queries(study_slug=study.slug)
    base = report_group(name="base", query=base_query, user=request.user)
    label = dict(form.fields["trend"].choices)[data["trend"]]
    group = report_group(name=label, query=group_query, user=request.user, within=base.reports)
    trend = reports_trend(groups=[group], base=base.reports)
    context |= {
        "trend": trend,
        "trend_rows": trend_rows(trend),
        "trend_base": "the items with a final label on its dimension",
    }
    return render(request, "labeler/study_analysis.html", context, status=status)
