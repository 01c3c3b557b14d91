"""Candidate flags: which reports are performance or accuracy candidates, which are non-bugs.

A rule is a repository label (matched exactly, case-insensitively) or a keyword (matched in the
title and body on word boundaries, case-insensitively; a multiword keyword matches across any
whitespace). Plain Python, no Django.
"""

import re
from dataclasses import dataclass, field, fields
from functools import lru_cache


@dataclass(frozen=True)
class Rules:
    performance_labels: tuple[str, ...] = ()
    performance_keywords: tuple[str, ...] = ()
    accuracy_labels: tuple[str, ...] = ()
    accuracy_keywords: tuple[str, ...] = ()
    non_bug_labels: tuple[str, ...] = ()

    @classmethod
    def of(cls, source) -> "Rules":
        """The rules held by anything with the rule lists as attributes (a CandidateRules
        row): the one conversion from stored rules to these."""
        return cls(**{name: tuple(getattr(source, name)) for name in RULE_FIELDS})


# The rule lists, as named on Rules and on the stored CandidateRules.
RULE_FIELDS = tuple(f.name for f in fields(Rules))


@dataclass(frozen=True)
class Classification:
    is_performance: bool
    is_accuracy: bool
    is_non_bug: bool
    # {"performance": ["label:type:performance", "keyword:slow"], ...}; only kinds that matched.
    rules: dict[str, list[str]] = field(default_factory=dict)


def _normalise(text: str) -> str:
    return " ".join(text.lower().split())


@lru_cache(maxsize=64)
def _keyword_pattern(keywords: tuple[str, ...]) -> re.Pattern | None:
    words = sorted({_normalise(k) for k in keywords if k.strip()}, key=len, reverse=True)
    if not words:
        return None
    alternatives = "|".join(r"\s+".join(re.escape(part) for part in w.split()) for w in words)
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


@lru_cache(maxsize=64)
def _keyword_order(keywords: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(_normalise(k) for k in keywords))


def matching_keywords(text: str, keywords: tuple[str, ...]) -> list[str]:
    """The keywords found in the text, normalised, in the order of the keyword list."""
    keywords = tuple(keywords)
    pattern = _keyword_pattern(keywords)
    if pattern is None or not text:
        return []
    found = {_normalise(match.group(0)) for match in pattern.finditer(text)}
    if not found:
        return []
    return [k for k in _keyword_order(keywords) if k in found]


def matching_labels(labels: list[str], wanted: tuple[str, ...]) -> list[str]:
    present = {label.strip().lower() for label in labels}
    return [label for label in wanted if label.strip().lower() in present]


def classify(*, title: str, body: str, labels: list[str], rules: Rules) -> Classification:
    text = f"{title}\n{body}"
    matched: dict[str, list[str]] = {}
    for kind, kind_labels, kind_keywords in (
        ("performance", rules.performance_labels, rules.performance_keywords),
        ("accuracy", rules.accuracy_labels, rules.accuracy_keywords),
        ("non_bug", rules.non_bug_labels, ()),
    ):
        hits = [f"label:{label}" for label in matching_labels(labels, kind_labels)]
        hits += [f"keyword:{word}" for word in matching_keywords(text, kind_keywords)]
        if hits:
            matched[kind] = hits
    return Classification(
        is_performance="performance" in matched,
        is_accuracy="accuracy" in matched,
        is_non_bug="non_bug" in matched,
        rules=matched,
    )
