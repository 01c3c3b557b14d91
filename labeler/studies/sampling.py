"""Sample sizes and seeded, proportionally stratified draws. Pure: no Django.

The sample size for a proportion comes from Cochran's formula with p = 0.5 (the most
conservative choice) and the finite population correction. A draw is reproducible: the same
frame, specification and seed always give the same items in the same order.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from statistics import NormalDist


class SampleMode(StrEnum):
    ALL = "all"
    SIZE = "size"
    CONFIDENCE = "confidence"


# The confidence levels and margins of error a new draw may ask for, at every door (API, set-up
# page, command): beyond them Cochran's size is a million items per report or a float's
# rounding (a confidence of 0.9999999999999999 is 1, whose quantile is infinite).
CONFIDENCE_MIN, CONFIDENCE_MAX = 0.5, 0.999
MARGIN_MIN, MARGIN_MAX = 0.005, 0.5


class SampleSpecError(ValueError):
    """A sampling specification that cannot be used; the message names the field."""


@dataclass(frozen=True)
class SampleSpec:
    """How many items to draw from a frame, and how to spread them over strata."""

    mode: SampleMode = SampleMode.ALL
    size: int | None = None
    confidence: float | None = None
    margin: float | None = None
    stratify: str | None = None

    def __post_init__(self) -> None:
        if self.mode is SampleMode.SIZE and (self.size is None or self.size < 1):
            raise SampleSpecError("size: a fixed-size sample needs a size of at least 1")
        if self.mode is SampleMode.CONFIDENCE:
            if self.confidence is None or not 0 < self.confidence < 1:
                raise SampleSpecError("confidence: must be between 0 and 1, e.g. 0.95")
            if self.margin is None or not 0 < self.margin < 1:
                raise SampleSpecError("margin: must be between 0 and 1, e.g. 0.05")

    def bounds_check(self) -> None:
        """Refuse a confidence level or margin outside the bounds a new draw may ask for (a
        stored spec is read without them: its draw was made)."""
        if self.mode is not SampleMode.CONFIDENCE:
            return
        if not CONFIDENCE_MIN <= self.confidence <= CONFIDENCE_MAX:
            raise SampleSpecError(
                f"confidence: must be between {CONFIDENCE_MIN} and {CONFIDENCE_MAX}, e.g. 0.95 "
                f"(not {self.confidence!r})"
            )
        if not MARGIN_MIN <= self.margin <= MARGIN_MAX:
            raise SampleSpecError(
                f"margin: must be between {MARGIN_MIN} and {MARGIN_MAX}, e.g. 0.05 "
                f"(not {self.margin!r})"
            )

    @classmethod
    def from_dict(cls, data: Mapping) -> SampleSpec:
        unknown = set(data) - {"mode", "size", "confidence", "margin", "stratify"}
        if unknown:
            raise SampleSpecError(f"{sorted(unknown)[0]}: unknown sampling option")
        try:
            mode = SampleMode(data.get("mode", SampleMode.ALL))
        except ValueError:
            choices = ", ".join(m.value for m in SampleMode)
            raise SampleSpecError(f"mode: {data.get('mode')!r} is not one of {choices}") from None
        return cls(
            mode=mode,
            size=data.get("size"),
            confidence=data.get("confidence"),
            margin=data.get("margin"),
            stratify=data.get("stratify") or None,
        )

    def to_dict(self) -> dict:
        return {
            "mode": self.mode.value,
            "size": self.size,
            "confidence": self.confidence,
            "margin": self.margin,
            "stratify": self.stratify,
        }


def z_score(confidence: float) -> float:
    """The two-sided standard normal quantile for a confidence level (0.95 -> 1.96)."""
    return NormalDist().inv_cdf((1 + confidence) / 2)


def cochran_figures(
    *, confidence: float, margin: float, population: int, proportion: float = 0.5
) -> tuple[float, float, float]:
    """(z, n0, n) of Cochran's formula: n0 = z^2 p (1 - p) / e^2 for an infinite frame, then
    n = n0 / (1 + (n0 - 1) / N) with the finite population correction (0 for an empty frame).
    """
    z = z_score(confidence)
    n0 = z * z * proportion * (1 - proportion) / (margin * margin)
    n = n0 / (1 + (n0 - 1) / population) if population > 0 else 0.0
    return z, n0, n


def cochran_sample_size(
    *, population: int, confidence: float, margin: float, proportion: float = 0.5
) -> int:
    """Items needed to estimate a proportion within `margin` at `confidence`, for a finite frame:
    cochran_figures' n, rounded up and never more than the population."""
    if population <= 0:
        return 0
    _, _, n = cochran_figures(
        confidence=confidence, margin=margin, population=population, proportion=proportion
    )
    # Guard against float noise turning an exact integer into the next one up.
    return min(population, math.ceil(round(n, 9)))


def sample_size(spec: SampleSpec, population: int) -> int:
    if spec.mode is SampleMode.ALL:
        return population
    if spec.mode is SampleMode.SIZE:
        return min(population, spec.size or 0)
    return cochran_sample_size(
        population=population, confidence=spec.confidence, margin=spec.margin
    )


def sample_warnings(spec: SampleSpec, frame_size: int) -> list[str]:
    """What a draw does that was not asked for, to tell whoever asked: a fixed size larger
    than the frame draws the whole frame."""
    if spec.mode is SampleMode.SIZE and spec.size is not None and 0 < frame_size < spec.size:
        return [f"sample capped at the frame size: {frame_size} (asked for {spec.size})"]
    return []


def allocate_proportionally(
    strata: Mapping[Hashable, int], n: int, *, seed: int | None = None
) -> dict[Hashable, int]:
    """Split `n` over strata in proportion to their sizes; the shares sum to exactly `n`.

    Each stratum gets the whole part of its quota; the items left over go one each to the
    largest fractional parts (ties: the larger stratum, then an order drawn from `seed`, or
    the key's text order without one). Drawing the tie order matters when many strata are
    small: otherwise the same few strata would always get the leftover places.
    """
    total = sum(strata.values())
    if total == 0 or n <= 0:
        return dict.fromkeys(strata, 0)
    n = min(n, total)
    quotas = {key: n * size / total for key, size in strata.items()}
    shares = {key: math.floor(quota) for key, quota in quotas.items()}
    left = n - sum(shares.values())
    tie_rank = _tie_rank(strata, seed)
    by_remainder = sorted(
        strata, key=lambda key: (-(quotas[key] - shares[key]), -strata[key], tie_rank[key])
    )
    for key in by_remainder[:left]:
        shares[key] += 1
    return shares


def _tie_rank(keys: Iterable[Hashable], seed: int | None) -> dict[Hashable, int]:
    ordered = sorted(keys, key=_stratum_order)
    if seed is not None:
        random.Random(f"allocation:{seed}").shuffle(ordered)
    return {key: rank for rank, key in enumerate(ordered)}


@dataclass(frozen=True)
class Stratum:
    key: Hashable
    population: int
    sample: int


@dataclass(frozen=True)
class SamplePlan:
    """What a draw will take: shown to the user before anything is written."""

    frame_size: int
    sample_size: int
    strata: list[Stratum] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "frame_size": self.frame_size,
            "sample_size": self.sample_size,
            "strata": [
                {"key": stratum.key, "population": stratum.population, "sample": stratum.sample}
                for stratum in self.strata
            ],
        }


def _group(units: Iterable[tuple[int, Hashable]]) -> dict[Hashable, list[int]]:
    groups: dict[Hashable, list[int]] = {}
    for unit_id, stratum in units:
        groups.setdefault(stratum, []).append(unit_id)
    return groups


def _stratum_order(key: Hashable) -> tuple[bool, str]:
    return (key is None, str(key))


def sample_plan(
    spec: SampleSpec, units: Iterable[tuple[int, Hashable]], *, seed: int | None = None
) -> SamplePlan:
    """Frame size, sample size and per-stratum allocation for (id, stratum) pairs; the draw
    with the same seed takes exactly this allocation."""
    groups = _group(units)
    population = sum(len(ids) for ids in groups.values())
    n = sample_size(spec, population)
    sizes = {key: len(ids) for key, ids in groups.items()}
    shares = allocate_proportionally(sizes, n, seed=seed)
    strata = [
        Stratum(key=key, population=sizes[key], sample=shares[key])
        for key in sorted(groups, key=_stratum_order)
    ]
    return SamplePlan(frame_size=population, sample_size=n, strata=strata)


def draw_sample(
    spec: SampleSpec, units: Iterable[tuple[int, Hashable]], seed: int
) -> tuple[SamplePlan, list[int]]:
    """The plan and the drawn ids in their seeded random order.

    Units are sorted by id inside each stratum and strata by key before the seeded generator
    runs, so the draw does not depend on the order the database returned them in.
    """
    units = list(units)
    plan = sample_plan(spec, units, seed=seed)
    groups = _group(units)
    rng = random.Random(seed)
    drawn: list[int] = []
    for stratum in plan.strata:
        ids = sorted(groups[stratum.key])
        drawn.extend(rng.sample(ids, stratum.sample))
    rng.shuffle(drawn)
    return plan, drawn
