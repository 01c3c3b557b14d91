"""Agreement benchmark: `manage.py agreement --json` end to end, on a study in PostgreSQL.

    .venv/bin/python bench/agreement_bench.py [--items 100000] [--repeat 3] [--keep-db]

Builds its own database (dropped afterwards unless --keep-db) holding a study of --items
items, 3 annotators and one single-select dimension of 12 categories (key paths under 4 top
categories, so the command measures both levels), with 10% of the ratings missing: each
annotator gives an item's true category with probability 0.7, else any category, and leaves
each item unrated with probability 0.1. The ratings are submissions as the app stores them
(assignments, versions, annotations).

Prints, each the median of --repeat runs: the command end to end (database read, every
figure at both levels and the hierarchy alpha (path distance), each with its 95% interval
from one shared set of 1,000 bootstrap draws, Gwet's analytic intervals, the JSON), the
number of intervals the JSON holds (and a digest of the JSON: two runs with the same digest
printed every figure alike), the database read
alone, the statistics alone per level, and, in the same run, the reference library's
krippendorff.alpha on the same data. The process is pinned to one core (PostgreSQL answers
the read from its own process); the 1-minute load average is printed, as other work on the
machine skews every figure. The goal: the command end to end under 3 s.

It needs PostgreSQL on 127.0.0.1 as user postgres, and krippendorff (a dev dependency).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import statistics
import sys
import time
from pathlib import Path

from bench_db import database_arguments, django_on_database
from simulated_ratings import ANNOTATORS, LEAVES, TOPS, simulated, timed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHUNK = 50_000


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    database_arguments(parser, "labeler_agreement_bench")
    return parser.parse_args()


# Every rating a submission as the app stores it: its assignment, its first version, its
# annotation; the items' counters follow.
RATINGS_SQL = """
WITH given AS (
    SELECT * FROM unnest(%(items)s::bigint[], %(annotators)s::bigint[], %(paths)s::text[],
                         %(times)s::timestamptz[]) AS g(item_id, annotator_id, path, at)
), assigned AS (
    INSERT INTO labeler_assignment
        (item_id, study_id, annotator_id, status, held_at, submitted_at, skip_reason, note,
         unsure, seconds, version)
    SELECT item_id, %(study)s, annotator_id, 'submitted', at, at, '', '', false, 30, 1
    FROM given
    RETURNING id, item_id, annotator_id
), versioned AS (
    INSERT INTO labeler_annotationversion
        (assignment_id, item_id, annotator_id, number, labels, changes, note, unsure, seconds,
         created_at)
    SELECT assigned.id, given.item_id, given.annotator_id, 1,
           jsonb_build_object(%(dimension_key)s, jsonb_build_array(given.path)), '{}', '',
           false, 30, given.at
    FROM assigned JOIN given USING (item_id, annotator_id)
)
INSERT INTO labeler_annotation
    (assignment_id, item_id, annotator_id, dimension_id, "values", updated_at)
SELECT assigned.id, given.item_id, given.annotator_id, %(dimension)s,
       jsonb_build_array(given.path), given.at
FROM assigned JOIN given USING (item_id, annotator_id)
"""


def build(args) -> None:
    """Migrate, then the codebook, reports, study, annotators and ratings."""
    import datetime as dt

    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection, transaction

    from labeler.models import Study, StudyItem
    from mining.models import BugReport, Repository
    from taxonomy.models import Category, Codebook, Dimension

    call_command("migrate", verbosity=0)
    codebook = Codebook.objects.create(key="bench", version="1", name="Bench", frozen=True)
    dimension = Dimension.objects.create(codebook=codebook, key="cause", name="Cause")
    position = 0
    for top in TOPS:
        parent = Category.objects.create(
            dimension=dimension, key=top, path=top, name=top, position=position
        )
        position += 1
        for leaf in LEAVES:
            Category.objects.create(
                dimension=dimension,
                parent=parent,
                key=f"{top}-{leaf}",
                path=f"{top}/{top}-{leaf}",
                name=f"{top} {leaf}",
                position=position,
                depth=1,
            )
            position += 1
    repository = Repository.objects.create(owner="bench", name="bench", full_name="bench/bench")
    BugReport.objects.bulk_create(
        (
            BugReport(repository=repository, number=number, title=f"Report {number}")
            for number in range(1, args.items + 1)
        ),
        batch_size=10_000,
    )
    study = Study.objects.create(slug="bench", name="Bench", codebook=codebook, overlap=3)
    study.dimensions.set([dimension])
    reports = BugReport.objects.order_by("number").values_list("pk", flat=True)
    StudyItem.objects.bulk_create(
        (
            StudyItem(study=study, report_id=report, position=index, needed=3)
            for index, report in enumerate(reports)
        ),
        batch_size=10_000,
    )
    items = list(study.items.order_by("position").values_list("pk", flat=True))
    users = [get_user_model().objects.create_user(username=name) for name in ANNOTATORS]
    ratings = simulated(args.items, args.seed)
    start = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    with transaction.atomic(), connection.cursor() as cursor:
        for offset in range(0, len(ratings), CHUNK):
            chunk = ratings[offset : offset + CHUNK]
            cursor.execute(
                RATINGS_SQL,
                {
                    "items": [items[item] for item, _, _ in chunk],
                    "annotators": [users[a].pk for _, a, _ in chunk],
                    "paths": [path for _, _, path in chunk],
                    # Items labelled one after the other, a minute apart.
                    "times": [start + dt.timedelta(minutes=item) for item, _, _ in chunk],
                    "study": study.pk,
                    "dimension": dimension.pk,
                    "dimension_key": dimension.key,
                },
            )
        cursor.execute(
            """
            UPDATE labeler_studyitem item SET claimed = counted.n, submitted = counted.n
            FROM (SELECT item_id, count(*) AS n FROM labeler_assignment GROUP BY item_id)
                AS counted
            WHERE item.id = counted.item_id
            """
        )
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    print(
        f"study: {args.items:,} items, {len(ANNOTATORS)} annotators, 12 categories under 4, "
        f"{len(ratings):,} ratings ({1 - len(ratings) / (args.items * 3):.1%} missing)"
    )


def measure(args) -> None:
    import krippendorff
    import numpy as np
    from django.core.management import call_command

    from labeler.agreement.ratings import study_ratings
    from labeler.agreement.statistics import agreement_from_codes
    from labeler.common.names import annotator_names
    from labeler.common.scheme import study_scheme
    from labeler.models import Study

    study = Study.objects.select_related("codebook").get(slug="bench")
    dimensions = study_scheme(study=study).dimensions

    def command():
        out = io.StringIO()
        call_command("agreement", "bench", "--json", "--bootstrap", str(args.draws), stdout=out)
        return out.getvalue()

    def read():
        names = annotator_names(study=study, real_names=True)
        return study_ratings(study=study, dimensions=dimensions, names=names)

    cpu = []

    def command_cpu():
        start = time.process_time()
        printed = command()
        cpu.append(time.process_time() - start)
        return printed

    whole, printed = timed(args.repeat, command_cpu)
    reading, found = timed(args.repeat, read)
    print(f"\n`agreement bench --json` end to end      {whole:7.3f} s   (goal < 3 s)")
    print(
        f"  CPU time of this process (less the load) {statistics.median(cpu):7.3f} s"
        "   (PostgreSQL's own work not included)"
    )
    print(f"  of which the database read (one query) {reading:7.3f} s")
    report = json.loads(printed)
    print(
        f"  {count_intervals(report)} bootstrap intervals from one set of"
        f" {report['bootstrap']['draws']} draws (seed {report['bootstrap']['seed']})"
    )
    for entry in report["dimensions"]:
        shown = [
            f"{name} {entry[name]:.4f} {entry['intervals'][name]['bootstrap']['ci95']}"
            for name in ("krippendorff_alpha", "gwet_ac1")
        ]
        credit = entry["hierarchy_alpha"]
        if credit:
            shown.append(
                f"hierarchy alpha {credit['estimate']:.4f}"
                f" {credit['intervals']['bootstrap']['ci95']}"
            )
        print(f"    {entry['level']}: " + "; ".join(shown))
    for level in ("top", "path"):
        ratings = found["cause"].at_level(level)
        alone, result = timed(
            args.repeat,
            lambda ratings=ratings: agreement_from_codes(
                ratings.codes,
                ratings.categories,
                ratings.annotators,
                bootstrap=args.draws,
                seed=args.seed,
            ),
        )
        reliability = np.where(ratings.codes >= 0, ratings.codes, np.nan).T
        reference, reference_alpha = timed(
            args.repeat,
            lambda reliability=reliability: krippendorff.alpha(
                reliability_data=reliability, level_of_measurement="nominal"
            ),
        )
        print(f'  statistics alone, level "{level}", with CI {alone:7.3f} s')
        print(f"    krippendorff.alpha on the same data  {reference:7.3f} s")
        print(
            f"    alpha {result['krippendorff_alpha']:.6f} (krippendorff "
            f"{reference_alpha:.6f}), CI {result['alpha_ci95'][0]:.4f}.."
            f"{result['alpha_ci95'][1]:.4f}"
        )
    print(
        f"  JSON printed: {len(printed):,} characters, sha256"
        f" {hashlib.sha256(printed.encode()).hexdigest()[:16]} (equal digests: equal figures)"
    )


def count_intervals(value) -> int:
    """Bootstrap intervals with bounds anywhere in the JSON."""
    if isinstance(value, dict):
        own = int(isinstance(value.get("bootstrap"), dict) and "ci95" in value["bootstrap"])
        return own + sum(count_intervals(item) for item in value.values())
    if isinstance(value, list):
        return sum(count_intervals(item) for item in value)
    return 0


def main() -> None:
    args = parse_args()
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    with django_on_database(args):
        build(args)
        print(
            f"pinned to CPU {sorted(os.sched_getaffinity(0))} (one core); load average "
            f"(1 min) {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; median of "
            f"{args.repeat} runs"
        )
        measure(args)


if __name__ == "__main__":
    main()
