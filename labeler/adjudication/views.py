"""Adjudication pages, for the study's leads who do not label in it (and staff): the
disagreement queue (unanimous items listed apart), an item side by side where the lead decides
its final labels, and the study's policy for majority answers."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST

from labeler.adjudication.selectors import QUEUE_ORDERINGS, queue_items, study_disagreements
from labeler.adjudication.services import study_majority_set
from labeler.common.names import reason_names
from labeler.common.permissions import access_adjudicates, study_get_for_user
from labeler.common.scheme import study_scheme
from labeler.common.views import require_lead, url_template
from labeler.models import Study, StudyItem

LEADS_ONLY = "only the study's leads who do not label in it adjudicate"
QUEUE_PER_PAGE = 100
ORDERING_NAMES = {
    "split": "most split first",
    "-split": "closest calls first",
    "position": "hand-out order",
}


def _study_adjudicated(request, slug: str):
    study, access = study_get_for_user(user=request.user, slug=slug)
    if not access_adjudicates(access):
        raise PermissionDenied(LEADS_ONLY)
    if study.kind == Study.Kind.OPEN:
        raise PermissionDenied(
            f"{study.name} is an open-coding round: its items are never adjudicated; its result "
            "is the code board"
        )
    return study, access


@require_GET
def adjudication_queue(request, slug: str):
    """Complete items whose annotators differ on a dimension, sorted by how split they are
    (or one dimension's split); unanimous items on their own tab."""
    study, access = _study_adjudicated(request, slug)
    scheme = study_scheme(study=study)
    keys = [d.key for d in scheme.dimensions]
    ordering = request.GET.get("ordering") or "split"
    if ordering not in QUEUE_ORDERINGS:
        messages.error(request, f"ordering {ordering!r} is not one of {', '.join(QUEUE_ORDERINGS)}")
        ordering = "split"
    dimension = request.GET.get("dimension") or None
    if dimension is not None and dimension not in keys:
        messages.error(request, f"dimension {dimension!r} is not one of {', '.join(keys)}")
        dimension = None
    unanimous = request.GET.get("show") == "unanimous"
    entries = study_disagreements(
        study=study, scheme=scheme, dimension=dimension, ordering=ordering, unanimous=unanimous
    )
    page = Paginator(entries, QUEUE_PER_PAGE).get_page(request.GET.get("page"))
    shown = queue_items(item_ids=[entry.item_id for entry in page])
    rows = [{"entry": entry, **shown[entry.item_id]} for entry in page]

    def count(of_unanimous: bool) -> int:
        """Items on a tab, whatever dimension the queue is narrowed to."""
        if of_unanimous == unanimous and dimension is None:
            return len(entries)
        return len(study_disagreements(study=study, scheme=scheme, unanimous=of_unanimous))

    return render(
        request,
        "labeler/adjudicate_queue.html",
        {
            "study": study,
            "access": access,
            "page": page,
            "rows": rows,
            "dimensions": scheme.dimensions,
            "dimension": dimension or "",
            "ordering": ordering,
            "orderings": ORDERING_NAMES,
            "show": "unanimous" if unanimous else "disputed",
            "counts": {"disputed": count(False), "unanimous": count(True)},
            "query": urlencode(
                {
                    "show": "unanimous" if unanimous else "disputed",
                    "dimension": dimension or "",
                    "ordering": ordering,
                }
            ),
        },
    )


def _choosable(categories, dimension) -> list:
    if not dimension.leaf_only:
        return list(categories)
    parents = {category.parent_id for category in categories}
    return [category for category in categories if category.pk not in parents]


@require_GET
def adjudication_item(request, slug: str, item_id: int):
    """The adjudication desk, opened on an item: the page's script reads it side by side from
    the adjudication API, shows the report with the labelling page's report view and sends the
    lead's decision; then it shows the next disagreement (fetched while the lead read) without
    a page load, the address naming the item shown."""
    study, access = _study_adjudicated(request, slug)
    item = get_object_or_404(
        StudyItem.objects.select_related("report__repository"), study=study, pk=item_id
    )
    scheme = study_scheme(study=study)
    config = {
        "item": item.pk,
        "reasons": [
            {"value": v, "name": short, "label": label} for v, short, label in reason_names()
        ],
        "dimensions": [
            {
                "key": dimension.key,
                "name": dimension.name,
                "multiple": dimension.multiple,
                # What a lead may enter instead: on a leaf-only dimension, no parent category.
                "categories": [
                    {"path": category.path, "name": category.name}
                    for category in _choosable(scheme.categories[dimension.pk], dimension)
                ],
            }
            for dimension in scheme.dimensions
        ],
        "urls": {
            "side": url_template("item-adjudication"),
            "adjudicate": url_template("item-adjudicate"),
            "reopen": url_template("item-reopen"),
            "report": url_template("studies:item-report", study.slug),
            "page": url_template("studies:adjudicate-item", study.slug),
            "history": url_template("studies:item-history", study.slug),
            "queue": reverse("studies:adjudicate", args=[study.slug]),
            "next": reverse("study-disagreements-next", args=[study.slug]),
        },
    }
    return render(
        request,
        "labeler/adjudicate_item.html",
        {"study": study, "access": access, "item": item, "config": config},
    )


@require_POST
def study_policy(request, slug: str):
    """A lead sets what happens to majority answers; the items the new policy accepts become
    final at once."""
    study, access = study_get_for_user(user=request.user, slug=slug)
    require_lead(access)
    back = reverse(
        "studies:adjudicate" if request.POST.get("back") == "queue" else "studies:detail",
        args=[study.slug],
    )
    if study.kind == Study.Kind.OPEN:
        messages.error(
            request,
            f"{study.name} is an open-coding round: it has no majority policy, its items are "
            "never decided",
        )
        return redirect("studies:detail", study.slug)
    majority = request.POST.get("majority")
    if majority not in Study.Majority.values:
        known = ", ".join(Study.Majority.values)
        messages.error(request, f"majority policy {majority!r} is not one of {known}")
        return redirect(back)
    finalised = study_majority_set(study=study, majority=majority)
    became = f"; {finalised} item{'s' if finalised != 1 else ''} became final" if finalised else ""
    messages.success(request, f"Majority answers are now {Study.Majority(majority).label}{became}.")
    return redirect(back)
