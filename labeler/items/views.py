"""The items of a study: the list for its leads, an item's history, and its report for
reading while labelling."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from labeler.adjudication.selectors import item_decisions, item_decisions_visible
from labeler.common.names import LabelNames, annotator_namer, names_as_labelled
from labeler.common.permissions import study_get_for_user
from labeler.common.scheme import study_scheme
from labeler.common.views import require_lead
from labeler.items.selectors import (
    ITEM_STATES,
    item_history,
    study_item_state_counts,
    study_items_overview,
)
from labeler.models import FinalMethod, StudyItem
from mining.serializers import report_reading
from mining.tasks import report_patches_request


def _item_for(request, slug: str, item_id: int):
    study, access = study_get_for_user(user=request.user, slug=slug)
    item = get_object_or_404(
        StudyItem.objects.select_related("report__repository"), study=study, pk=item_id
    )
    return study, access, item


ITEMS_PER_PAGE = 100


@require_GET
def study_items(request, slug: str):
    """Every item of the study with its counts, filtered by state, for the study's leads."""
    study, access = study_get_for_user(user=request.user, slug=slug)
    require_lead(access)
    state = request.GET.get("state") or None
    if state is not None and state not in ITEM_STATES:
        known = ", ".join(ITEM_STATES)
        messages.error(request, f"state {state!r} is not one of {known}; showing every item")
        state = None
    items = study_items_overview(study=study, state=state)
    page = Paginator(items, ITEMS_PER_PAGE).get_page(request.GET.get("page"))
    page.object_list = list(page.object_list)
    for item in page.object_list:
        # How the item became final, in FinalMethod's order: "unanimous", "majority, adjudicated".
        item.final_how = ", ".join(m for m in FinalMethod.values if m in item.final_methods)
    counts = study_item_state_counts(study=study)
    states = [("", "all", "every item", counts["all"])] + [
        (name, name.replace("-", " "), what, counts[name])
        for name, (what, _) in ITEM_STATES.items()
    ]
    return render(
        request,
        "labeler/study_items.html",
        {
            "study": study,
            "page": page,
            "state": state or "",
            "states": states,
            "query": urlencode({"state": state or ""}),
        },
    )


@require_GET
def item_history_page(request, slug: str, item_id: int):
    study, access, item = _item_for(request, slug, item_id)
    scheme = study_scheme(study=study)
    names = LabelNames(scheme)
    # Who labelled what is for the study's leads: everyone else sees pseudonyms but their own.
    name_of = annotator_namer(study=study, user=request.user, access=access)
    shown = list(item_history(item=item, user=request.user, access=access))
    names_of = names_as_labelled(study=study, scheme=scheme, versions=shown)
    versions = [
        {
            "version": version,
            "annotator": name_of(version.annotator),
            "labels": names_of[version.pk].labels(version.labels),
            "codes": names_of[version.pk].codes(version.codes),
            "changes": names_of[version.pk].changes(version.changes),
        }
        for version in shown
    ]
    return render(
        request,
        "labeler/item_history.html",
        {
            "study": study,
            "access": access,
            "item": item,
            "versions": versions,
            "decisions": _decisions(item, scheme, names, request.user, access, study.majority),
        },
    )


def _decisions(item, scheme, names, user, access, majority) -> dict | None:
    """The item's final labels, the dimensions its annotators disagreed on and every decision,
    named as people read them; None for whom it is still hidden."""
    if not item_decisions_visible(item=item, user=user, access=access):
        return None
    found = item_decisions(item=item, scheme=scheme, majority=majority)
    disagreed = set(found["disagreed"])
    return {
        **found,
        "disagreed_names": [names.dimension_name(key) for key in found["disagreed"]],
        "labels": [
            {
                **label,
                "name": names.dimension_name(label["dimension"]),
                "named": names.values(label["dimension"], label["values"]),
                "disputed": label["dimension"] in disagreed,
                "reason_name": label["reason"].replace("_", " "),
            }
            for label in found["labels"]
        ],
        "history": [
            {
                **event,
                # As decided: the names of the codebook version it was decided under.
                "name": event["dimension_name"],
                "named": [(c["name"], c["path"]) for c in event["categories"]],
                "disputed": event["dimension"] in disagreed,
                "reason_name": (event["reason"] or "").replace("_", " "),
            }
            for event in found["history"]
        ],
    }


@require_GET
def item_report(request, slug: str, item_id: int):
    """The item's report for reading while labelling or adjudicating, as the report API and
    `next` show it (mining.serializers.report_reading: Markdown rendered and sanitised on the
    server), with where its fix commits' patches stand (asked for when missing).

    Annotators read only items they were handed; leads and researchers read any item.
    Nothing here carries anyone's labels.
    """
    _study, access, item = _item_for(request, slug, item_id)
    if (
        not access.can_view_progress
        and not item.assignments.filter(annotator=request.user).exists()
    ):
        raise PermissionDenied("this item was not handed to you")
    patches = report_patches_request(report_id=item.report_id)
    return JsonResponse({**report_reading(report_id=item.report_id), "patches": patches})
