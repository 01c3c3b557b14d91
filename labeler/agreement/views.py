"""A study's agreement page (its leads and researchers, and staff): per dimension and level the
coefficients with their intervals (bootstrap, and Gwet's analytic where there is one) and
bands, the hierarchy alpha, how many more items to double-code for alpha's interval to
reach +-0.05, the annotator pairs' kappas, the categories with
the reasons leads gave for their disagreements, a chosen pair's confusion matrix, and the
agreement per batch or per window of items. Tables come from the same figures as the agreement
API (labeler.agreement.ratings.study_agreement); charts are drawn from the tables in the browser. An
open-coding study's page says why it has no agreement, with no table (nor its CSV).

The double-coding plan page (the same people) answers, before labelling, how many items k
annotators must each label for a coefficient's interval to have the half-width wanted, by the
simulation of labeler.agreement.planning (as `GET /api/agreement/plan/` does)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, Q
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from config.csp import chart_styles
from labeler.agreement.planning import MAX_SHARES, PLANNED, plan_before_asked, shares_from_text
from labeler.agreement.ratings import (
    BOOTSTRAP,
    WINDOW_MIN,
    agreement_not_applicable,
    study_agreement,
)
from labeler.agreement.services import study_kappa_scale_set, study_parent_distance_set
from labeler.agreement.statistics import (
    ALPHA_RELIABLE,
    ALPHA_TENTATIVE,
    KRIPPENDORFF,
    band_scales,
    kappa_band,
    kappa_scale_of,
)
from labeler.common.names import reason_names
from labeler.common.permissions import (
    access_figures_final_only,
    access_sees_agreement,
    access_sees_annotator_names,
    study_get_for_user,
)
from labeler.common.scheme import study_scheme
from labeler.common.views import require_lead
from labeler.models import DisagreementReason, Study

# Each coefficient as the table names it.
COEFFICIENTS = (
    ("percent_agreement", "Percent agreement"),
    ("mean_cohen_kappa", "Cohen's kappa (mean over pairs)"),
    ("fleiss_kappa", "Fleiss' kappa"),
    ("krippendorff_alpha", "Krippendorff's alpha"),
    ("gwet_ac1", "Gwet's AC1"),
)
TREND = (
    ("krippendorff_alpha", "Krippendorff's alpha"),
    ("fleiss_kappa", "Fleiss' kappa"),
    ("percent_agreement", "Percent agreement"),
)
LEVEL_NAMES = {"top": "top-level categories", "path": "full categories"}
DEFAULT_WINDOW = 20
# The trend's whiskers: one set of draws for all its batches (or each dimension's windows).
TREND_BOOTSTRAP = BOOTSTRAP


class AgreementPageForm(forms.Form):
    by = forms.ChoiceField(
        choices=[("batch", "per batch"), ("window", "per window of items")],
        required=False,
        label="Agreement over time",
    )
    window = forms.IntegerField(
        min_value=WINDOW_MIN,
        required=False,
        label="Items per window",
        help_text="in the order they were labelled",
        widget=forms.NumberInput(attrs={"placeholder": DEFAULT_WINDOW}),
    )
    pair = forms.CharField(required=False, label="Annotator pair")


def _bound(x: float) -> str:
    return "0" if x == 0 else f"{x:.2f}"


def kappa_scale_bands(kappa_scale: str) -> list[tuple[str, str]]:
    """A kappa scale's bands with their ranges, from the lowest (the last up to 1)."""
    bands = kappa_scale_of(kappa_scale).bands
    found = []
    for n, (upper, inclusive, name) in enumerate(bands):
        if n == 0:
            found.append((name, f"{'up to' if inclusive else 'below'} {_bound(upper)}"))
        else:
            top = "1.00" if upper is None else _bound(upper)
            found.append((name, f"{_bound(bands[n - 1][0])} to {top}"))
    return found


def band_legend(kappa_scale: str = "landis_koch") -> list[dict]:
    """Each scale the bands come from (the kappas' is the study's `kappa_scale`): its
    coefficients, and its bands with their ranges."""
    scales = band_scales(kappa_scale)
    kappas = kappa_scale_of(kappa_scale)
    coefficients = dict(COEFFICIENTS)
    return [
        {
            "scale": scale,
            "coefficients": [coefficients[key] for key, of in scales.items() if of == scale],
            "bands": bands,
            "note": note,
        }
        for scale, bands, note in (
            (
                KRIPPENDORFF,
                [
                    ("unreliable", f"below {ALPHA_TENTATIVE:.3f}"),
                    ("tentative", f"{ALPHA_TENTATIVE:.3f} to below {ALPHA_RELIABLE:.3f}"),
                    ("reliable", f"{ALPHA_RELIABLE:.3f} and above"),
                ],
                "tentative: fit for tentative conclusions only",
            ),
            (kappas.name, kappa_scale_bands(kappa_scale), kappas.note),
        )
    ]


def _pair_key(names) -> str:
    return " / ".join(names)


def _coefficients(entry: dict) -> list[dict]:
    rows = []
    for key, name in COEFFICIENTS:
        intervals = entry["intervals"][key]
        rows.append(
            {
                "key": key,
                "name": name,
                "value": entry[key],
                "bootstrap": intervals["bootstrap"],
                "gwet": intervals.get("gwet"),
                "band": entry["bands"].get(key),
                "scale": entry["band_scales"].get(key),
            }
        )
    credit = entry["hierarchy_alpha"]
    if credit is not None:
        rows.append(
            {
                "key": "hierarchy_alpha",
                "name": "Hierarchy alpha (partial credit for the same top category)",
                "value": credit["estimate"],
                "bootstrap": credit["intervals"]["bootstrap"],
                "gwet": None,
                "band": None,
            }
        )
    return rows


def _pair_matrix(entry: dict) -> dict:
    """The annotators and, per pair, Cohen's kappa (None off the pairs measured)."""
    kappas = {}
    names: set[str] = set()
    for pair in entry["cohen_kappa_pairs"]:
        first, second = pair["annotators"]
        names |= {first, second}
        kappas[first, second] = kappas[second, first] = pair
    ordered = sorted(names)
    return {
        "annotators": ordered,
        "rows": [
            (name, [(other, kappas.get((name, other))) for other in ordered]) for name in ordered
        ],
    }


def _confusion(entry: dict, pair: str) -> dict | None:
    tables = entry["confusion"]
    for table in tables:
        if _pair_key(table["annotators"]) == pair:
            return table
    return tables[0] if tables else None


def _trend_row(label: str, figures: dict) -> dict:
    return {
        "label": label,
        "items": figures["items"],
        "values": [
            (figures[key], (figures["intervals"][key]["bootstrap"] or {}).get("ci95"))
            for key, _ in TREND
        ],
        "change": (figures.get("change") or {}).get("krippendorff_alpha"),
    }


def _categories(entry: dict) -> list[dict]:
    return [
        {
            **row,
            "reasons": [row["reasons"][reason] for reason in DisagreementReason.values],
            "reasons_total": sum(row["reasons"].values()),
        }
        for row in entry["per_category"]
    ]


def _trend_rows(trend: dict, dimension: str, level: str) -> list[dict]:
    if trend["by"] == "batch":
        return [
            _trend_row(f"batch {batch['batch']}", entry)
            for batch in trend["batches"]
            for entry in batch["dimensions"]
            if (entry["dimension"], entry["level"]) == (dimension, level)
        ]
    for entry in trend["dimensions"]:
        if (entry["dimension"], entry["level"]) == (dimension, level):
            return [
                _trend_row(f"items {window['first']} to {window['last']}", window)
                for window in entry["windows"]
            ]
    return []


def nothing_yet(*, study, sections: list[dict], final_only: bool) -> str | None:
    """Why the page has no figure to show, or None when some dimension has a pair of ratings."""
    if any(section["entry"]["pairable_items"] for section in sections):
        return None
    counts = study.items.aggregate(
        labelled=Count("pk", filter=Q(submitted__gte=1)),
        paired=Count("pk", filter=Q(submitted__gte=2)),
        final=Count("pk", filter=Q(adjudicated_at__isnull=False)),
    )
    if final_only and not counts["final"]:
        return (
            "you label in this study, so its agreement counts only the final items, and no item "
            "is final yet"
        )
    if not counts["labelled"]:
        return "no annotator has submitted a label yet"
    if not counts["paired"]:
        labelled = counts["labelled"]
        return (
            f"no item has been labelled by two annotators yet ({labelled} item"
            f"{pluralize(labelled)} labelled by one so far)"
        )
    return "no item you may see the figures of has been labelled by two annotators yet"


@require_GET
@chart_styles
def study_agreement_page(request, slug: str):
    study, access = study_get_for_user(user=request.user, slug=slug)
    if not access_sees_agreement(access):
        raise PermissionDenied("only the study's leads and researchers see its agreement")
    not_applicable = agreement_not_applicable(study=study)
    if not_applicable is not None:
        context = {"study": study, "access": access, "not_applicable": not_applicable}
        return render(request, "labeler/study_agreement.html", context)
    form = AgreementPageForm(request.GET)
    form.is_valid()
    cleaned = {name: value for name, value in getattr(form, "cleaned_data", {}).items() if value}
    by = cleaned.get("by") or "batch"
    window = cleaned.get("window") or DEFAULT_WINDOW
    pseudonyms = not access_sees_annotator_names(access)
    final_only = access_figures_final_only(access)
    overall = study_agreement(study=study, pseudonyms=pseudonyms, final_only=final_only)
    trend = study_agreement(
        study=study,
        by=by,
        window=window if by == "window" else None,
        bootstrap=TREND_BOOTSTRAP,
        pseudonyms=pseudonyms,
        final_only=final_only,
    )
    pairs = sorted(
        {
            _pair_key(pair["annotators"])
            for entry in overall["dimensions"]
            for pair in entry["cohen_kappa_pairs"]
        }
    )
    pair = cleaned.get("pair") if cleaned.get("pair") in pairs else (pairs[0] if pairs else "")
    names = {d.key: d.name for d in study_scheme(study=study).dimensions}
    sections = [
        {
            "id": f"{entry['dimension']}-{entry['level']}",
            "dimension": entry["dimension"],
            "name": names.get(entry["dimension"], entry["dimension"]),
            "level": LEVEL_NAMES[entry["level"]],
            "entry": entry,
            "coefficients": _coefficients(entry),
            "pairs": _pair_matrix(entry),
            "categories": _categories(entry),
            "confusion": _confusion(entry, pair),
            "trend": _trend_rows(trend, entry["dimension"], entry["level"]),
        }
        for entry in overall["dimensions"]
    ]
    return render(
        request,
        "labeler/study_agreement.html",
        {
            "study": study,
            "access": access,
            "nothing_yet": nothing_yet(study=study, sections=sections, final_only=final_only),
            "form": form,
            "by": by,
            "window": window,
            "pairs": pairs,
            "pair": pair,
            "sections": sections,
            "trend_series": TREND,
            "reasons": reason_names(),
            "pseudonyms": pseudonyms,
            "legend": band_legend(study.kappa_scale),
            "kappa_example": kappa_band(0.581, study.kappa_scale),
            "parent_distance_form": ParentDistanceForm(
                initial={"parent_distance": study.parent_distance}
            ),
            "kappa_scale_form": KappaScaleForm(initial={"kappa_scale": study.kappa_scale}),
        },
    )


class ParentDistanceForm(forms.Form):
    parent_distance = forms.FloatField(
        min_value=0,
        max_value=1,
        label="Hierarchy alpha: distance between two paths under one top category",
        help_text="0: as good as the same path; 1: no credit (the nominal alpha).",
    )


@require_POST
def study_parent_distance(request, slug: str):
    """A lead sets the hierarchy alpha's distance for the study; back to its agreement page."""
    study, access = study_get_for_user(user=request.user, slug=slug)
    require_lead(access)
    form = ParentDistanceForm(request.POST)
    if not form.is_valid():
        for error in form.errors.get("parent_distance", []):
            messages.error(request, f"parent_distance: {error}")
        return redirect(reverse("studies:agreement", args=[study.slug]))
    try:
        study_parent_distance_set(study=study, parent_distance=form.cleaned_data["parent_distance"])
    except ValidationError as error:
        messages.error(request, f"parent_distance: {'; '.join(error.messages)}")
    else:
        messages.success(
            request, f"The hierarchy alpha now counts {study.parent_distance:g} for a parent match."
        )
    return redirect(reverse("studies:agreement", args=[study.slug]))


class KappaScaleForm(forms.Form):
    kappa_scale = forms.ChoiceField(
        choices=Study.KappaScale.choices,
        label="Bands of the kappas and Gwet's AC1: the scale",
        help_text="Alpha's bands are Krippendorff's whichever scale is chosen.",
    )


@require_POST
def study_kappa_scale(request, slug: str):
    """A lead sets the scale of the kappas' and AC1's bands for the study; back to its
    agreement page."""
    study, access = study_get_for_user(user=request.user, slug=slug)
    require_lead(access)
    form = KappaScaleForm(request.POST)
    if not form.is_valid():
        for error in form.errors.get("kappa_scale", []):
            messages.error(request, f"kappa_scale: {error}")
        return redirect(reverse("studies:agreement", args=[study.slug]))
    try:
        study_kappa_scale_set(study=study, kappa_scale=form.cleaned_data["kappa_scale"])
    except ValidationError as error:
        messages.error(request, f"kappa_scale: {'; '.join(error.messages)}")
    else:
        messages.success(
            request,
            f"The kappas' and AC1's bands now come from {study.get_kappa_scale_display()}.",
        )
    return redirect(reverse("studies:agreement", args=[study.slug]))


PLANNED_NAMES = dict(COEFFICIENTS)


class DoubleCodingPlanForm(forms.Form):
    coefficient = forms.ChoiceField(
        choices=[(key, PLANNED_NAMES[key]) for key in PLANNED], label="Coefficient"
    )
    expected = forms.FloatField(
        min_value=0.01,
        max_value=0.99,
        label="Agreement expected",
        help_text="the coefficient you expect the annotators to reach (from a pilot or a "
        "similar study)",
    )
    shares = forms.CharField(
        label="Categories' expected shares",
        help_text=f"one per category, separated by commas (2 to {MAX_SHARES}), e.g. 0.2, 0.3, "
        "0.5; they are scaled to sum to 1",
    )
    half_width = forms.FloatField(
        min_value=0.005,
        max_value=0.5,
        label="Half-width of the 95% interval wanted",
        help_text="e.g. 0.05 for an interval of ±0.05",
    )
    annotators = forms.IntegerField(
        min_value=2, max_value=10, label="Annotators per item", initial=2
    )
    seed = forms.IntegerField(min_value=0, max_value=2**32 - 1, label="Seed", initial=0)

    def clean_shares(self):
        try:
            return shares_from_text(self.cleaned_data["shares"])
        except ValueError as error:
            raise ValidationError(str(error)) from None


PLAN_EXAMPLE = {
    "coefficient": "krippendorff_alpha",
    "expected": 0.7,
    "shares": "0.2, 0.3, 0.5",
    "half_width": 0.05,
    "annotators": 2,
    "seed": 0,
}


@require_GET
def double_coding_plan_page(request, slug: str):
    """The form, and once it is filled in, the plan: items needed, the half-width the
    simulations gave, the method, draws and seed, and each round of the search."""
    study, access = study_get_for_user(user=request.user, slug=slug)
    if not access_sees_agreement(access):
        raise PermissionDenied("only the study's leads and researchers plan its double-coding")
    context = {"study": study, "access": access}
    not_applicable = agreement_not_applicable(study=study)
    if not_applicable is not None:
        return render(
            request, "labeler/agreement_plan.html", context | {"not_applicable": not_applicable}
        )
    asked = any(name in request.GET for name in DoubleCodingPlanForm.base_fields)
    form = DoubleCodingPlanForm(request.GET if asked else None, initial=PLAN_EXAMPLE)
    plan = None
    if asked and form.is_valid():
        plan = plan_before_asked(form.cleaned_data)
        plan["coefficient_name"] = PLANNED_NAMES[plan["coefficient"]]
    return render(request, "labeler/agreement_plan.html", context | {"form": form, "plan": plan})
