"""Labels import benchmark: a labels CSV checked and stored by the import service, in PostgreSQL.

    .venv/bin/python bench/label_import_bench.py [--items 16667] [--repositories 20] [--keep-db]

Builds its own database (dropped afterwards unless --keep-db) holding --items reports spread
over --repositories repositories and a study (overlap 3) with two dimensions: "cause", a
required single-select of 12 categories (key paths under 4 top categories), and "impact", a
multi-select of 4. Half the items are in the study already; the others join it through the
import. The file: 3 annotators (new accounts) label every item on both dimensions, one row
each (the default, 16,667 items, makes 100,002 rows), the repository names in upper case half
the time, as spreadsheets spell them.

Prints the seconds and rows per second of `annotation_import` end to end (reading the CSV,
every check, the writes, the automatic final labels of the completed items), then what it
wrote, this process's CPU time and that of its PostgreSQL server process (read from /proc,
so when the server runs on this machine): the rest is waiting, for a core or the disk.
The goal: 100k rows in under 10 s. The process is pinned to one core (PostgreSQL runs
in its own processes); the 1-minute load average is printed, as other work on the machine
skews the figure.

It needs PostgreSQL on 127.0.0.1 as user postgres.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from bench_db import database_arguments, django_on_database

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ANNOTATORS = ("ada", "grace", "linus")
TOPS = ("crash", "hang", "leak", "wrong")
LEAVES = "xyz"
IMPACTS = ("speed", "memory", "data", "ux")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=16_667)
    parser.add_argument("--repositories", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    database_arguments(parser, "labeler_label_import_bench")
    return parser.parse_args()


def build(args):
    """Migrate, then the codebook, reports and study; returns the study and the CSV's bytes."""
    import random

    from django.core.management import call_command
    from django.db import connection

    from labeler.models import Study, StudyItem
    from mining.models import BugReport, Repository
    from taxonomy.models import Category, Codebook, Dimension

    call_command("migrate", verbosity=0)
    codebook = Codebook.objects.create(key="bench", version="1", name="Bench", frozen=True)
    cause = Dimension.objects.create(codebook=codebook, key="cause", name="Cause", position=0)
    impact = Dimension.objects.create(
        codebook=codebook, key="impact", name="Impact", multiple=True, required=False, position=1
    )
    paths = []
    for top in TOPS:
        parent = Category.objects.create(
            dimension=cause, key=top, path=top, name=top, position=len(paths)
        )
        for leaf in LEAVES:
            path = f"{top}/{top}-{leaf}"
            Category.objects.create(
                dimension=cause,
                parent=parent,
                key=f"{top}-{leaf}",
                path=path,
                name=path,
                position=len(paths) + 1,
                depth=1,
            )
            paths.append(path)
    for position, key in enumerate(IMPACTS):
        Category.objects.create(dimension=impact, key=key, path=key, name=key, position=position)
    repositories = Repository.objects.bulk_create(
        Repository(owner="bench", name=f"repo{r}", full_name=f"bench/repo{r}")
        for r in range(args.repositories)
    )
    references = [
        (repositories[i % args.repositories], i // args.repositories + 1) for i in range(args.items)
    ]
    reports = BugReport.objects.bulk_create(
        (
            BugReport(repository=repository, number=number, title=f"Report {number}")
            for repository, number in references
        ),
        batch_size=10_000,
    )
    study = Study.objects.create(slug="bench", name="Bench", codebook=codebook, overlap=3)
    study.dimensions.set([cause, impact])
    StudyItem.objects.bulk_create(
        (
            StudyItem(study=study, report=report, position=index, needed=3)
            for index, report in enumerate(reports[: args.items // 2])
        ),
        batch_size=10_000,
    )
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")

    rng = random.Random(args.seed)
    lines = ["item,annotator,dimension,value"]
    for index, (repository, number) in enumerate(references):
        name = repository.full_name.upper() if index % 2 else repository.full_name
        for annotator in ANNOTATORS:
            lines.append(f"{name}#{number},{annotator},cause,{rng.choice(paths)}")
            chosen = rng.sample(IMPACTS, rng.randint(0, 2))
            lines.append(f"{name}#{number},{annotator},impact,{';'.join(chosen)}")
    return study, ("\n".join(lines) + "\n").encode()


def server_cpu() -> float | None:
    """CPU seconds used so far by the PostgreSQL process serving this connection, or None if
    it is not a process of this machine."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(study, data: bytes) -> None:
    from labeler.imports.label_import import annotation_import
    from labeler.models import Annotation, AnnotationVersion, Assignment, FinalLabel

    server = server_cpu()
    start, cpu = time.perf_counter(), time.process_time()
    summary = annotation_import(study=study, data=data, source="bench.csv")
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    server = None if server is None else server_cpu() - server
    print(
        f"\nannotation_import of {summary.rows:,} rows ({len(data) / 1e6:.1f} MB) "
        f"{seconds:7.2f} s   {summary.rows / seconds:,.0f} rows/s   (goal < 10 s for 100k)"
    )
    # Wall time includes waiting for PostgreSQL, on a loaded machine for a share of a core.
    print(f"  of which this process's own CPU time {cpu:7.2f} s")
    if server is not None:
        print(f"  and its PostgreSQL server process's  {server:7.2f} s")
    print(
        f"  wrote {summary.submissions:,} submissions, {summary.items_added:,} items added, "
        f"{summary.users_created} users; {Assignment.objects.count():,} assignments, "
        f"{Annotation.objects.count():,} annotations, {AnnotationVersion.objects.count():,} "
        f"versions, {FinalLabel.objects.count():,} final labels"
    )


def main() -> None:
    args = parse_args()
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    with django_on_database(args):
        study, data = build(args)
        print(
            f"{args.items:,} items over {args.repositories} repositories, half in the study; "
            f"pinned to CPU {sorted(os.sched_getaffinity(0))} (one core); load average "
            f"(1 min) {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
        )
        measure(study, data)


if __name__ == "__main__":
    main()
