"""Code saturation of an open-coding round: how many distinct codes there are after each N
reports coded. Pure: no Django.

Open coding usually stops when new reports stop bringing new codes: the curve flattens. Each
annotator has their own curve (their reports in the order they coded them, their own codes);
the team's counts a report once, in the order it was first coded by anyone, with every code
anyone gave it.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Coding:
    """One annotator's codes on one report; `codes` may be empty (a report coded only with
    categories still counts as coded)."""

    annotator: Hashable
    item: Hashable
    codes: frozenset


@dataclass(frozen=True)
class Saturation:
    """`team[n - 1]`: distinct codes in the first n reports; `annotators[a][n - 1]`: distinct
    codes in annotator a's first n reports. Annotators in the order of their first coding."""

    team: tuple[int, ...]
    annotators: dict[Hashable, tuple[int, ...]]

    @property
    def reports(self) -> int:
        return len(self.team)

    @property
    def codes(self) -> int:
        return self.team[-1] if self.team else 0


def _cumulative(code_sets: Iterable[frozenset]) -> tuple[int, ...]:
    seen: set = set()
    counts = []
    for codes in code_sets:
        seen.update(codes)
        counts.append(len(seen))
    return tuple(counts)


def saturation(codings: Iterable[Coding]) -> Saturation:
    """Cumulative distinct codes from `codings` in submission order, per annotator and for the
    team. A report coded twice by the same annotator counts once for them, with both codings'
    codes."""
    by_item: dict[Hashable, set] = {}
    by_annotator: dict[Hashable, dict[Hashable, set]] = {}
    for coding in codings:
        by_item.setdefault(coding.item, set()).update(coding.codes)
        own = by_annotator.setdefault(coding.annotator, {})
        own.setdefault(coding.item, set()).update(coding.codes)
    return Saturation(
        team=_cumulative(frozenset(codes) for codes in by_item.values()),
        annotators={
            annotator: _cumulative(frozenset(codes) for codes in items.values())
            for annotator, items in by_annotator.items()
        },
    )
