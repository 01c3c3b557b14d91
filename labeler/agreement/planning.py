"""How many items to double-code: before labelling, by simulation; during it, from the
interval the study has now. No Django here.

Before labelling (`plan_before`): given the agreement expected (alpha, or Cohen's or Fleiss'
kappa), the categories' expected shares, k annotators and the interval half-width wanted,
simulate studies of n items and measure the half-width of the interval the product would
report on them: the same estimator and the same percentile bootstrap over items
(labeler.agreement.intervals), seeded. The half-width of a bootstrap interval shrinks as
1/sqrt(n), so n starts from a pilot, is scaled by (found / wanted)^2 and re-simulated until
the half-width found is within 5% of the one wanted (at most `rounds` times); the answer is
the last n, with the half-width its simulations gave.

The simulated annotators follow the common-correlation model (Bloch & Kraemer 1989; Donner
& Eliasziw 1992; kappaSize): each item's true category is drawn from the shares, and each
annotator gives it with probability sqrt(expected), else a category drawn from the shares
independently. Every annotator then uses each category at its share, and two annotators
agree beyond chance by exactly `expected` (their Scott's pi, Fleiss' kappa and, for large n,
alpha and Cohen's kappa equal it). For two annotators and two categories this is the model
of Bloch & Kraemer's large-sample variance of kappa, which the tests check the simulation
against. They also check it against the sample sizes of kappaSize (Rotondi & Donner 2012;
the tables of Donner & Rotondi 2010), whose criterion (both expected limits within +-h, the
variance taken at the limits) is conservative: the plan asks for 68-96% of its items, and at the
plan's number the 95% range of Fleiss' kappa over simulated studies is +-h, within 10%.

During labelling (`plan_during`): the interval the study reports now has half-width h on n
items; at today's agreement h shrinks as 1/sqrt(n), so n (h / wanted)^2 items reach the
half-width wanted, and the difference is how many more items to double-code.
"""

import math
from collections.abc import Sequence

import numpy as np

from labeler.agreement.intervals import coefficient_draws, make_draws, summary

PLANNED = ("krippendorff_alpha", "mean_cohen_kappa", "fleiss_kappa")
# The most categories a plan takes shares for.
MAX_SHARES = 50
TOLERANCE = 0.05
METHOD = (
    "simulation: studies of n items drawn from the common-correlation model (each annotator"
    " gives the true category with probability sqrt(expected), else one drawn from the"
    " shares), each measured with the product's estimator and percentile bootstrap over items;"
    " n scaled by (half-width found / wanted)^2 until within 5%"
)


def shares_from_text(text: str) -> list[float]:
    """The categories' expected shares from "0.2,0.3,0.5" (commas, spaces allowed); ValueError
    saying what is wrong."""
    try:
        shares = [float(part) for part in text.split(",")]
    except ValueError:
        raise ValueError("numbers separated by commas") from None
    if not 2 <= len(shares) <= MAX_SHARES or any(not share > 0 for share in shares):
        raise ValueError(f"2 to {MAX_SHARES} positive shares")
    return shares


def simulate_codes(
    *, items: int, shares: Sequence[float], expected: float, annotators: int, rng
) -> np.ndarray:
    """Codes (items x annotators) of one simulated study (see the module docstring)."""
    shares = np.asarray(shares, dtype=float)
    truth = rng.choice(len(shares), size=items, p=shares)
    chance = rng.choice(len(shares), size=(items, annotators), p=shares)
    keep = rng.random((items, annotators)) < math.sqrt(expected)
    return np.where(keep, truth[:, np.newaxis], chance)


def half_width(codes: np.ndarray, coefficient: str, draws: int, seed: int) -> float | None:
    """Half the width of the coefficient's bootstrap interval on `codes`, as the product
    reports it (None when it has none)."""
    used = np.unique(codes)
    renumbered = np.searchsorted(used, codes)
    run = make_draws(renumbered, draws=draws, seed=seed)
    on_draws = coefficient_draws(renumbered, len(used), run)
    values = on_draws.coefficients[coefficient]
    if np.isnan(values[0]):
        return None
    interval = summary(values, float(values[0]))
    if interval["ci95"] is None:
        return None
    low, high = interval["ci95"]
    return (high - low) / 2


def plan_before(
    *,
    expected: float,
    shares: Sequence[float],
    half_width_wanted: float,
    annotators: int = 2,
    coefficient: str = "krippendorff_alpha",
    draws: int = 400,
    replicates: int = 4,
    seed: int = 0,
    pilot: int = 200,
    rounds: int = 4,
) -> dict:
    """How many items k annotators must each label for the coefficient's 95% interval to
    have the half-width wanted, by simulation (see the module docstring). Raises ValueError
    naming the argument that is out of range."""
    _check(expected, shares, half_width_wanted, annotators, coefficient, draws, replicates)
    shares = np.asarray(shares, dtype=float) / float(np.sum(shares))
    rng = np.random.default_rng(seed)
    items, found, history = pilot, None, []
    for _ in range(rounds):
        widths = []
        for replicate in range(replicates):
            codes = simulate_codes(
                items=items, shares=shares, expected=expected, annotators=annotators, rng=rng
            )
            width = half_width(codes, coefficient, draws, seed + replicate)
            if width is not None:
                widths.append(width)
        found = float(np.mean(widths)) if widths else None
        history.append({"items": items, "half_width": found})
        if found is None:
            break
        if abs(found - half_width_wanted) <= TOLERANCE * half_width_wanted:
            break
        items = max(2, math.ceil(items * (found / half_width_wanted) ** 2))
    return {
        "items": history[-1]["items"],
        "half_width": found,
        "half_width_wanted": half_width_wanted,
        "coefficient": coefficient,
        "expected": expected,
        "shares": shares.tolist(),
        "annotators": annotators,
        "method": METHOD,
        "draws": draws,
        "replicates": replicates,
        "seed": seed,
        "rounds": history,
    }


def plan_before_asked(asked: dict) -> dict:
    """plan_before on what the plan page's form or the plan API's query asked: expected,
    shares, half_width, annotators, coefficient, seed."""
    return plan_before(
        expected=asked["expected"],
        shares=asked["shares"],
        half_width_wanted=asked["half_width"],
        annotators=asked["annotators"],
        coefficient=asked["coefficient"],
        seed=asked["seed"],
    )


def plan_during(
    *, items: int, ci95: Sequence[float] | None, half_width_wanted: float
) -> dict | None:
    """From the interval on `items` double-coded items now: its half-width, and how many
    more items bring it to the half-width wanted at today's agreement (0 when it is there;
    None when the interval has no width, which measures nothing); None without an interval."""
    if ci95 is None or items < 1:
        return None
    now = (ci95[1] - ci95[0]) / 2
    if now <= 0:
        return {
            "items": items,
            "half_width": 0.0,
            "half_width_wanted": half_width_wanted,
            "items_needed": None,
            "more_items": None,
            "method": "the interval has no width (every draw gives the same value, as with"
            " full agreement on few items): it says nothing of how many more items are needed",
        }
    needed = (
        items if now <= half_width_wanted else math.ceil(items * (now / half_width_wanted) ** 2)
    )
    return {
        "items": items,
        "half_width": now,
        "half_width_wanted": half_width_wanted,
        "items_needed": needed,
        "more_items": needed - items,
        "method": "the half-width shrinks as 1/sqrt(items) at today's agreement",
    }


def _check(expected, shares, wanted, annotators, coefficient, draws, replicates) -> None:
    if isinstance(expected, bool) or not isinstance(expected, int | float) or not 0 < expected < 1:
        raise ValueError(f"expected: a coefficient between 0 and 1, got {expected!r}")
    if len(shares) < 2 or any(not isinstance(s, int | float) or s <= 0 for s in shares):
        raise ValueError("shares: two or more positive expected shares of the categories")
    if isinstance(wanted, bool) or not isinstance(wanted, int | float) or not 0 < wanted < 1:
        raise ValueError(f"half_width_wanted: a number between 0 and 1, got {wanted!r}")
    if isinstance(annotators, bool) or not isinstance(annotators, int) or annotators < 2:
        raise ValueError(f"annotators: a whole number >= 2, got {annotators!r}")
    if coefficient not in PLANNED:
        raise ValueError(f"coefficient: one of {', '.join(PLANNED)}, got {coefficient!r}")
    for name, number in (("draws", draws), ("replicates", replicates)):
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            raise ValueError(f"{name}: a whole number >= 1, got {number!r}")
