"""Agreement between annotators on one dimension: plain data in, JSON-ready numbers out.

No Django here: `agreement()` takes `{item: {username: value}}` and returns a dict of plain
Python numbers, strings and lists. A missing annotator in an item's mapping is a missing
rating; every statistic handles missing ratings, and the counts say how many items and
pairs each one used. A statistic that cannot be computed is None with an entry in `notes`
saying why; nothing is NaN.

The work is done by `agreement_from_codes()` on an integer matrix (items x annotators,
-1 = missing), so a caller that already holds codes (a database read) skips the dict.

Methods (q = the number of distinct values observed, r_i = ratings of item i):

- Percent agreement: mean over the items with two or more ratings of the share of agreeing
  annotator pairs, sum_k r_ik (r_ik - 1) / (r_i (r_i - 1)).
- Cohen's kappa for each pair of annotators on the items both rated, with the large-sample
  standard error of Fleiss, Cohen & Everitt (1969) (not the one under the null hypothesis):
  ci95 = kappa +- 1.96 SE, clipped to [-1, 1]. mean_cohen_kappa is the plain mean over the
  pairs whose kappa is defined (Light's kappa when every pair rated the same items).
- Fleiss' kappa generalised to items with different numbers of ratings (Gwet, Handbook of
  Inter-Rater Reliability, 4th ed., ch. 2): p_a as in percent agreement; category shares
  pi_k = mean over items with at least one rating of r_ik / r_i; p_e = sum_k pi_k^2. With
  the same number of ratings on every item this is Fleiss (1971).
- Gwet's AC1: the same p_a and pi_k, p_e = sum_k pi_k (1 - pi_k) / (q - 1).
- Krippendorff's alpha (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"):
  1 - (n - 1) sum_u [sum_{i != j} d(v_ui, v_uj) / (m_u - 1)] / sum_{c, k} n_c n_k d(c, k),
  over the items with two or more ratings (n values in all, n_c of value c). d is nominal
  for single-select dimensions and MASI for multi-select ones.
- Intervals (labeler.agreement.intervals): every coefficient, each pair's kappa and each
  category's kappa has a 95% percentile bootstrap interval over items, from one seeded set
  of draws shared by every figure of a run; percent agreement, Fleiss' kappa and AC1, and
  each category's one-vs-rest kappa, percent agreement and AC1, also Gwet's analytic one
  (Student's t with n - 1 degrees of freedom, as irrCAC), each pair's kappa that of Fleiss,
  Cohen & Everitt. alpha_ci95 is alpha's bootstrap interval.
- Hierarchy alpha (labeler.agreement.hierarchy): on nested single-select paths, alpha with
  a distance that gives partial credit to two paths under one top category.
- Per category: how many ratings used it, by annotator, and its one-vs-rest kappa: the
  generalised Fleiss' kappa of the two-category data "c" / "anything else" (Fleiss 1971's
  category kappas when every item has the same number of ratings); of the same two-value
  data also percent agreement, AC1 and (nominal) alpha, each with its bootstrap interval.
- Confusion matrices per annotator pair, and the team's most confused pairs of values:
  unordered pairs {x, y}, counted once per pair of annotators who both rated an item and
  disagreed.
- Bands: for the kappas and AC1 the scale chosen (KAPPA_SCALES: Landis & Koch 1977 unless
  another is asked for, Fleiss 1981 or Altman 1991); Krippendorff (2004, p. 241) for
  alpha: at least 0.800 "reliable", 0.667 up to 0.800 "tentative" (tentative conclusions
  only), below 0.667 "unreliable". The headline coefficient, whose band is
  "interpretation", is Krippendorff's alpha (it handles missing ratings and multi-select).

The result is the agreement report's JSON for one dimension and level, less "dimension" and
"level" (the caller adds them): "items", "pairable_items", "annotators", "ratings",
"percent_agreement", "cohen_kappa_pairs", "mean_cohen_kappa", "fleiss_kappa",
"krippendorff_alpha", "alpha_ci95", "gwet_ac1", "interpretation", "per_category",
"confusion", "most_confused" and "notes"; also "headline" (the coefficient that
"interpretation" is the band of), "bands" (each coefficient's band), "band_scales" (the name
of the scale each band comes from), "alpha_distance"
("nominal" or "masi"), "bootstrap" (the draws, seed, method and strata of every bootstrap
interval), "intervals" ({coefficient: {method: interval}}, methods "bootstrap" and "gwet"),
"interval_methods" (what each method is) and "hierarchy_alpha" (None unless asked for on
nested paths). Each pair in "cohen_kappa_pairs" and each row of "per_category" has its
"intervals" too (a category's kappa, percent agreement and AC1 by "bootstrap" and "gwet").

Multi-select dimensions (values are frozensets of category paths): percent agreement, both
kappas, AC1 and the confusion matrices treat an annotator's whole set as one nominal value
(two ratings agree only when the sets are equal); alpha uses the MASI distance (Passonneau
2006) between sets, 1 - J * M with J the Jaccard index and M = 1 for equal sets, 2/3 when
one contains the other, 1/3 when they overlap otherwise, 0 when disjoint (two empty sets
are equal). Per-category figures are per path: a rating uses a path when its set holds it.
"""

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TypedDict, Unpack

import numpy as np

from labeler.agreement import hierarchy
from labeler.agreement.intervals import (
    ANALYTIC,
    CATEGORY_ANALYTIC,
    COEFFICIENTS,
    METHODS,
    PER_CATEGORY,
    CoefficientDraws,
    Draws,
    analytic,
    coefficient_draws,
    difference,
    make_draws,
    summary,
)

Value = str | frozenset[str]
Ratings = Mapping[Hashable, Mapping[str, Value]]

# The standard normal's 97.5th percentile: a two-sided 95% interval.
Z95 = 1.959963984540054
LANDIS_KOCH = (
    (0.20, "slight"),
    (0.40, "fair"),
    (0.60, "moderate"),
    (0.80, "substantial"),
    (1.00, "almost perfect"),
)
# Krippendorff (2004, p. 241): the lowest alpha for tentative conclusions, and for reliable data.
ALPHA_TENTATIVE = 0.667
ALPHA_RELIABLE = 0.800
KRIPPENDORFF = "Krippendorff (2004)"


@dataclass(frozen=True)
class KappaScale:
    """A published scale for the kappa-like coefficients (Cohen's kappa, Fleiss' kappa, Gwet's
    AC1): its bands from the lowest, each (upper bound, whether the band includes that bound,
    name); the last band has no upper bound."""

    name: str
    bands: tuple[tuple[float | None, bool, str], ...]
    note: str

    def band(self, x: float | None) -> str | None:
        if x is None:
            return None
        for upper, inclusive, name in self.bands:
            if upper is None or x < upper or (inclusive and x == upper):
                return name
        return self.bands[-1][2]


# The scales a study may choose for its kappas and AC1 (Study.kappa_scale), by key.
KAPPA_SCALES = {
    # Landis & Koch (1977): < 0 poor, 0-0.20 slight, 0.21-0.40 fair, 0.41-0.60 moderate,
    # 0.61-0.80 substantial, 0.81-1 almost perfect.
    "landis_koch": KappaScale(
        "Landis and Koch (1977)",
        (
            (0.0, False, "poor"),
            *((bound, True, name) for bound, name in LANDIS_KOCH[:-1]),
            (None, True, LANDIS_KOCH[-1][1]),
        ),
        "a band includes its upper bound",
    ),
    # Fleiss (1981, Statistical Methods for Rates and Proportions, 2nd ed.): below 0.40
    # poor, 0.40 to 0.75 fair to good, above 0.75 excellent.
    "fleiss": KappaScale(
        "Fleiss (1981)",
        ((0.40, False, "poor"), (0.75, True, "fair to good"), (None, True, "excellent")),
        "0.40 and 0.75 are fair to good",
    ),
    # Altman (1991, Practical Statistics for Medical Research): < 0.20 poor,
    # 0.21-0.40 fair, 0.41-0.60 moderate, 0.61-0.80 good, 0.81-1.00 very good.
    "altman": KappaScale(
        "Altman (1991)",
        (
            (0.20, True, "poor"),
            (0.40, True, "fair"),
            (0.60, True, "moderate"),
            (0.80, True, "good"),
            (None, True, "very good"),
        ),
        "a band includes its upper bound",
    ),
}
DEFAULT_KAPPA_SCALE = "landis_koch"
# The coefficients a kappa scale bands; alpha has Krippendorff's.
KAPPA_LIKE = ("mean_cohen_kappa", "fleiss_kappa", "gwet_ac1")


def kappa_scale_of(key: str) -> KappaScale:
    """The kappa scale of that key; ValueError naming `kappa_scale` for another."""
    try:
        return KAPPA_SCALES[key]
    except (KeyError, TypeError):
        raise ValueError(f"kappa_scale: one of {', '.join(KAPPA_SCALES)}, got {key!r}") from None


def band_scales(kappa_scale: str = DEFAULT_KAPPA_SCALE) -> dict[str, str]:
    """Each banded coefficient's scale, by name."""
    kappas = kappa_scale_of(kappa_scale).name
    return {"krippendorff_alpha": KRIPPENDORFF} | {key: kappas for key in KAPPA_LIKE}


def top_level(value: Value) -> Value:
    """The top category of a key path ("a/b/c" -> "a"); a frozenset maps each member."""
    if isinstance(value, frozenset):
        return frozenset(member.split("/", 1)[0] for member in value)
    return value.split("/", 1)[0]


def kappa_band(x: float | None, scale: str = DEFAULT_KAPPA_SCALE) -> str | None:
    """x's band on that kappa scale (KAPPA_SCALES); by default Landis & Koch (1977): < 0 poor,
    0-0.20 slight, 0.21-0.40 fair, 0.41-0.60 moderate, 0.61-0.80 substantial, 0.81-1 almost
    perfect (a band includes its upper bound)."""
    return kappa_scale_of(scale).band(x)


def alpha_band(x: float | None) -> str | None:
    """Krippendorff (2004): >= 0.800 reliable, 0.667 up to 0.800 tentative, else unreliable."""
    if x is None:
        return None
    if x >= ALPHA_RELIABLE:
        return "reliable"
    if x >= ALPHA_TENTATIVE:
        return "tentative"
    return "unreliable"


def codes_from_ratings(
    ratings: Ratings, *, multiple: bool = False
) -> tuple[np.ndarray, list[Value], list[str]]:
    """The ratings as codes: (items x annotators int matrix, -1 = missing; the values, sorted,
    that the codes index; the usernames, sorted, that the columns are). Rows follow the
    mapping's order of items. Raises ValueError naming the item and annotator of the first
    rating that is not a category path (or, when `multiple`, a frozenset of paths)."""
    return _encode(list(ratings), list(ratings.values()), multiple)


class FigureOptions(TypedDict, total=False):
    """agreement_with_draws()'s keyword options, which agreement() and agreement_from_codes()
    pass on as they are."""

    multiple: bool
    bootstrap: int
    seed: int
    most_confused: int
    empty: str | None
    parent_distance: float | None
    kappa_scale: str
    draws: Draws | None


def agreement(ratings: Ratings, **options: Unpack[FigureOptions]) -> dict:
    """Every agreement statistic of one dimension and level (see the module docstring).

    `ratings`: item -> {username: value}; the options are agreement_with_draws()'s:
    `multiple`: values are frozensets of paths; `bootstrap`: draws for the intervals (0: no
    bootstrap interval; 1000 unless given); `seed`: the draws' seed (same input and seed, same
    intervals); `most_confused`: how many confused value pairs to list; `empty`: the value
    that means "no category chosen" (see agreement_from_codes); `parent_distance`: compute
    the hierarchy alpha with this distance between two paths under one top category
    (labeler.agreement.hierarchy); `kappa_scale`: the scale of the kappas' and AC1's bands (a
    key of KAPPA_SCALES)."""
    codes, categories, annotators = codes_from_ratings(
        ratings, multiple=options.get("multiple", False)
    )
    return agreement_from_codes(codes, categories, annotators, **options)


def agreement_windows(
    ratings_in_order: Sequence[tuple[Hashable, Mapping[str, Value]]],
    *,
    size: int,
    multiple: bool = False,
    bootstrap: int = 0,
    seed: int = 0,
    most_confused: int = 10,
    empty: str | None = None,
    parent_distance: float | None = None,
    kappa_scale: str = DEFAULT_KAPPA_SCALE,
    draws: Draws | None = None,
) -> list[dict]:
    """Agreement over consecutive windows of `size` items, in the order given (the order they
    were labelled); the last window may be shorter. Each dict has "window" (1-based),
    "first" and "last" (1-based positions of its first and last item) and agreement()'s
    keys, whose estimates equal agreement() on that window's items alone. The intervals of
    all windows come from one set of draws (`bootstrap` draws seeded with `seed`, each
    window resampled within itself), so each window after the first also has "change": each
    coefficient's difference from the window before with its interval from the paired
    draws (see labeler.agreement.intervals). `draws`: the run's draws over the items in this
    order, stratified by these windows, when other figures share them."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"size: a window holds at least one item, got {size!r}")
    items = [item for item, _ in ratings_in_order]
    codes, categories, annotators = _encode(
        items, [by_annotator for _, by_annotator in ratings_in_order], multiple
    )
    strata = np.arange(len(items)) // size
    if draws is None:
        draws = run_draws(codes, strata=strata, strata_name="window", draws=bootstrap, seed=seed)
    elif len(draws.group) != len(items):
        raise ValueError(f"draws: one row per item in order ({len(items)})")
    windows, before = [], None
    for number, start in enumerate(range(0, len(items), size), start=1):
        stop = min(start + size, len(items))
        window = {"window": number, "first": start + 1, "last": stop}
        figures, draws_of_window = agreement_with_draws(
            codes[start:stop],
            categories,
            annotators,
            multiple=multiple,
            draws=draws.subset(strata == number - 1),
            most_confused=most_confused,
            empty=empty,
            parent_distance=parent_distance,
            kappa_scale=kappa_scale,
        )
        window |= figures
        if before is not None:
            window["change"] = changes(before, (figures, draws_of_window))
        windows.append(window)
        before = (figures, draws_of_window)
    return windows


def run_draws(
    codes: np.ndarray,
    *,
    draws: int,
    seed: int,
    strata: np.ndarray | None = None,
    strata_name: str | None = None,
) -> Draws:
    """One run's bootstrap draws over the rows of `codes` (items x anything: every code a
    figure of the run reads), stratified by `strata` when given; `draws` 0 gives none."""
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 0:
        raise ValueError(f"bootstrap: a whole number >= 0, got {draws!r}")
    codes = np.asarray(codes)
    codes = codes.reshape(len(codes), -1) if codes.size else np.zeros((len(codes), 1), np.intp)
    return make_draws(codes, draws=draws, seed=seed, strata=strata, strata_name=strata_name)


def changes(
    earlier: tuple[dict, CoefficientDraws | None], later: tuple[dict, CoefficientDraws | None]
) -> dict:
    """Each coefficient's difference, later minus earlier, with its bootstrap interval from
    the paired draws (both figures must come from the same run's draws)."""
    (first, first_draws), (second, second_draws) = earlier, later
    found = {}
    for name in (*COEFFICIENTS, "hierarchy_alpha"):
        a, b = _estimate(first, name), _estimate(second, name)
        if first_draws is None or second_draws is None or name not in first_draws.coefficients:
            found[name] = None if a is None or b is None else {"estimate": b - a, "bootstrap": None}
            continue
        found[name] = difference(
            first_draws.coefficients[name], second_draws.coefficients[name], a, b
        )
    return found


def _estimate(result: dict, name: str) -> float | None:
    if name == "hierarchy_alpha":
        return (result.get("hierarchy_alpha") or {}).get("estimate")
    return result.get(name)


def agreement_from_codes(
    codes: np.ndarray,
    categories: Sequence[Value],
    annotators: Sequence[str],
    **options: Unpack[FigureOptions],
) -> dict:
    """agreement() on codes: `codes[i, a]` is the index in `categories` of annotator
    `annotators[a]`'s value for item i, or -1 when they did not rate it. Values nobody used,
    annotators with no rating and items with no rating are left out; outputs list values
    and annotators in the order given. The options are agreement_with_draws()'s.

    `empty` is the single-select value that means "no category chosen" (a multi-select
    rating's is the empty set). When every rating is empty nobody chose anything: agreeing on
    nothing is no agreement, so every coefficient is None (a note says why), never a percent
    agreement of 1 computed over nothing.

    `draws`: the run's bootstrap draws (run_draws; rows aligned with `codes`), shared with
    the run's other figures; without them the figure draws its own (`bootstrap`, `seed`)."""
    return agreement_with_draws(codes, categories, annotators, **options)[0]


def agreement_with_draws(
    codes: np.ndarray,
    categories: Sequence[Value],
    annotators: Sequence[str],
    *,
    multiple: bool = False,
    bootstrap: int = 1000,
    seed: int = 0,
    most_confused: int = 10,
    empty: str | None = None,
    parent_distance: float | None = None,
    kappa_scale: str = DEFAULT_KAPPA_SCALE,
    draws: Draws | None = None,
) -> tuple[dict, CoefficientDraws | None]:
    """agreement_from_codes(), and its coefficients on every draw (None when there are
    none), for the differences between figures of one run (`changes`)."""
    if parent_distance is not None:
        parent_distance = hierarchy.check_parent_distance(parent_distance)
    kappa_scale_of(kappa_scale)
    codes, categories, annotators, rated_items = _compact(
        codes, categories, annotators, multiple, bootstrap, most_confused
    )
    draws = _draws_of_figure(draws, codes, rated_items, bootstrap, seed)
    profiles = _profiles(codes, len(categories))
    nothing_chosen = bool(categories) and all(
        value == empty or value == frozenset() for value in categories
    )
    notes = _data_notes(
        profiles, categories, multiple, nothing_chosen, unrated=int((~rated_items).sum())
    )
    point = _point_estimates(
        profiles, codes, categories, annotators, multiple, most_confused, nothing_chosen, notes
    )
    per_category = _per_category(profiles, codes, categories, annotators, multiple, notes)
    path_distances = None
    if parent_distance is not None and not multiple and hierarchy.nested(categories):
        path_distances = hierarchy.path_distances(categories, parent_distance)
    if path_distances is not None and point.coefficients["krippendorff_alpha"] is not None:
        hierarchy_alpha, _ = _alpha(profiles, path_distances, len(categories), [])
        point.coefficients["hierarchy_alpha"] = hierarchy_alpha
    on_draws = None
    if point.coefficients["percent_agreement"] is not None:
        on_draws = coefficient_draws(
            codes,
            len(categories),
            draws,
            distances=point.distances,
            members=_members_of(categories) if multiple else None,
            extra_distances=None if path_distances is None else {"hierarchy_alpha": path_distances},
        )
    intervals = _intervals(point.coefficients, on_draws, draws, point.pairs, per_category, notes)
    result = {
        "items": int(profiles.weights.sum()),
        "pairable_items": profiles.pairable_items,
        "annotators": len(annotators),
        "ratings": int((codes >= 0).sum()),
    } | _report(point, intervals, per_category, draws, multiple, parent_distance, kappa_scale)
    return result | {"notes": notes}, on_draws


def _draws_of_figure(
    draws: Draws | None, codes: np.ndarray, rated_items: np.ndarray, bootstrap: int, seed: int
) -> Draws:
    """The figure's own draws (`bootstrap` seeded with `seed`), or the run's on its rated
    items."""
    if draws is None:
        return run_draws(codes, draws=bootstrap, seed=seed)
    if len(draws.group) != len(rated_items):
        raise ValueError(f"draws: one row per row of codes ({len(rated_items)})")
    return draws.subset(rated_items)


def _data_notes(
    profiles: "_Profiles",
    categories: Sequence[Value],
    multiple: bool,
    nothing_chosen: bool,
    unrated: int,
) -> list[str]:
    """What the data leave out or leave undefined, before any coefficient is computed."""
    notes: list[str] = []
    if multiple:
        notes.append(
            "multi-select: percent agreement, Cohen's and Fleiss' kappa, AC1 and the confusion"
            " matrices treat each rating's whole set of categories as one value (two ratings"
            " agree only when their sets are equal); Krippendorff's alpha uses the MASI"
            " distance between sets"
        )
    if unrated:
        notes.append(f"{_plural(unrated, 'item')} without any rating: left out")
    n_items, n_pairable = int(profiles.weights.sum()), profiles.pairable_items
    if n_items == 0:
        notes.append("no ratings: there is nothing to compute")
    elif n_pairable == 0:
        notes.append(
            "no item has two or more ratings: percent agreement, the kappas, alpha and AC1"
            " need pairs of ratings of the same item"
        )
    else:
        if n_pairable < n_items:
            notes.append(
                f"{_plural(n_items - n_pairable, 'item')} with a single rating: left out of"
                " percent agreement, Cohen's kappa and alpha (Fleiss' kappa and AC1 count them"
                " in the category shares, as Gwet's generalisation does)"
            )
        if nothing_chosen:
            notes.append(
                f"every rating is {_label(categories[0])} (no category chosen): there"
                " is no agreement to measure, so every coefficient is null"
            )
        elif len(categories) == 1:
            notes.append(
                f"every rating is {_label(categories[0])}: chance-corrected coefficients (the"
                " kappas, alpha, AC1) are undefined with a single category, since chance"
                " agreement is then 1; percent agreement is 1.0"
            )
    return notes


@dataclass
class _Point:
    """A figure's point estimates: each coefficient (COEFFICIENTS and "hierarchy_alpha") by
    name, the annotator pairs with their kappas, their confusion matrices, the most confused
    value pairs, and alpha's distance between values (None: nominal)."""

    coefficients: dict[str, float | None]
    pairs: list[dict]
    confusion: list[dict]
    confused: list[dict]
    distances: np.ndarray | None


def _point_estimates(
    profiles: "_Profiles",
    codes: np.ndarray,
    categories: Sequence[Value],
    annotators: Sequence[str],
    multiple: bool,
    most_confused: int,
    nothing_chosen: bool,
    notes: list[str],
) -> _Point:
    """Every coefficient's estimate (the hierarchy alpha None, for the caller), the pairs'
    kappas and confusion matrices; a note for each one undefined."""
    distances = _masi_distances(categories) if multiple else None
    pa, fleiss, ac1 = _fleiss_and_ac1(profiles, len(categories))
    alpha, _ = _alpha(profiles, distances, len(categories), notes)
    pairs, confusion, confused = _pairs(codes, categories, annotators, most_confused, notes)
    defined = [pair["kappa"] for pair in pairs if pair["kappa"] is not None]
    mean_kappa = sum(defined) / len(defined) if defined else None
    if pairs and not defined:
        notes.append("mean_cohen_kappa: no annotator pair has a defined kappa")
    elif len(defined) < len(pairs):
        notes.append(
            f"mean_cohen_kappa: mean over the {len(defined)} of {len(pairs)} annotator pairs"
            " whose kappa is defined"
        )
    if len(annotators) == 1:
        notes.append("a single annotator rated: no pair to compare")
    if nothing_chosen:
        pa = fleiss = ac1 = alpha = None
    coefficients = {
        "percent_agreement": pa,
        "mean_cohen_kappa": mean_kappa,
        "fleiss_kappa": fleiss,
        "krippendorff_alpha": alpha,
        "gwet_ac1": ac1,
        "hierarchy_alpha": None,
    }
    return _Point(coefficients, pairs, confusion, confused, distances)


def _report(
    point: _Point,
    intervals: dict,
    per_category: list[dict],
    draws: Draws,
    multiple: bool,
    parent_distance: float | None,
    kappa_scale: str,
) -> dict:
    """The figure's JSON from its estimates and intervals (less the counts and notes)."""
    estimate = point.coefficients
    alpha = estimate["krippendorff_alpha"]
    ci = (
        (intervals["krippendorff_alpha"]["bootstrap"] or {}).get("ci95")
        if alpha is not None
        else None
    )
    hierarchy_alpha = estimate["hierarchy_alpha"]
    return {
        "percent_agreement": estimate["percent_agreement"],
        "cohen_kappa_pairs": point.pairs,
        "mean_cohen_kappa": estimate["mean_cohen_kappa"],
        "fleiss_kappa": estimate["fleiss_kappa"],
        "krippendorff_alpha": alpha,
        "alpha_ci95": ci,
        "gwet_ac1": estimate["gwet_ac1"],
        "interpretation": alpha_band(alpha),
        "headline": "krippendorff_alpha",
        "bands": {
            "mean_cohen_kappa": kappa_band(estimate["mean_cohen_kappa"], kappa_scale),
            "fleiss_kappa": kappa_band(estimate["fleiss_kappa"], kappa_scale),
            "gwet_ac1": kappa_band(estimate["gwet_ac1"], kappa_scale),
            "krippendorff_alpha": alpha_band(alpha),
        },
        "band_scales": band_scales(kappa_scale),
        "alpha_distance": "masi" if multiple else "nominal",
        "bootstrap": draws.describe(),
        "intervals": {name: intervals[name] for name in COEFFICIENTS},
        "interval_methods": METHODS,
        "hierarchy_alpha": None
        if hierarchy_alpha is None
        else {
            "estimate": hierarchy_alpha,
            "distances": hierarchy.weights(parent_distance),
            "intervals": intervals["hierarchy_alpha"],
        },
        "per_category": per_category,
        "confusion": point.confusion,
        "most_confused": point.confused,
    }


def _members_of(categories: Sequence[frozenset[str]]) -> list[list[int]]:
    """For each multi-select value, the indices of its paths among all paths, sorted."""
    paths = sorted(set().union(*categories))
    column = {path: index for index, path in enumerate(paths)}
    return [[column[path] for path in value] for value in categories]


def _intervals(
    point: dict,
    on_draws: CoefficientDraws | None,
    draws: Draws,
    pairs: list[dict],
    per_category: list[dict],
    notes: list[str],
) -> dict:
    """Each coefficient's intervals by method (and each pair's and category's, in place)."""
    bootstrapped = on_draws is not None and draws.draws > 0
    if point["krippendorff_alpha"] is not None and draws.draws == 0:
        notes.append("alpha_ci95: no bootstrap asked for (bootstrap=0)")
    found = {}
    for name, estimate in point.items():
        entry = {"bootstrap": None}
        if bootstrapped and estimate is not None:
            entry["bootstrap"] = summary(on_draws.coefficients[name], estimate)
        if name in ANALYTIC:
            entry["gwet"] = (
                None
                if on_draws is None
                else analytic(estimate, on_draws.analytic_se[name], on_draws.items)
            )
        found[name] = entry
    alpha = found["krippendorff_alpha"]["bootstrap"]
    if alpha is not None and alpha["undefined_draws"]:
        used = draws.draws - alpha["undefined_draws"]
        notes.append(
            f"alpha_ci95: {alpha['undefined_draws']} of {draws.draws} bootstrap draws held a"
            f" single value and have no alpha; the interval uses the other {used}"
        )
    for index, pair in enumerate(pairs):
        pair["intervals"] = {
            "bootstrap": summary(on_draws.pairs[index], pair["kappa"]) if bootstrapped else None,
            "fleiss-cohen-everitt": None if pair["ci95"] is None else {"ci95": pair["ci95"]},
        }
    for index, row in enumerate(per_category):
        row["intervals"] = {}
        for name in PER_CATEGORY:
            key = name.removeprefix("category_")
            if key != "kappa":
                value = None
                if on_draws is not None and not np.isnan(on_draws.categories[name][index, 0]):
                    value = float(on_draws.categories[name][index, 0])
                row[key] = value
            estimate = row[key]
            row["intervals"][key] = {
                "bootstrap": summary(on_draws.categories[name][index], estimate)
                if bootstrapped
                else None
            }
            if name in CATEGORY_ANALYTIC.values():
                row["intervals"][key]["gwet"] = (
                    None
                    if on_draws is None
                    else analytic(
                        estimate, on_draws.category_analytic_se[name][index], on_draws.items
                    )
                )
    return found


@dataclass(frozen=True)
class _Profiles:
    """Items grouped by their multiset of values (every statistic but Cohen's depends on an
    item through that multiset alone): `weights[k]` items share profile k, which has
    `sizes[k]` ratings; the triples (`value_profile`, `value`, `value_count`) say that
    profile value_profile[t] holds value[t] value_count[t] times."""

    weights: np.ndarray
    sizes: np.ndarray
    rows: np.ndarray
    value_profile: np.ndarray
    value: np.ndarray
    value_count: np.ndarray

    @property
    def pairable(self) -> np.ndarray:
        return self.sizes >= 2

    @property
    def pairable_items(self) -> int:
        return int(self.weights[self.pairable].sum())


def _profiles(codes: np.ndarray, n_values: int) -> _Profiles:
    """The profiles of `codes` (items x annotators, every item rated at least once)."""
    rows = np.sort(codes, axis=1)
    if len(rows) == 0:
        empty = np.zeros(0, dtype=np.intp)
        return _Profiles(empty, empty, rows, empty, empty, empty)
    rows = rows[np.lexsort(rows.T[::-1])]
    starts = np.flatnonzero(np.r_[True, (rows[1:] != rows[:-1]).any(axis=1)])
    weights = np.diff(np.r_[starts, len(rows)])
    rows = rows[starts]
    flat = rows.ravel()
    rated = flat >= 0
    keys = np.repeat(np.arange(len(rows)), rows.shape[1])[rated] * n_values + flat[rated]
    keys, counts = np.unique(keys, return_counts=True)
    return _Profiles(
        weights=weights,
        sizes=(rows >= 0).sum(axis=1),
        rows=rows,
        value_profile=keys // n_values,
        value=keys % n_values,
        value_count=counts,
    )


def _fleiss_and_ac1(p: _Profiles, n_values: int) -> tuple[float | None, ...]:
    """Percent agreement, Gwet's generalised Fleiss' kappa and AC1."""
    n_pairable = p.pairable_items
    if n_pairable == 0:
        return None, None, None
    weight = p.weights[p.value_profile].astype(float)
    size = p.sizes[p.value_profile].astype(float)
    count = p.value_count.astype(float)
    pairable = p.pairable[p.value_profile]
    # Items with a single rating are masked out; the maximum only spares them a 0 / 0.
    pa = float(
        np.sum((weight * count * (count - 1) / np.maximum(size * (size - 1), 1))[pairable])
        / n_pairable
    )
    if n_values == 1:
        return pa, None, None
    shares = np.bincount(p.value, weights=weight * count / size, minlength=n_values)
    shares /= p.weights.sum()
    pe_fleiss = float(np.sum(shares**2))
    pe_ac1 = float(np.sum(shares * (1 - shares)) / (n_values - 1))
    return pa, (pa - pe_fleiss) / (1 - pe_fleiss), (pa - pe_ac1) / (1 - pe_ac1)


@dataclass(frozen=True)
class _AlphaTerms:
    """Per pairable profile: its number of items, its observed disagreement and its number
    of values; plus its value triples, sorted by value, for the expected disagreement."""

    weights: np.ndarray
    disagreement: np.ndarray
    sizes: np.ndarray
    triple_profile: np.ndarray
    triple_count: np.ndarray
    value_starts: np.ndarray
    values: np.ndarray


def _alpha(
    p: _Profiles, distances: np.ndarray | None, n_values: int, notes: list[str]
) -> tuple[float | None, _AlphaTerms | None]:
    pairable = np.flatnonzero(p.pairable)
    if len(pairable) == 0 or n_values == 1:
        return None, None
    sizes = p.sizes[pairable].astype(float)
    if distances is None:
        squares = np.bincount(
            p.value_profile, weights=p.value_count.astype(float) ** 2, minlength=len(p.sizes)
        )[pairable]
        disagreement = (sizes**2 - squares) / (sizes - 1)
    else:
        rows = p.rows[pairable]
        pair_sum = np.zeros(len(pairable))
        for i, j in combinations(range(rows.shape[1]), 2):
            both = (rows[:, i] >= 0) & (rows[:, j] >= 0)
            pair_sum[both] += distances[rows[both, i], rows[both, j]]
        disagreement = 2 * pair_sum / (sizes - 1)
    position = np.full(len(p.sizes), -1)
    position[pairable] = np.arange(len(pairable))
    in_pairable = position[p.value_profile] >= 0
    order = np.argsort(p.value[in_pairable], kind="stable")
    values = p.value[in_pairable][order]
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    weights = p.weights[pairable]
    terms = _AlphaTerms(
        weights=weights,
        disagreement=disagreement,
        sizes=sizes,
        triple_profile=position[p.value_profile][in_pairable][order],
        triple_count=p.value_count[in_pairable][order].astype(float),
        value_starts=starts,
        values=values[starts],
    )
    if len(terms.values) == 1:
        notes.append(
            "krippendorff_alpha: undefined: every rating of the items with two or more ratings"
            " is the same value, so there is no expected disagreement"
        )
        return None, None
    alpha = _alpha_of_counts(weights[:, np.newaxis].astype(float), terms, distances)[0]
    return float(alpha), terms


def _alpha_of_counts(
    counts: np.ndarray, terms: _AlphaTerms, distances: np.ndarray | None
) -> np.ndarray:
    """Alpha for each column of `counts` (profiles x draws: how many times each pairable
    profile is taken); NaN where a draw has no expected disagreement (a single value).
    Profiles run down the rows so that gathering them copies whole rows."""
    observed = terms.disagreement @ counts
    n = terms.sizes @ counts
    by_value = np.add.reduceat(
        counts[terms.triple_profile] * terms.triple_count[:, np.newaxis],
        terms.value_starts,
        axis=0,
    )
    if distances is None:
        expected = n * n - np.sum(by_value * by_value, axis=0)
    else:
        present = distances[np.ix_(terms.values, terms.values)]
        expected = np.sum((present @ by_value) * by_value, axis=0)
    alpha = np.full(counts.shape[1], np.nan)
    defined = expected > 0
    alpha[defined] = 1 - (n[defined] - 1) * observed[defined] / expected[defined]
    return alpha


def _pairs(
    codes: np.ndarray,
    categories: Sequence[Value],
    annotators: Sequence[str],
    most_confused: int,
    notes: list[str],
) -> tuple[list[dict], list[dict], list[dict]]:
    """Cohen's kappa and the confusion matrix of each annotator pair, and the team's most
    confused value pairs."""
    n_values = len(categories)
    pairs, confusion, confused_keys = [], [], []
    for a, b in combinations(range(len(annotators)), 2):
        names = [annotators[a], annotators[b]]
        both = (codes[:, a] >= 0) & (codes[:, b] >= 0)
        first, second = codes[both, a], codes[both, b]
        present = np.union1d(first, second)
        size = len(present)
        table = np.bincount(
            np.searchsorted(present, first) * size + np.searchsorted(present, second),
            minlength=size * size,
        ).reshape(size, size)
        differ = first != second
        confused_keys.append(
            np.minimum(first[differ], second[differ]) * n_values
            + np.maximum(first[differ], second[differ])
        )
        kappa, ci = _cohen(table)
        if len(first) == 0:
            notes.append(f"cohen_kappa {names[0]} / {names[1]}: they rated no item in common")
        elif kappa is None:
            notes.append(
                f"cohen_kappa {names[0]} / {names[1]}: undefined: on their {len(first)} shared"
                f" items both used only {_label(categories[present[0]])} (chance agreement is 1)"
            )
        pairs.append({"annotators": names, "items": len(first), "kappa": kappa, "ci95": ci})
        confusion.append(
            {
                "annotators": names,
                "categories": [_show(categories[value]) for value in present],
                "matrix": table.tolist(),
            }
        )
    confused = []
    if confused_keys:
        keys, counts = np.unique(np.concatenate(confused_keys), return_counts=True)
        for index in np.lexsort((keys, -counts))[:most_confused]:
            x, y = divmod(int(keys[index]), n_values)
            confused.append(
                {
                    "categories": [_show(categories[x]), _show(categories[y])],
                    "count": int(counts[index]),
                }
            )
    return pairs, confusion, confused


def _cohen(table: np.ndarray) -> tuple[float | None, list[float] | None]:
    """Cohen's kappa of a confusion table and its 95% CI from the large-sample variance of
    Fleiss, Cohen & Everitt (1969); None when chance agreement is 1 or the table is empty."""
    n = table.sum()
    if n == 0 or len(table) == 1:
        return None, None
    p = table / n
    row, col = p.sum(axis=1), p.sum(axis=0)
    po, pe = float(np.trace(p)), float(row @ col)
    kappa = (po - pe) / (1 - pe)
    diagonal = np.sum(np.diag(p) * (1 - (row + col) * (1 - kappa)) ** 2)
    off = p * (col[:, np.newaxis] + row[np.newaxis, :]) ** 2
    np.fill_diagonal(off, 0)
    variance = (diagonal + (1 - kappa) ** 2 * off.sum() - (kappa - pe * (1 - kappa)) ** 2) / (
        n * (1 - pe) ** 2
    )
    half = Z95 * float(np.sqrt(max(variance, 0.0)))
    return kappa, [max(-1.0, kappa - half), min(1.0, kappa + half)]


def _per_category(
    p: _Profiles,
    codes: np.ndarray,
    categories: Sequence[Value],
    annotators: Sequence[str],
    multiple: bool,
    notes: list[str],
) -> list[dict]:
    """Per category (per path for multi-select): ratings using it, by annotator, and its
    one-vs-rest generalised Fleiss' kappa."""
    members = _CategoryMembers.of(categories, multiple)
    if not members.paths:
        return []
    by_path = members.uses_by_annotator(codes, len(annotators))
    pa, shares, in_pairable = _one_vs_rest(p, members)
    n_ratings = int((codes >= 0).sum())
    rows, undefined_everywhere, undefined_single = [], [], []
    for index, name in enumerate(members.paths):
        total = int(by_path[:, index].sum())
        kappa = None
        if p.pairable_items == 0:
            pass
        elif total == n_ratings:
            undefined_everywhere.append(name)
        elif not in_pairable[index]:
            undefined_single.append(name)
        else:
            pe = shares[index] ** 2 + (1 - shares[index]) ** 2
            kappa = float((pa[index] - pe) / (1 - pe))
        rows.append(
            {
                "category": name,
                "count": total,
                "by_annotator": {user: int(by_path[a, index]) for a, user in enumerate(annotators)},
                "kappa": kappa,
            }
        )
    if undefined_everywhere and len(categories) > 1:
        notes.append(
            "per_category kappa undefined for "
            + ", ".join(undefined_everywhere)
            + ": every rating uses it"
        )
    if undefined_single:
        notes.append(
            "per_category kappa undefined for "
            + ", ".join(undefined_single)
            + ": used only on items with a single rating"
        )
    return rows


@dataclass(frozen=True)
class _CategoryMembers:
    """The categories counted one against the rest (the paths of multi-select values, else
    the values), and which of them each value holds: value v holds the `count[v]` paths
    stored from `start[v]` on in `path`."""

    paths: list[str]
    count: np.ndarray
    path: np.ndarray
    start: np.ndarray

    @classmethod
    def of(cls, categories: Sequence[Value], multiple: bool) -> "_CategoryMembers":
        if multiple:
            paths = sorted(set().union(*categories))
            column = {path: index for index, path in enumerate(paths)}
            members = [[column[path] for path in value] for value in categories]
        else:
            paths = list(categories)
            members = [[index] for index in range(len(categories))]
        count = np.array([len(m) for m in members], dtype=np.intp)
        path = np.array([path for m in members for path in m], dtype=np.intp)
        start = np.r_[0, np.cumsum(count)[:-1]].astype(np.intp)
        return cls(paths, count, path, start)

    def uses_by_annotator(self, codes: np.ndarray, n_annotators: int) -> np.ndarray:
        """How many ratings of each annotator (rows) use each path (columns)."""
        by_path = np.zeros((n_annotators, len(self.paths)), dtype=np.intp)
        for a in range(n_annotators):
            used = codes[codes[:, a] >= 0, a]
            by_path[a] = np.bincount(
                self.path[_expand(used, self.start, self.count)[0]], minlength=len(self.paths)
            )
        return by_path


def _one_vs_rest(
    p: _Profiles, members: _CategoryMembers
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each path: percent agreement of the two-value data (it / anything else) over the
    items with two or more ratings, its share (Gwet's pi), and whether any such item has a
    rating using it."""
    n_paths = len(members.paths)
    # Triples (profile, value, count) become (profile, path, count): a path's count in an
    # item is the number of its ratings whose value holds the path.
    positions, triple = _expand(p.value, members.start, members.count)
    path = members.path[positions]
    keys, inverse = np.unique(p.value_profile[triple] * n_paths + path, return_inverse=True)
    count = np.bincount(inverse, weights=p.value_count[triple].astype(float))
    profile, path = keys // n_paths, keys % n_paths
    weight = p.weights[profile].astype(float)
    size = p.sizes[profile].astype(float)
    pairable = p.pairable[profile]
    n_items, n_pairable = float(p.weights.sum()), p.pairable_items
    shares = np.bincount(path, weights=weight * count / size, minlength=n_paths) / n_items
    # Items with a single rating are masked out below; the maximum only spares them a 0 / 0.
    pair_terms = (count * (count - 1) + (size - count) * (size - count - 1)) / np.maximum(
        size * (size - 1), 1
    )
    pa = 1 + np.bincount(
        path[pairable], weights=(weight * (pair_terms - 1))[pairable], minlength=n_paths
    ) / max(n_pairable, 1)
    in_pairable = np.bincount(path[pairable], minlength=n_paths) > 0
    return pa, shares, in_pairable


def _expand(
    values: np.ndarray, start: np.ndarray, count: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each of `values` stands for count[v] members stored from start[v] on in a flat list:
    the positions of all their members in that list, and which of `values` each came from."""
    repeat = count[values]
    owner = np.repeat(np.arange(len(values)), repeat)
    offset = np.arange(len(owner)) - np.repeat(np.cumsum(repeat) - repeat, repeat)
    return start[values[owner]] + offset, owner


def _masi_distances(categories: Sequence[frozenset[str]]) -> np.ndarray:
    """MASI distance between every two sets: 1 - Jaccard x monotonicity (1 equal, 2/3
    subset, 1/3 overlap, 0 disjoint); two empty sets are equal."""
    paths = sorted(set().union(*categories))
    column = {path: index for index, path in enumerate(paths)}
    membership = np.zeros((len(categories), len(paths)))
    for row, value in enumerate(categories):
        membership[row, [column[path] for path in value]] = 1
    sizes = membership.sum(axis=1)
    intersection = membership @ membership.T
    union = sizes[:, np.newaxis] + sizes[np.newaxis, :] - intersection
    smaller = np.minimum(sizes[:, np.newaxis], sizes[np.newaxis, :])
    equal = intersection == union
    monotonicity = np.select(
        [equal, intersection == smaller, intersection > 0], [1.0, 2 / 3, 1 / 3], 0.0
    )
    jaccard = np.divide(intersection, union, out=np.ones_like(union), where=union > 0)
    return 1 - jaccard * monotonicity


def _compact(
    codes: np.ndarray,
    categories: Sequence[Value],
    annotators: Sequence[str],
    multiple: bool,
    bootstrap: int,
    most_confused: int,
) -> tuple[np.ndarray, list[Value], list[str], np.ndarray]:
    """Validates agreement_from_codes' input and drops unused values, annotators with no
    rating and items with no rating (it returns which items it kept)."""
    codes = np.asarray(codes)
    if codes.ndim != 2 or not (np.issubdtype(codes.dtype, np.integer) or codes.size == 0):
        raise ValueError(f"codes: an integer matrix (items x annotators), got shape {codes.shape}")
    if codes.shape[1] != len(annotators):
        raise ValueError(
            f"codes has {codes.shape[1]} annotator columns but {len(annotators)} annotators"
        )
    if len(set(annotators)) != len(annotators):
        raise ValueError("annotators: each username once")
    if len(set(categories)) != len(categories):
        raise ValueError("categories: each value once")
    if codes.size and (codes.min() < -1 or codes.max() >= len(categories)):
        raise ValueError(
            f"codes: -1 (missing) or an index into the {len(categories)} categories,"
            f" found {int(codes.min())}..{int(codes.max())}"
        )
    expected = frozenset if multiple else str
    for value in categories:
        if not isinstance(value, expected):
            raise ValueError(f"categories: {value!r} is not a {expected.__name__}")
    for name, number in (("bootstrap", bootstrap), ("most_confused", most_confused)):
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise ValueError(f"{name}: a whole number >= 0, got {number!r}")
    codes = codes.astype(np.intp)
    rated = codes >= 0
    items = rated.any(axis=1)
    codes = codes[items][:, rated.any(axis=0)]
    annotators = [name for name, used in zip(annotators, rated.any(axis=0), strict=True) if used]
    used = np.zeros(len(categories), dtype=bool)
    used[codes[codes >= 0]] = True
    # One spare slot at the end, so that renumber[-1] keeps a missing rating missing.
    renumber = np.full(len(categories) + 1, -1, dtype=np.intp)
    renumber[np.flatnonzero(used)] = np.arange(used.sum())
    codes = renumber[codes]
    return (
        codes,
        [c for c, u in zip(categories, used, strict=True) if u],
        annotators,
        items,
    )


def _encode(
    items: Sequence[Hashable], by_item: Sequence[Mapping[str, Value]], multiple: bool
) -> tuple[np.ndarray, list[Value], list[str]]:
    names: list[str] = []
    values: list[Value] = []
    for ratings_of_item in by_item:
        names.extend(ratings_of_item)
        values.extend(ratings_of_item.values())
    distinct_names = set(names)
    for name in distinct_names:
        if not isinstance(name, str):
            item, _ = _first(items, by_item, lambda annotator, _, bad=name: annotator == bad)
            raise ValueError(f"item {item!r}: annotator {name!r} is not a username")
    expected = frozenset if multiple else str
    try:
        distinct_values = set(values)
    except TypeError:
        distinct_values = set()
    for value in distinct_values or values:
        if not _valid(value, expected):
            where = _first(items, by_item, lambda _, v, bad=value: v is bad or v == bad)
            raise ValueError(
                f"item {where[0]!r}, annotator {where[1]!r}: {value!r} is not "
                + ("a frozenset of category paths" if multiple else "a category path")
            )
    annotators = sorted(distinct_names)
    categories = sorted(distinct_values, key=lambda v: tuple(sorted(v)) if multiple else v)
    column = {name: index for index, name in enumerate(annotators)}
    code = {value: index for index, value in enumerate(categories)}
    codes = np.full((len(items), len(annotators)), -1, dtype=np.intp)
    sizes = np.fromiter(map(len, by_item), dtype=np.intp, count=len(by_item))
    codes[
        np.repeat(np.arange(len(items)), sizes),
        np.fromiter(map(column.__getitem__, names), dtype=np.intp, count=len(names)),
    ] = np.fromiter(map(code.__getitem__, values), dtype=np.intp, count=len(values))
    return codes, categories, annotators


def _valid(value: object, expected: type) -> bool:
    if not isinstance(value, expected):
        return False
    return expected is str or all(isinstance(member, str) for member in value)


def _first(
    items: Sequence[Hashable], by_item: Iterable[Mapping[str, Value]], matches
) -> tuple[Hashable, str]:
    for item, ratings_of_item in zip(items, by_item, strict=True):
        for annotator, value in ratings_of_item.items():
            if matches(annotator, value):
                return item, annotator
    raise AssertionError("a bad rating was seen but not found again")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _label(value: Value) -> str:
    """A value in a note: a path as it is, a set as {a, b}."""
    return "{" + ", ".join(sorted(value)) + "}" if isinstance(value, frozenset) else value


def _show(value: Value) -> str | list[str]:
    """A value as JSON: a path stays a string, a set becomes its sorted list of paths."""
    return sorted(value) if isinstance(value, frozenset) else value
