"""Prevalence in a frame and the positives a team leaves behind by stopping. Pure: no Django.

Two prevalence estimates, both named in what they return:
- from the random sample's labels alone (Wilson's score interval);
- prediction-powered inference (Angelopoulos et al., Science 2023), with the power tuning of
  PPI++ (Angelopoulos, Duchi and Zrnic, 2023): the model's mean score over the frame,
  corrected by the mean error (label minus score) over the random labelled sample, so a biased
  model moves the interval's width, never its validity. The labelled items' scores must be
  out-of-fold and the other reports' the fold models' mean (cross-prediction, Zrnic and
  Candes, PNAS 2024), and the labelled items a random sample of the same frame: a batch drawn
  by score is not, and never enters either estimate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist

import numpy as np

CONFIDENCE = 0.95
BOOTSTRAP_DRAWS = 1_000
SEED = 0

RANDOM_SAMPLE_METHOD = "random sample's labels alone (Wilson score interval)"
PPI_METHOD = (
    "prediction-powered inference (Angelopoulos et al., Science 2023; power-tuned as in PPI++): "
    "model scores over the frame (out of fold for labelled reports, the fold models' mean for "
    "the others, as in cross-prediction), corrected by the random sample's labels"
)
REMAINING_METHOD = (
    "sum of calibrated scores of the unlabelled scored reports (the fold models' mean; Platt "
    "scaling fitted on out-of-fold scores of every labelled item); interval from {draws} "
    "bootstrap draws of the calibration, each with the spread of the outcomes"
)


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float
    method: str
    n: int

    def as_dict(self) -> dict:
        return asdict(self)


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(1 - (1 - confidence) / 2)


def random_sample_share(truth: Sequence[int], *, confidence: float = CONFIDENCE) -> Interval:
    """The share of positives among a random sample's labels, with Wilson's score interval
    (it stays within [0, 1] and keeps its coverage near 0, where a bug kind's share often is)."""
    n = len(truth)
    if n == 0:
        raise ValueError("no labelled item in a random batch: nothing to estimate from")
    share = sum(truth) / n
    z = _z(confidence)
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n))
    return Interval(
        share, max(0.0, centre - half), min(1.0, centre + half), RANDOM_SAMPLE_METHOD, n
    )


def ppi_lambda(truth: np.ndarray, scores: np.ndarray, unlabelled: np.ndarray) -> float:
    """PPI++'s power-tuning weight for a mean, in [0, 1]: 0 ignores the model (the classical
    estimate), 1 is the original PPI; in between, the weight of least variance."""
    n, big_n = len(truth), len(unlabelled)
    covariance = np.mean((truth - truth.mean()) * (scores - scores.mean()))
    variance = np.var(np.concatenate([scores, unlabelled]), ddof=1)
    if variance == 0:
        return 0.0
    return float(np.clip(covariance / ((1 + n / big_n) * variance), 0, 1))


def ppi_share(
    truth: Sequence[int],
    scores: Sequence[float],
    unlabelled_scores: Sequence[float],
    *,
    confidence: float = CONFIDENCE,
    weight: float | None = None,
) -> Interval:
    """The prediction-powered estimate of the share of positives and its normal interval.

    `truth` and `scores` are the random sample's labels and out-of-fold scores; `unlabelled_scores`
    the model's scores of the frame's other reports. `weight` None tunes it (PPI++); 1 is PPI."""
    y = np.asarray(truth, dtype=float)
    s = np.asarray(scores, dtype=float)
    u = np.asarray(unlabelled_scores, dtype=float)
    if len(y) == 0:
        raise ValueError("no labelled item in a random batch: nothing to estimate from")
    if len(u) == 0:
        raise ValueError("no unlabelled report in the frame to carry the model's scores")
    lam = ppi_lambda(y, s, u) if weight is None else weight
    estimate = float(np.mean(lam * u) + np.mean(y - lam * s))
    error = math.sqrt(np.var(lam * u) / len(u) + np.var(y - lam * s) / len(y))
    half = _z(confidence) * error
    return Interval(estimate, estimate - half, estimate + half, PPI_METHOD, len(y))


def _platt(scores: np.ndarray, truth: np.ndarray, iterations: int = 50) -> tuple[float, float]:
    """(a, b) of P(positive) = 1 / (1 + exp(-(a * logit(score) + b))), by Newton's method with
    a small ridge so a perfectly separated sample still gives finite weights."""
    x = np.log(np.clip(scores, 1e-6, 1 - 1e-6) / (1 - np.clip(scores, 1e-6, 1 - 1e-6)))
    design = np.column_stack([x, np.ones_like(x)])
    weights = np.zeros(2)
    ridge = 1e-3 * np.eye(2)
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-(design @ weights)))
        gradient = design.T @ (truth - p) - ridge @ weights
        hessian = (design * (p * (1 - p))[:, None]).T @ design + ridge
        step = np.linalg.solve(hessian, gradient)
        weights += step
        if np.abs(step).max() < 1e-8:
            break
    return float(weights[0]), float(weights[1])


def _calibrated(scores: np.ndarray, a: float, b: float) -> np.ndarray:
    clipped = np.clip(scores, 1e-6, 1 - 1e-6)
    return 1 / (1 + np.exp(-(a * np.log(clipped / (1 - clipped)) + b)))


def positives_remaining(
    truth: Sequence[int],
    labelled_scores: Sequence[float],
    unlabelled_scores: Sequence[float],
    *,
    confidence: float = CONFIDENCE,
    draws: int = BOOTSTRAP_DRAWS,
    seed: int = SEED,
) -> Interval:
    """The expected number of positives among the scored reports nobody labelled yet.

    Calibration maps a score to the chance of a positive; it is fitted on every labelled item
    (prioritised batches too: they were chosen by score, and P(positive | score) does not depend
    on how items were chosen by score). The interval draws the labelled items again with
    replacement, refits the calibration and adds each draw's outcome spread (a sum of
    independent yes/no outcomes, taken as normal)."""
    y = np.asarray(truth, dtype=float)
    s = np.asarray(labelled_scores, dtype=float)
    u = np.asarray(unlabelled_scores, dtype=float)
    a, b = _platt(s, y)
    expected = float(_calibrated(u, a, b).sum())
    rng = np.random.default_rng(seed)
    totals = np.empty(draws)
    for index in range(draws):
        chosen = rng.integers(0, len(y), len(y))
        p = _calibrated(u, *_platt(s[chosen], y[chosen]))
        totals[index] = p.sum() + rng.standard_normal() * math.sqrt(float((p * (1 - p)).sum()))
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(totals, [tail, 100 - tail])
    return Interval(
        expected,
        max(0.0, float(low)),
        min(float(len(u)), float(high)),
        REMAINING_METHOD.format(draws=draws),
        len(y),
    )
