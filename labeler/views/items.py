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

from labeler.adjudication import item_decisions, item_decisions_visible, study_pseudonyms
from labeler.labels import Scheme, study_scheme
from labeler.models import CodebookMigration, StudyItem
from labeler.permissions import access_sees_annotator_names, study_get_for_user
from labeler.selectors import (
    ITEM_STATES,
    item_history,
    study_item_state_counts,
    study_items_overview,
)
from labeler.views.common import require_lead
from mining.selectors import report_for_reading
from mining.serializers import ReportDetailSerializer
from mining.tasks import report_patches_request
from taxonomy.models import Category, Dimension


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
    names = _LabelNames(scheme)
    # Who labelled what is for the study's leads: everyone else sees pseudonyms but their own.
    pseudonyms = None if access_sees_annotator_names(access) else study_pseudonyms(study=study)
    shown = list(item_history(item=item, user=request.user, access=access))
    names_of = _names_as_labelled(study, scheme, shown)
    versions = [
        {
            "version": version,
            "annotator": version.annotator.get_username()
            if pseudonyms is None or version.annotator_id == request.user.pk
            else pseudonyms.get(version.annotator_id, "another annotator"),
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


def _names_as_labelled(study, scheme: Scheme, versions) -> dict[int, _LabelNames]:
    """Per version, the names of the codebook version it was labelled against: a migration's
    version, the one it migrated to; any other, the one the study had when it was made (the
    version migrated from by the first migration after it, else the study's own). A version
    a study pinned is frozen, so these are the names as they were."""
    migrations = list(
        CodebookMigration.objects.filter(study=study)
        .order_by("created_at", "pk")
        .values_list("pk", "created_at", "from_codebook_id", "to_codebook_id")
    )
    to_of = {pk: to for pk, _, _, to in migrations}

    def codebook_of(version) -> int:
        if version.migration_id is not None:
            return to_of[version.migration_id]
        later = (old for _, at, old, _ in migrations if at > version.created_at)
        return next(later, study.codebook_id)

    codebooks = {version.pk: codebook_of(version) for version in versions}
    keys = [d.key for d in scheme.dimensions]
    by_codebook = {study.codebook_id: _LabelNames(scheme)}
    for codebook_id in set(codebooks.values()) - set(by_codebook):
        dimensions = tuple(
            Dimension.objects.filter(codebook_id=codebook_id, key__in=keys).order_by("position")
        )
        categories: dict[int, list[Category]] = {d.pk: [] for d in dimensions}
        for category in Category.objects.filter(dimension__in=dimensions).order_by("position"):
            categories[category.dimension_id].append(category)
        by_codebook[codebook_id] = _LabelNames(
            Scheme(dimensions=dimensions, categories={k: tuple(v) for k, v in categories.items()})
        )
    return {pk: by_codebook[codebook_id] for pk, codebook_id in codebooks.items()}


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


def _as_text(value) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "(none)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value) if value not in (None, "") else "(empty)"


# A codebook migration took the label off: its category was split (or removed).
RELABEL_TEXT = "(to label again: its category was split or removed)"
# A revision's changed codes are under `codes.<dimension key>` (services.assignment).
CODES = "codes."


class _LabelNames:
    """Stored labels (dimension keys, category key paths) as people read them: names, in the
    codebook's order of dimensions, each category with its path."""

    def __init__(self, scheme) -> None:
        self.scheme = scheme
        self.dimensions = {d.key: (position, d) for position, d in enumerate(scheme.dimensions)}

    def _order(self, key: str) -> tuple[int, str]:
        return (self.dimensions.get(key, (len(self.dimensions),))[0], key)

    def dimension_name(self, key: str) -> str:
        return self.dimensions[key][1].name if key in self.dimensions else key

    def _category_name(self, key: str, path: str) -> str:
        """The category's name; its path when the scheme no longer has it."""
        if key not in self.dimensions:
            return path
        category = self.scheme.by_path(self.dimensions[key][1]).get(path)
        return category.name if category is not None else path

    def _named(self, key: str, paths) -> object:
        if not isinstance(paths, list) or key.startswith(CODES):
            return paths  # the note, the unsure flag, or codes as written
        return [f"{self._category_name(key, path)} ({path})" for path in paths]

    def values(self, key: str, paths: list[str]) -> list[tuple[str, str]]:
        """[(category name, path)] of a dimension's values."""
        return [(self._category_name(key, path), path) for path in paths]

    def labels(self, labels: dict) -> list[tuple[str, list[tuple[str, str]]]]:
        """[(dimension name, [(category name, path)])]."""
        return [
            (
                self.dimension_name(key),
                [(self._category_name(key, path), path) for path in labels[key]],
            )
            for key in sorted(labels, key=self._order)
        ]

    def codes(self, codes: dict) -> list[tuple[str, list[str]]]:
        """Open coding: [(dimension name, [codes as written])]."""
        return [(self.dimension_name(key), codes[key]) for key in sorted(codes, key=self._order)]

    def _change_name(self, key: str) -> str:
        if key.startswith(CODES):
            return f"{self.dimension_name(key.removeprefix(CODES))}: codes"
        return self.dimension_name(key)

    def changes(self, changes: dict) -> list[tuple[str, str, str]]:
        """What a revision changed, as (what, from, to) text."""
        return [
            (
                self._change_name(key),
                _as_text(self._named(key, changes[key].get("from"))),
                RELABEL_TEXT
                if changes[key].get("relabel")
                else _as_text(self._named(key, changes[key].get("to"))),
            )
            for key in sorted(changes, key=self._order)
        ]


@require_GET
def item_report(request, slug: str, item_id: int):
    """The item's report for reading while labelling, as the report API shows it (Markdown
    rendered and sanitised on the server).

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
    report = ReportDetailSerializer(report_for_reading(item.report_id)).data
    return JsonResponse({**report, "patches": patches})
