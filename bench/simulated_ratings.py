"""The study both agreement benchmarks measure (bench/agreement_bench.py in PostgreSQL,
bench/agreement_stats_bench.py in memory): 3 annotators, 12 category paths under 4 top
categories, each annotator giving an item's true category with probability 0.7, else any
category, and leaving each item unrated with probability 0.1; and how both time a step."""

from __future__ import annotations

import statistics
import time

ANNOTATORS = ("ada", "grace", "linus")
TOPS = ("crash", "hang", "leak", "wrong")
LEAVES = "xyz"
CATEGORIES = tuple(f"{top}/{top}-{leaf}" for top in TOPS for leaf in LEAVES)


def simulated(items: int, seed: int) -> list[tuple[int, int, str]]:
    """(item index, annotator index, category path) of every rating given."""
    import numpy as np

    rng = np.random.default_rng(seed)
    truth = rng.integers(0, len(CATEGORIES), size=items)
    given = np.where(
        rng.random((items, len(ANNOTATORS))) < 0.7,
        truth[:, np.newaxis],
        rng.integers(0, len(CATEGORIES), size=(items, len(ANNOTATORS))),
    )
    rated = rng.random((items, len(ANNOTATORS))) >= 0.1
    return [
        (item, a, CATEGORIES[given[item, a]])
        for item in range(items)
        for a in range(len(ANNOTATORS))
        if rated[item, a]
    ]


def timed(repeat: int, run):
    """The median time of `repeat` runs of run(), and its last result."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result
