"""How far an item's annotators agree on one dimension, and what that decides. Pure: no Django.

An answer is the tuple of category key paths one annotator chose on the dimension (empty when
they chose none on an optional one); two answers agree when they are equal. The same rule
decides automatic final labels, sorts the disagreement queue and marks disputed dimensions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

Answer = tuple[str, ...]

UNANIMOUS = "unanimous"
MAJORITY = "majority"
SPLIT = "split"
# Nobody has answered yet (an item handed to no one, or not yet submitted).
UNANSWERED = "unanswered"


@dataclass(frozen=True)
class Consensus:
    """The distinct answers with how many annotators gave each, most given first."""

    answers: tuple[tuple[Answer, int], ...]

    @property
    def ratings(self) -> int:
        return sum(count for _, count in self.answers)

    @property
    def modal(self) -> Answer | None:
        """The answer most annotators gave, when one did more often than every other."""
        if not self.answers or (len(self.answers) > 1 and self.answers[1][1] == self.answers[0][1]):
            return None
        return self.answers[0][0]

    @property
    def agreement(self) -> float:
        """The share of annotators who gave the most given answer: 1.0 when unanimous."""
        return self.answers[0][1] / self.ratings if self.answers else 0.0

    @property
    def kind(self) -> str:
        if not self.answers:
            return UNANSWERED
        if len(self.answers) == 1:
            return UNANIMOUS
        if self.answers[0][1] * 2 > self.ratings:
            return MAJORITY
        return SPLIT


def consensus(answers: Iterable[Answer]) -> Consensus:
    counts = Counter(tuple(answer) for answer in answers)
    return Consensus(tuple(sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))))


def automatic_method(found: Consensus, *, majority_auto: bool) -> str | None:
    """The method an automatic final label is reached by, or None when a lead must decide.

    A single annotation (overlap 1) counts as unanimous: there is nobody to disagree.
    """
    if found.kind == UNANIMOUS:
        return UNANIMOUS
    if found.kind == MAJORITY and majority_auto:
        return MAJORITY
    return None
