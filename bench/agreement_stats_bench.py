"""Agreement statistics benchmark: the statistics alone, on data built in memory.

    .venv/bin/python bench/agreement_stats_bench.py [--items 100000] [--repeat 3]

A study of --items items, 3 annotators, 12 categories (key paths under 4 top categories)
and 10% of the ratings missing: each annotator gives an item's true category with
probability 0.7, else any category, and leaves each item unrated with probability 0.1.
Times labeler.agreement.statistics on it: building the codes from the {item: {username:
value}} mapping, the point statistics, the bootstrap intervals of every figure (1,000 draws:
each coefficient, pair and category, and at the "path" level the hierarchy alpha with the
path distance) with Gwet's analytic ones, and agreement() end to end, at the "path" level
(12 categories) and the "top" level (4). In the same run,
the reference library's krippendorff.alpha on the same data (its reliability matrix, NaN
for a missing rating), and both alphas. Each figure is the median of --repeat runs; the
bootstrap's is the difference of the medians with and without it. The
process is pinned to one core; other work on the machine still skews the figures, so the
1-minute load average is printed.

The goal: the statistics end to end under 3 s with the bootstrap CI included, on
one core; the database read that feeds them is benchmarked elsewhere.
"""

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import krippendorff  # noqa: E402
import numpy as np  # noqa: E402
from simulated_ratings import ANNOTATORS, CATEGORIES, simulated, timed  # noqa: E402

from labeler.agreement.statistics import (  # noqa: E402
    agreement,
    agreement_from_codes,
    codes_from_ratings,
    top_level,
)


def study(items: int, seed: int) -> dict:
    """{item id: {username: category path}}, items with no rating left out."""
    ratings: dict = {}
    for item, annotator, path in simulated(items, seed):
        ratings.setdefault(item, {})[ANNOTATORS[annotator]] = path
    return ratings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    os.sched_setaffinity(0, {0})
    print(f"pinned to CPU {sorted(os.sched_getaffinity(0))} (one core)")
    print(f"load average (1 min) {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"median of {args.repeat} runs per figure\n")

    ratings = study(args.items, args.seed)
    n_ratings = sum(map(len, ratings.values()))
    print(
        f"study: {len(ratings):,} items, {len(ANNOTATORS)} annotators, {len(CATEGORIES)}"
        f" categories, {n_ratings:,} ratings"
        f" ({1 - n_ratings / (args.items * len(ANNOTATORS)):.1%} missing)\n"
    )
    levels = {
        "path": ratings,
        "top": {
            item: {name: top_level(value) for name, value in by.items()}
            for item, by in ratings.items()
        },
    }
    for level, data in levels.items():
        encode, (codes, categories, annotators) = timed(
            args.repeat, lambda data=data: codes_from_ratings(data)
        )
        point, _ = timed(
            args.repeat,
            lambda codes=codes, categories=categories, annotators=annotators: agreement_from_codes(
                codes, categories, annotators, bootstrap=0
            ),
        )
        credit = 0.5 if level == "path" else None
        with_ci, _ = timed(
            args.repeat,
            lambda codes=codes, categories=categories, annotators=annotators, credit=credit: (
                agreement_from_codes(
                    codes, categories, annotators, bootstrap=args.draws, parent_distance=credit
                )
            ),
        )
        whole, result = timed(
            args.repeat,
            lambda data=data, credit=credit: agreement(
                data, bootstrap=args.draws, seed=args.seed, parent_distance=credit
            ),
        )
        serialise, _ = timed(args.repeat, lambda result=result: json.dumps(result, allow_nan=False))
        reliability = np.where(codes >= 0, codes, np.nan).T
        reference, reference_alpha = timed(
            args.repeat,
            lambda reliability=reliability: krippendorff.alpha(
                reliability_data=reliability, level_of_measurement="nominal"
            ),
        )
        print(f'level "{level}" ({len(categories)} categories)')
        print(f"  codes from the ratings mapping      {encode:7.3f} s")
        print(f"  point statistics (no bootstrap)     {point:7.3f} s")
        print(
            f"  every interval, {args.draws} draws         {with_ci - point:7.3f} s"
            "   (with minus without CI)"
        )
        print(f"  statistics from codes, with CI      {with_ci:7.3f} s")
        print(f"  agreement() end to end, with CI     {whole:7.3f} s   (goal < 3 s)")
        print(f"  json.dumps of the result            {serialise:7.3f} s")
        print(f"  krippendorff.alpha (reference)      {reference:7.3f} s")
        print(
            f"  alpha {result['krippendorff_alpha']:.6f} (reference {reference_alpha:.6f}),"
            f" CI {result['alpha_ci95'][0]:.4f}..{result['alpha_ci95'][1]:.4f},"
            f" Fleiss {result['fleiss_kappa']:.4f}, AC1 {result['gwet_ac1']:.4f},"
            f" mean Cohen {result['mean_cohen_kappa']:.4f}"
        )
        if result["hierarchy_alpha"]:
            found = result["hierarchy_alpha"]
            low, high = found["intervals"]["bootstrap"]["ci95"]
            print(f"  hierarchy alpha {found['estimate']:.4f}, CI {low:.4f}..{high:.4f}")
        print()


if __name__ == "__main__":
    main()
