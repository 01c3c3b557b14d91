"""A 95% interval for every agreement coefficient, from one seeded set of bootstrap draws.

No Django here. A run (one `agreement --json`, one page) draws its bootstrap once: `Draws`
says, for each draw, how many times it takes each item, and every figure of the run (each
dimension, level, category, batch or window, and the hierarchy alpha) is computed on those
same draws. So two figures' draws are paired, and the difference between two batches has
an interval of its own (`difference`).

A draw is a percentile bootstrap over items: the items are drawn with replacement, as many
as there are, within each stratum (the batch or window when a run is split by one, so that
each keeps its size; else the whole study is one stratum). Items alike in every figure of a
run (the same annotator's same value in every dimension, in the same stratum) form a group:
a draw is drawn as how many times it takes each group, a multinomial over the groups
(`resample_counts`), and each figure is a few products over its distinct rating patterns
(its groups merged), never a pass over the items: draws cost patterns x draws, not items x
draws. 1,000 draws of 100,000 items x 3 annotators take a fraction of a second.

Every figure computed on the draws is the same formula as its point estimate
(labeler.agreement.statistics), the point estimate being the "draw" that takes every item
once; its interval is the 2.5th and 97.5th percentiles (numpy's linear interpolation) of the
draws where it is defined. An interval is flagged `degenerate` (with the reason) when some
draws have no value (a category no draw's pairs used, a single value), when it has no width,
or when it misses the estimate (a skewed statistic: read it with care).

Analytic intervals, beside the bootstrap (method "gwet"): Gwet's large-sample variances of
percent agreement, the generalised Fleiss' kappa and AC1 (Gwet 2008, British Journal of
Mathematical and Statistical Psychology 61; Handbook of Inter-Rater Reliability, 4th ed.,
as irrCAC computes them, with no finite-population correction), estimate +- t SE with t the
97.5th percentile of Student's t with n - 1 degrees of freedom (n the items the figure
counts, as irrCAC's pa.coeff.raw, fleiss.kappa.raw and gwet.ac1.raw do), clipped to
[-1, 1]. Each category against the rest has the same three on its two-value data ("c" /
anything else). These are variances of the estimate: Fleiss' (1971) standard error is
computed under the hypothesis of no agreement and only tests kappa = 0; it is no interval
for the estimate and is not given. Each pair's Cohen's kappa also has the large-sample
interval of Fleiss, Cohen & Everitt (1969) ("fleiss-cohen-everitt", computed in
labeler.agreement.statistics; a normal quantile, as that paper gives it).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np

# Floats held at once by one block of draws: bounds memory whatever the data.
BOOTSTRAP_BLOCK = 4_000_000
# A group shared by at most this many items is drawn by throwing items into groups (a
# random integer per item) rather than by a binomial variate (dearer than ~16 integers).
RARE_WEIGHT = 16
COEFFICIENTS = (
    "percent_agreement",
    "mean_cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "gwet_ac1",
)
ANALYTIC = ("percent_agreement", "fleiss_kappa", "gwet_ac1")
# Each category against the rest: its generalised Fleiss' kappa ("kappa", as the per-category
# rows have always had), percent agreement, AC1 and alpha of the two-value data.
PER_CATEGORY = (
    "kappa",
    "category_percent_agreement",
    "category_gwet_ac1",
    "category_krippendorff_alpha",
)
# Each category's coefficients that have Gwet's analytic interval: the top-level name of the
# formula -> the PER_CATEGORY name.
CATEGORY_ANALYTIC = {
    "percent_agreement": "category_percent_agreement",
    "fleiss_kappa": "kappa",
    "gwet_ac1": "category_gwet_ac1",
}
METHODS = {
    "bootstrap": (
        "percentile bootstrap over items (2.5th and 97.5th percentiles of the draws where the"
        " figure is defined), one seeded set of draws shared by every figure of the run"
    ),
    "gwet": (
        "Gwet's large-sample variance of the estimate (Gwet 2008; Handbook of Inter-Rater"
        " Reliability, 4th ed.; as irrCAC), estimate +- t SE with t the 97.5th percentile of"
        " Student's t with n - 1 degrees of freedom (n the items rated), clipped to [-1, 1];"
        " not Fleiss' (1971) standard error under no agreement, which only tests kappa = 0"
    ),
    "fleiss-cohen-everitt": (
        "large-sample variance of Cohen's kappa (Fleiss, Cohen & Everitt 1969), estimate +-"
        " 1.96 SE clipped to [-1, 1]"
    ),
}


@dataclass(frozen=True)
class Draws:
    """One run's bootstrap draws: item i is in group `group[i]`; `weights[g]` items are in
    group g; draw d takes `counts[g, d]` items of group g. `strata` names what the draws are
    stratified by (None: the whole run is one stratum)."""

    seed: int
    group: np.ndarray
    weights: np.ndarray
    counts: np.ndarray
    strata: str | None = None

    @property
    def draws(self) -> int:
        return self.counts.shape[1]

    def subset(self, mask: np.ndarray) -> "Draws":
        """The same draws seen by a figure of the items in `mask` (whole groups only: a
        batch or window the draws are stratified by, or the items rated in a dimension)."""
        mask = np.asarray(mask, dtype=bool)
        if len(mask) != len(self.group):
            raise ValueError(f"mask: one flag per item ({len(self.group)}), got {len(mask)}")
        group = self.group[mask]
        taken = np.bincount(group, minlength=len(self.weights))
        if np.any((taken > 0) & (taken != self.weights)):
            raise ValueError("mask: a figure's items must be whole groups of the run's draws")
        return Draws(self.seed, group, self.weights, self.counts, self.strata)

    def describe(self) -> dict:
        return {
            "draws": self.draws,
            "seed": self.seed,
            "method": METHODS["bootstrap"],
            "strata": self.strata,
        }


def make_draws(
    keys: np.ndarray,
    *,
    draws: int,
    seed: int,
    strata: np.ndarray | None = None,
    strata_name: str | None = None,
) -> Draws:
    """The run's draws. `keys` (items x k integers) holds everything a figure of the run
    reads of an item (every dimension's codes at the finest level); `strata` (one label per
    item) what the draws are stratified by; `draws` 0 groups the items and draws nothing.
    Seeded with numpy's Generator(seed); the same keys, strata and seed give the same draws
    whatever the order of the items."""
    keys = np.asarray(keys)
    if keys.ndim != 2:
        raise ValueError(f"keys: a matrix (items x columns), got shape {keys.shape}")
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 0:
        raise ValueError(f"draws: a whole number >= 0, got {draws!r}")
    columns = [keys[:, j] for j in range(keys.shape[1])]
    if strata is not None:
        strata = np.asarray(strata)
        if len(strata) != len(keys):
            raise ValueError(f"strata: one label per item ({len(keys)}), got {len(strata)}")
        columns.insert(0, np.unique(strata, return_inverse=True)[1])
    group, weights, first = _groups(columns, len(keys))
    rng = np.random.default_rng(seed)
    counts = np.zeros((len(weights), draws), dtype=np.int32)
    if draws == 0:
        return Draws(seed, group, weights, counts, None)
    if strata is None:
        counts[:] = resample_counts(rng, weights, draws)
    else:
        stratum = columns[0][first]
        for label in np.unique(stratum):
            members = np.flatnonzero(stratum == label)
            counts[members] = resample_counts(rng, weights[members], draws)
    return Draws(seed, group, weights, counts, strata_name if strata is not None else None)


def draws_from_indices(group: np.ndarray, indices: np.ndarray, seed: int = 0) -> Draws:
    """Draws given item by item: row d of `indices` lists the items draw d takes (a
    reference bootstrap's resamples), each item its own group."""
    indices = np.asarray(indices)
    n = len(group)
    counts = np.stack([np.bincount(row, minlength=n) for row in indices], axis=1)
    return Draws(seed, np.arange(n), np.ones(n, dtype=np.int64), counts.astype(np.int32))


def _groups(columns: list[np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each item's group (items equal in every column, groups in sorted order), the groups'
    sizes and each group's first item."""
    if not columns or n == 0:
        zeros = np.zeros(n, dtype=np.intp)
        return zeros, np.array([n] if n else [], dtype=np.int64), np.zeros(min(n, 1), np.intp)
    key = np.zeros(n, dtype=np.int64)
    span = 1
    for column in columns:
        shifted = column.astype(np.int64) - int(column.min())
        radix = int(shifted.max()) + 1
        if span * radix >= 2**62:
            _, group, weights = np.unique(
                np.column_stack(columns), axis=0, return_inverse=True, return_counts=True
            )
            break
        key = key * radix + shifted
        span *= radix
    else:
        _, group, weights = np.unique(key, return_inverse=True, return_counts=True)
    group = group.ravel()
    first = np.full(len(weights), n, dtype=np.intp)
    np.minimum.at(first, group, np.arange(n))
    return group, weights, first


def resample_counts(rng: np.random.Generator, weights: np.ndarray, draws: int) -> np.ndarray:
    """How many times each group is taken (groups x draws) when the sum(weights) items,
    weights[k] of them in group k, are drawn uniformly with replacement, `draws` times.

    A multinomial over the groups costs one binomial variate per group and draw, too many
    when there are many rare groups. Rare groups of equal weight are equally likely, so
    they share one cell of the multinomial, and each draw throws that cell's items
    uniformly into them: one cheap random integer per item, the same distribution as
    drawing the items one by one."""
    n = int(weights.sum())
    if n == 0:
        return np.zeros((len(weights), draws), dtype=np.int64)
    rare = weights <= RARE_WEIGHT
    frequent = np.flatnonzero(~rare)
    rare_groups = np.flatnonzero(rare)
    rare_weight, rare_group, group_size = np.unique(
        weights[rare], return_inverse=True, return_counts=True
    )
    cells = np.r_[weights[frequent], rare_weight * group_size]
    totals = rng.multinomial(n, cells / n, size=draws).T
    counts = np.empty((len(weights), draws), dtype=np.int64)
    counts[frequent] = totals[: len(frequent)]
    for index, size in enumerate(group_size):
        members = rare_groups[rare_group == index]
        draw = np.repeat(np.arange(draws), totals[len(frequent) + index])
        chosen = rng.integers(0, size, size=len(draw))
        counts[members] = np.bincount(chosen * draws + draw, minlength=size * draws).reshape(
            size, draws
        )
    return counts


@dataclass(frozen=True)
class CoefficientDraws:
    """A figure's coefficients: column 0 the estimate, columns 1.. the draws (NaN where a
    draw has none). `pairs[p]` is Cohen's kappa of annotator pair p (in combinations'
    order), `categories[name][c]` category c's one-vs-rest coefficient `name` (PER_CATEGORY);
    `analytic_se` Gwet's standard errors of the estimates, `category_analytic_se[name][c]`
    those of category c's (CATEGORY_ANALYTIC); `items` how many items the figure counts (n,
    for the analytic intervals' degrees of freedom)."""

    coefficients: dict[str, np.ndarray]
    pairs: np.ndarray
    categories: dict[str, np.ndarray]
    analytic_se: dict[str, float | None]
    category_analytic_se: dict[str, list[float | None]]
    items: float


def coefficient_draws(
    codes: np.ndarray,
    n_values: int,
    draws: Draws,
    *,
    distances: np.ndarray | None = None,
    members: Sequence[Sequence[int]] | None = None,
    extra_distances: dict[str, np.ndarray] | None = None,
) -> CoefficientDraws:
    """Every coefficient of `codes` (items x annotators, -1 missing, rows aligned with
    `draws.group`, every value 0..n_values-1 used and every item rated) on the estimate and
    each draw. `distances`: alpha's distance between values (None: nominal); `members`: the
    categories each value holds (multi-select; None: value v is category v), for the
    per-category kappas; `extra_distances`: further alphas by name (the hierarchy alpha)."""
    codes = np.asarray(codes)
    if len(codes) != len(draws.group):
        raise ValueError(f"codes: one row per item of the draws ({len(draws.group)})")
    present, first = np.unique(draws.group, return_index=True)
    group_rows = codes[first]
    if not np.array_equal(codes, group_rows[np.searchsorted(present, draws.group)]):
        raise ValueError("codes: items of one group of the draws must be rated alike")
    patterns, pattern_of = np.unique(group_rows, axis=0, return_inverse=True)
    pattern_of = pattern_of.ravel()
    order = np.argsort(pattern_of, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(pattern_of[order]) != 0])
    weights = np.add.reduceat(draws.weights[present][order], starts).astype(float)
    n_values = max(n_values, 1)
    value_counts = np.zeros((len(patterns), n_values))
    for a in range(patterns.shape[1]):
        rated = patterns[:, a] >= 0
        value_counts[np.flatnonzero(rated), patterns[rated, a]] += 1
    if members is None:
        membership = np.eye(n_values)
    else:
        n_categories = 1 + max((m for ms in members for m in ms), default=-1)
        membership = np.zeros((n_values, n_categories))
        for value, held in enumerate(members):
            membership[value, list(held)] = 1
    figure = _Figure(patterns, value_counts, membership, distances, extra_distances or {})
    block = max(1, BOOTSTRAP_BLOCK // max(len(patterns), len(figure.rows), 1))
    results = [figure.statistics(weights[:, np.newaxis])]
    group_counts = draws.counts[present][order]
    for start in range(0, draws.draws, block):
        counts = np.add.reduceat(group_counts[:, start : start + block], starts, axis=0)
        results.append(figure.statistics(counts.astype(float)))
    joined = {key: np.concatenate([r[key] for r in results], axis=-1) for key in results[0]}
    return CoefficientDraws(
        coefficients={key: joined[key] for key in joined if key not in ("pairs", *PER_CATEGORY)},
        pairs=joined["pairs"],
        categories={name: joined[name] for name in PER_CATEGORY},
        analytic_se=figure.analytic_se(weights),
        category_analytic_se=figure.category_analytic_se(weights),
        items=float(weights.sum()),
    )


class _Figure:
    """One figure's rating patterns: `patterns` (P x annotators, -1 missing), `value_counts`
    (P x values: r_pk, how many ratings of a pattern are value k).

    Every coefficient is a function of a few sums over the items a draw takes, each sum a
    row of `self.rows` (sums x P) times the draw's pattern counts: one matrix product gives
    all the sums of all the draws of a block, the rest is arithmetic on small arrays."""

    def __init__(self, patterns, value_counts, membership, distances, extra_distances):
        self.patterns = patterns
        self.k = value_counts
        self.r = value_counts.sum(axis=1)
        self.pairable = self.r >= 2
        self.q = value_counts.shape[1]
        pairs_of_ratings = np.maximum(self.r * (self.r - 1), 1)
        self.pa_item = np.where(
            self.pairable, (self.k * (self.k - 1)).sum(axis=1) / pairs_of_ratings, 0.0
        )
        self.share_item = self.k / np.maximum(self.r, 1)[:, np.newaxis]
        by_category = self.by_category = self.k @ membership
        rest = self.rest = self.r[:, np.newaxis] - by_category
        category_pa_item = np.where(
            self.pairable[:, np.newaxis],
            (by_category * (by_category - 1) + rest * (rest - 1)) / pairs_of_ratings[:, np.newaxis],
            0.0,
        )
        pairable = self.pairable.astype(float)
        blocks = {
            "items": np.ones((1, len(patterns))),
            "pairable": pairable[np.newaxis],
            "pa": self.pa_item[np.newaxis],
            "shares": self.share_item.T,
            "category_pa": category_pa_item.T,
            "category_shares": (by_category / np.maximum(self.r, 1)[:, np.newaxis]).T,
            "category_pairable": (by_category * pairable[:, np.newaxis]).T,
            "category_observed": np.where(
                self.pairable[:, np.newaxis],
                2 * by_category * rest / np.maximum(self.r - 1, 1)[:, np.newaxis],
                0.0,
            ).T,
            "alpha_n": (self.r * pairable)[np.newaxis],
            "alpha_values": (self.k * pairable[:, np.newaxis]).T,
        }
        self.alphas = {"krippendorff_alpha": distances, **extra_distances}
        for name, table in self.alphas.items():
            blocks[f"{name}:observed"] = self._disagreement(table)[np.newaxis]
        self.n_pairs = 0
        for a, b in combinations(range(patterns.shape[1]), 2):
            both = (patterns[:, a] >= 0) & (patterns[:, b] >= 0)
            first = np.zeros((self.q, len(patterns)))
            second = np.zeros((self.q, len(patterns)))
            rows = np.flatnonzero(both)
            first[patterns[rows, a], rows] = 1
            second[patterns[rows, b], rows] = 1
            blocks[f"pair{self.n_pairs}:n"] = both.astype(float)[np.newaxis]
            agree = both & (patterns[:, a] == patterns[:, b])
            blocks[f"pair{self.n_pairs}:agree"] = agree.astype(float)[np.newaxis]
            blocks[f"pair{self.n_pairs}:first"] = first
            blocks[f"pair{self.n_pairs}:second"] = second
            self.n_pairs += 1
        self.slices, start = {}, 0
        for name, block in blocks.items():
            self.slices[name] = slice(start, start + len(block))
            start += len(block)
        self.rows = np.concatenate(list(blocks.values()), axis=0)

    def _disagreement(self, distances):
        """Each pattern's observed disagreement, sum_{c,k} r_pc r_pk d(c, k) / (r_p - 1), 0
        for a pattern with a single rating."""
        if distances is None:
            pairs = self.r * self.r - (self.k * self.k).sum(axis=1)
        else:
            pairs = ((self.k @ distances) * self.k).sum(axis=1)
        return np.where(self.pairable, pairs / np.maximum(self.r - 1, 1), 0.0)

    def statistics(self, x: np.ndarray) -> dict[str, np.ndarray]:
        """Every coefficient for each column of x (patterns x columns: items taken)."""
        sums = self.rows @ x
        with np.errstate(divide="ignore", invalid="ignore"):
            return self._statistics(lambda name: sums[self.slices[name]], x.shape[1])

    def _statistics(self, sum_of, columns):
        n_items = sum_of("items")[0]
        n_pairable = sum_of("pairable")[0]
        pa = sum_of("pa")[0] / n_pairable
        shares = sum_of("shares") / n_items
        out = {"percent_agreement": pa}
        if self.q > 1:
            pe = (shares**2).sum(axis=0)
            out["fleiss_kappa"] = _ratio(pa - pe, 1 - pe)
            pe = (shares * (1 - shares)).sum(axis=0) / (self.q - 1)
            out["gwet_ac1"] = _ratio(pa - pe, 1 - pe)
        else:
            out["fleiss_kappa"] = out["gwet_ac1"] = np.full(columns, np.nan)
        n = sum_of("alpha_n")[0]
        by_value = sum_of("alpha_values")
        for name, distances in self.alphas.items():
            observed = sum_of(f"{name}:observed")[0]
            if distances is None:
                expected = n * n - (by_value * by_value).sum(axis=0)
            else:
                expected = ((distances @ by_value) * by_value).sum(axis=0)
            out[name] = _ratio((n - 1) * observed, expected, one_minus=True)
        pairs = []
        for pair in range(self.n_pairs):
            n_pair = sum_of(f"pair{pair}:n")[0]
            po = sum_of(f"pair{pair}:agree")[0] / n_pair
            marginals = sum_of(f"pair{pair}:first") * sum_of(f"pair{pair}:second")
            pe = marginals.sum(axis=0) / (n_pair * n_pair)
            pairs.append(_ratio(po - pe, 1 - pe))
        out["pairs"] = np.array(pairs).reshape(len(pairs), columns)
        defined = ~np.isnan(out["pairs"])
        out["mean_cohen_kappa"] = _ratio(
            np.where(defined, out["pairs"], 0).sum(axis=0), defined.sum(axis=0).astype(float)
        )
        category_pa = sum_of("category_pa") / n_pairable
        category_share = sum_of("category_shares") / n_items
        pe = category_share**2 + (1 - category_share) ** 2
        out["kappa"] = _ratio(category_pa - pe, 1 - pe)
        out["category_percent_agreement"] = category_pa
        pe = 2 * category_share * (1 - category_share)
        out["category_gwet_ac1"] = _ratio(category_pa - pe, 1 - pe)
        used = sum_of("category_pairable")
        expected = 2 * used * (n - used)
        out["category_krippendorff_alpha"] = _ratio(
            (n - 1) * sum_of("category_observed"), expected, one_minus=True
        )
        return out

    def analytic_se(self, w: np.ndarray) -> dict[str, float | None]:
        """Gwet's standard errors of percent agreement, Fleiss' kappa and AC1 from the
        pattern weights (gwet_standard_errors)."""
        return gwet_standard_errors(w, self.k)

    def category_analytic_se(self, w: np.ndarray) -> dict[str, list[float | None]]:
        """The same for each category against the rest, on its two-value data: by
        PER_CATEGORY name (the kappa, percent agreement and AC1), one per category."""
        found: dict[str, list[float | None]] = {name: [] for name in CATEGORY_ANALYTIC.values()}
        for column in range(self.by_category.shape[1]):
            two_values = np.column_stack([self.by_category[:, column], self.rest[:, column]])
            for name, se in gwet_standard_errors(w, two_values).items():
                found[CATEGORY_ANALYTIC[name]].append(se)
        return found


def gwet_standard_errors(w: np.ndarray, counts: np.ndarray) -> dict[str, float | None]:
    """Gwet's standard errors of percent agreement, Fleiss' kappa and AC1 (irrCAC's
    pa.coeff.raw, fleiss.kappa.raw and gwet.ac1.raw, N = Inf) of rating patterns: `w[p]`
    items have pattern p, which holds `counts[p, k]` ratings of value k."""
    r = counts.sum(axis=1)
    pairable = r >= 2
    q = counts.shape[1]
    n, n2 = w.sum(), w @ pairable
    if n < 2 or n2 == 0:
        return dict.fromkeys(ANALYTIC)
    pa_item = np.where(
        pairable, (counts * (counts - 1)).sum(axis=1) / np.maximum(r * (r - 1), 1), 0.0
    )
    share_item = counts / np.maximum(r, 1)[:, np.newaxis]
    pa = (w @ pa_item) / n2
    shares = (w @ share_item) / n
    scale = n / n2

    def se(terms):
        return float(np.sqrt((w @ (terms - (w @ terms) / n) ** 2) / (n * (n - 1))))

    result: dict[str, float | None] = {"percent_agreement": se(scale * pa_item)}
    if q < 2:
        return result | {"fleiss_kappa": None, "gwet_ac1": None}
    for name, pe, pe_item in (
        ("fleiss_kappa", float(shares @ shares), share_item @ shares),
        (
            "gwet_ac1",
            float(shares @ (1 - shares)) / (q - 1),
            share_item @ (1 - shares) / (q - 1),
        ),
    ):
        if pe >= 1:
            result[name] = None
            continue
        coefficient = (pa - pe) / (1 - pe)
        item = scale * (pa_item - pe * pairable) / (1 - pe)
        item = item - 2 * (1 - coefficient) * (pe_item - pe) / (1 - pe)
        result[name] = se(item)
    return result


def _ratio(numerator, denominator, one_minus=False):
    """numerator / denominator (1 - that when `one_minus`), NaN where the denominator is not
    positive (a coefficient with no chance disagreement is undefined)."""
    out = np.full(np.shape(numerator), np.nan)
    defined = denominator > 1e-12
    out[defined] = numerator[defined] / denominator[defined]
    if one_minus:
        out[defined] = 1 - out[defined]
    return out


def summary(values: np.ndarray, estimate: float | None) -> dict | None:
    """The bootstrap interval of one figure: {"ci95", "undefined_draws", "degenerate"}; None
    when the figure has no estimate."""
    if estimate is None:
        return None
    draws = values[1:]
    defined = draws[~np.isnan(draws)]
    undefined = len(draws) - len(defined)
    if len(defined) == 0:
        return {
            "ci95": None,
            "undefined_draws": undefined,
            "degenerate": "no draw has a value",
        }
    low, high = (float(v) for v in np.percentile(defined, [2.5, 97.5]))
    reasons = []
    if undefined:
        reasons.append(
            f"{undefined} of {len(draws)} draws have no value (too few ratings of a category"
            " or a single value in them); the interval uses the others"
        )
    if high - low < 1e-12:
        reasons.append("the interval has no width: the draws all give the same value")
    elif not low - 1e-12 <= estimate <= high + 1e-12:
        reasons.append("the interval misses the estimate: a skewed statistic")
    return {
        "ci95": [low, high],
        "undefined_draws": undefined,
        "degenerate": "; ".join(reasons) or None,
    }


def analytic(estimate: float | None, se: float | None, items: float) -> dict | None:
    """Gwet's interval: estimate +- t SE, t the 97.5th percentile of Student's t with
    items - 1 degrees of freedom (as irrCAC), clipped to [-1, 1]."""
    if estimate is None or se is None or items < 2:
        return None
    half = t_quantile(0.975, int(items) - 1) * se
    return {"ci95": [max(-1.0, estimate - half), min(1.0, estimate + half)], "se": se}


@lru_cache(maxsize=256)
def t_quantile(probability: float, df: int) -> float:
    """Student's t quantile (scipy.special.stdtrit, as scipy.stats.t.ppf computes it) for a
    probability in (0.5, 1) and df >= 1 degrees of freedom. scipy comes with scikit-learn
    (labeler.screening); it is imported here, when an analytic interval is asked for, so that
    loading this module stays light (scipy.special takes 0.2 s, scipy.stats 0.6 s)."""
    if not 0.5 < probability < 1 or df < 1:
        raise ValueError(
            f"t_quantile: probability in (0.5, 1) and df >= 1, got {probability}, {df}"
        )
    from scipy.special import stdtrit

    return float(stdtrit(df, probability))


def difference(
    earlier: np.ndarray, later: np.ndarray, earlier_estimate, later_estimate
) -> dict | None:
    """later minus earlier, with the percentile interval of the paired draws' differences."""
    if earlier_estimate is None or later_estimate is None:
        return None
    estimate = float(later_estimate - earlier_estimate)
    values = np.r_[estimate, later[1:] - earlier[1:]]
    return {"estimate": estimate, "bootstrap": summary(values, estimate)}
