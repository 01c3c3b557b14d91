"""Report comparison benchmark: the measures of 100,000 reports read and compared.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/compare_bench \
        .venv/bin/python bench/compare_bench.py [-n 100000] [--repeat 5]

Stores N synthetic reports (two repositories, 80% closed, 60% with a fix, a third with a
first comment, over five years) in the benchmark's own database (default `compare_bench`,
dropped and created afresh), then times, as the median of --repeat runs: the measure values
of every report (mining.selectors.report_measure_values, one query), the comparison of two
halves on all six measures (labeler.analysis.comparison.reports_compare: both reads and the
statistics), and both halves' monthly shares with their Cox-Stuart tests.

The goal: the values of 100,000 reports in well under a second.
"""

import argparse
import datetime as dt
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/compare_bench")
os.environ.setdefault("LOG_LEVEL", "WARNING")

from bench_db import database_at  # noqa: E402

database_at(os.environ["DATABASE_URL"], "create")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from labeler.analysis.comparison import reports_compare, reports_trend  # noqa: E402
from labeler.analysis.groups import report_group, report_groups  # noqa: E402
from mining.models import BugReport, Repository  # noqa: E402
from mining.selectors import report_measure_values, reports_imported  # noqa: E402

START = dt.datetime(2019, 1, 1, tzinfo=dt.UTC)


def store(count: int, seed: int) -> None:
    rng = random.Random(seed)
    repositories = [
        Repository.objects.create(owner="octo", name=name, full_name=f"octo/{name}")
        for name in ("torch", "flow")
    ]
    reports = []
    for number in range(1, count + 1):
        opened = START + dt.timedelta(hours=rng.uniform(0, 5 * 365 * 24))
        closed = rng.random() < 0.8
        fixed = closed and rng.random() < 0.75
        hours = rng.expovariate(1 / 500) if closed else None
        reports.append(
            BugReport(
                repository=repositories[number % 2],
                number=number,
                title=f"report {number}",
                state="closed" if closed else "open",
                created_at=opened,
                closed_at=opened + dt.timedelta(hours=hours) if closed else None,
                is_performance_candidate=rng.random() < 0.2,
                has_fix=fixed,
                fix_hours=hours,
                fix_size=int(rng.expovariate(1 / 80)) + 1 if fixed else None,
                first_comment_hours=rng.expovariate(1 / 30) if rng.random() < 0.33 else None,
                comment_count=rng.randint(0, 20),
                commenter_count=rng.randint(0, 8),
                participant_count=rng.randint(1, 9),
            )
        )
    BugReport.objects.bulk_create(reports, batch_size=5000)


def timed(repeat: int, run) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    options = parser.parse_args()
    call_command("migrate", verbosity=0)
    store(options.n, options.seed)
    a, b = report_groups(queries={"a": "repository=octo/torch", "b": "repository=octo/flow"})
    every = reports_imported()
    halves = [report_group(name=n, query=q.query, within=every) for n, q in (("A", a), ("B", b))]

    values = timed(options.repeat, lambda: report_measure_values(reports=every))
    compare = timed(options.repeat, lambda: reports_compare(a=a, b=b))
    trend = timed(options.repeat, lambda: reports_trend(groups=halves, base=every))
    print(f"reports: {options.n:,}; groups of {a.reports.count():,} and {b.reports.count():,}")
    print(f"measure values of every report (one query): {values:.3f} s")
    print(f"comparison of the two groups on six measures: {compare:.3f} s")
    print(f"monthly shares of both groups with Cox-Stuart tests: {trend:.3f} s")
    print(f"load average (1 min): {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
