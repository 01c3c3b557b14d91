"""Export benchmark: `manage.py export_dataset` in each format on a 100,000-item study, against
PostgreSQL's own `COPY` of the same rows.

    .venv/bin/python bench/export_bench.py [--items 100000] [--keep-db] [--reuse-db]

Builds its own database (dropped afterwards unless --keep-db; --reuse-db measures again on
the one a --keep-db run left) with bulk inserts and SQL: a study of --items items over as
many reports (40% with a fix commit, measures and labels set), two dimensions (one of 12
categories under 4, one multi-select of 3), 3 annotators who each labelled every item, and
final labels on 90% of the items. Then runs the command three times per format (and CSV
with --include-annotators) in a child process writing to a temporary file, and prints its
rows/s end to end (the interpreter's start and the datasheet, agreement included, count)
and its peak memory: the child's maximum resident set size from getrusage (via wait4, in a
small launcher process), interpreter and Django included. In the same run
it times the records alone in this process (rows/s of the pipeline without start-up or
datasheet), and `COPY (SELECT …) TO STDOUT WITH CSV HEADER` through psycopg2's copy_expert
of a query written by hand for the same rows, columns and cell text (JIT off as in the
export). Every rate is the fastest of three runs, on both sides of CSV / COPY alike, COPY
and the formats taking turns. It checks that COPY's file and the export's read back as the
same rows. Goals: CSV at least half of COPY's rate; peak memory under 200 MB.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_db import database_arguments, django_on_database

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ANNOTATORS = ("ada", "grace", "linus")
TOPS = ("crash", "hang", "leak", "wrong")
LEAVES = "xyz"
IMPACTS = ("speed", "memory", "accuracy")
# Every figure is the fastest of this many runs (the peak memory the largest): COPY's, each
# format's end to end and its records alone, so that both sides of CSV / COPY are taken alike.
RUNS = 3


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=100_000)
    database_arguments(parser, "labeler_export_bench")
    parser.add_argument(
        "--reuse-db", action="store_true", help="measure on the database --keep-db left; keep it"
    )
    return parser.parse_args()


# Reports with their measures; 40% with one fix commit and its link.
REPORTS_SQL = """
INSERT INTO mining_bugreport
    (repository_id, number, github_id, node_id, title, body, state, state_reason, author_login,
     labels, milestone, created_at, updated_at, closed_at, comment_count, reactions, html_url,
     raw, is_performance_candidate, is_accuracy_candidate, is_non_bug, candidate_rules, has_fix,
     is_stub, fix_hours, fix_size, first_comment_hours, commenter_count, participant_count)
SELECT %(repository)s, n, n, '', 'Training gets slower after step ' || n || ', «ünïcode», "quoted"',
       '', 'closed', 'completed', 'someone', '["type:bug", "module: performance"]', '',
       timestamptz '2023-01-01' + n * interval '1 minute', now(),
       timestamptz '2023-01-02' + n * interval '1 minute', n %% 7, '{}',
       'https://github.com/bench/bench/issues/' || n, '{}', n %% 3 = 0, n %% 5 = 0, false,
       CASE WHEN n %% 3 = 0 THEN '{"performance": ["label:module: performance"]}'::jsonb
            ELSE '{}'::jsonb END,
       n %% 5 < 2, false, 24.5, n %% 100, 1.5, n %% 4, n %% 5
FROM generate_series(1, %(items)s) AS n
"""

FIXES_SQL = """
WITH commits AS (
    INSERT INTO mining_commit
        (repository_id, sha, message, author_login, author_name, additions, deletions,
         changed_files, files, files_fetched, files_error, html_url)
    SELECT %(repository)s, lpad(to_hex(report.number), 40, '0'), 'Fix', '', '', 3, 1, 1, '[]',
           false, '', ''
    FROM mining_bugreport report WHERE report.has_fix
    RETURNING id, sha
)
INSERT INTO mining_fixlink (report_id, commit_id, target, evidence, strength, reverted, detail)
SELECT report.id, commits.id, 'commit:' || commits.sha, 'closed_by_commit', 'strong', false, ''
FROM commits JOIN mining_bugreport report ON lpad(to_hex(report.number), 40, '0') = commits.sha
"""

ASSIGNMENTS_SQL = """
INSERT INTO labeler_assignment
    (item_id, study_id, annotator_id, status, held_at, submitted_at, skip_reason, note, unsure,
     seconds, version)
SELECT item.id, item.study_id, annotator, 'submitted', now(), now(), '',
       CASE WHEN item.position %% 10 = 0 THEN 'unsure; see the trace' ELSE '' END,
       item.position %% 10 = 0, 30 + item.position %% 60, 1
FROM labeler_studyitem item CROSS JOIN unnest(%(annotators)s::bigint[]) AS annotator
"""

# Annotator k gives the item's "true" cause unless position + k is divisible by 4.
ANNOTATIONS_SQL = """
INSERT INTO labeler_annotation (assignment_id, item_id, annotator_id, dimension_id, "values",
                                updated_at)
SELECT assignment.id, item.id, assignment.annotator_id, dimension.id,
       CASE WHEN dimension.id = %(cause)s THEN
           jsonb_build_array((%(causes)s::text[])[
               1 + (item.position + CASE WHEN (item.position + assignment.annotator_id) %% 4 = 0
                                          THEN 1 ELSE 0 END) %% 12])
       ELSE jsonb_build_array((%(impacts)s::text[])[1 + item.position %% 3]) END,
       now()
FROM labeler_assignment assignment
JOIN labeler_studyitem item ON item.id = assignment.item_id
CROSS JOIN (SELECT unnest(%(dimensions)s::bigint[]) AS id) dimension
"""

FINALS_SQL = """
WITH final AS (
    UPDATE labeler_studyitem SET adjudicated_at = now(), first_final_at = now(),
           claimed = 3, submitted = 3
    WHERE position %% 10 <> 9 RETURNING id, position
)
INSERT INTO labeler_finallabel (item_id, dimension_id, "values", method, rationale, reason,
                                decided_at)
SELECT final.id, dimension.id,
       CASE WHEN dimension.id = %(cause)s
            THEN jsonb_build_array((%(causes)s::text[])[1 + final.position %% 12])
            ELSE jsonb_build_array((%(impacts)s::text[])[1 + final.position %% 3]) END,
       CASE WHEN final.position %% 10 = 0 THEN 'adjudicated' ELSE 'majority' END,
       CASE WHEN final.position %% 10 = 0 THEN 'the trace decides' ELSE '' END,
       CASE WHEN final.position %% 10 = 0 THEN 'annotator_slip' ELSE '' END, now()
FROM final CROSS JOIN (SELECT unnest(%(dimensions)s::bigint[]) AS id) dimension
"""


def build(args) -> None:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection, transaction

    from labeler.models import Study, StudyItem
    from mining.models import BugReport, Repository
    from taxonomy.models import Category, Codebook, Dimension

    call_command("migrate", verbosity=0)
    codebook = Codebook.objects.create(key="bench", version="1", name="Bench", frozen=True)
    cause = Dimension.objects.create(codebook=codebook, key="cause", name="Cause", position=0)
    impact = Dimension.objects.create(
        codebook=codebook, key="impact", name="Impact", multiple=True, position=1
    )
    causes = []
    for position, top in enumerate(TOPS):
        parent = Category.objects.create(
            dimension=cause, key=top, path=top, name=top.title(), position=position * 4
        )
        for offset, leaf in enumerate(LEAVES, start=1):
            path = f"{top}/{top}-{leaf}"
            causes.append(path)
            Category.objects.create(
                dimension=cause,
                parent=parent,
                key=f"{top}-{leaf}",
                path=path,
                name=f"{top} {leaf}",
                definition=f"The {leaf} kind of {top}.",
                position=position * 4 + offset,
                depth=1,
            )
    for position, key in enumerate(IMPACTS):
        Category.objects.create(dimension=impact, key=key, path=key, name=key, position=position)
    repository = Repository.objects.create(owner="bench", name="bench", full_name="bench/bench")
    study = Study.objects.create(slug="bench", name="Bench", codebook=codebook, overlap=3)
    study.dimensions.set([cause, impact])
    users = [get_user_model().objects.create_user(username=name) for name in ANNOTATORS]
    params = {
        "repository": repository.pk,
        "items": args.items,
        "annotators": [user.pk for user in users],
        "cause": cause.pk,
        "causes": causes,
        "impacts": list(IMPACTS),
        "dimensions": [cause.pk, impact.pk],
    }
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(REPORTS_SQL, params)
        cursor.execute(FIXES_SQL, params)
        reports = BugReport.objects.order_by("number").values_list("pk", flat=True)
        StudyItem.objects.bulk_create(
            (
                StudyItem(study=study, report_id=report, position=index, needed=3)
                for index, report in enumerate(reports.iterator(chunk_size=10_000))
            ),
            batch_size=10_000,
        )
        cursor.execute(ASSIGNMENTS_SQL, params)
        cursor.execute(ANNOTATIONS_SQL, params)
        cursor.execute(FINALS_SQL, params)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    print(
        f"study: {args.items:,} items, {len(ANNOTATORS)} annotators, 2 dimensions, "
        f"{args.items * 3:,} submissions, final labels on 90% of the items"
    )


# The CSV export's columns and cells (without annotators), written by hand as one query with
# a lateral join for the fix links: the same text in every cell (times in ISO 8601 UTC, several
# values joined with `;`, names as "Crash > crash x"), as `first_difference` checks.
COPY_SQL = """
COPY (
SELECT repository.full_name AS repository, report.number, report.html_url AS url, report.title,
       report.state, report.state_reason,
       (SELECT string_agg(label, ';' ORDER BY n)
        FROM jsonb_array_elements_text(report.labels) WITH ORDINALITY AS t(label, n))
           AS github_labels,
       {created_at} AS created_at, {closed_at} AS closed_at,
       report.fix_hours AS time_to_fix_hours, report.fix_size,
       report.first_comment_hours AS time_to_first_comment_hours,
       report.comment_count AS comments, report.commenter_count AS commenters,
       report.participant_count AS participants,
       fixes.commits AS fix_commits, fixes.pull_requests AS fix_pull_requests,
       fixes.evidence AS fix_evidence, fixes.reverted AS fix_reverted,
       report.is_performance_candidate::text AS performance_candidate,
       report.is_accuracy_candidate::text AS accuracy_candidate,
       report.is_non_bug::text AS non_bug,
       (SELECT string_agg(kind.key || ':' || rule.value, ';' ORDER BY kind.n, rule.n)
        FROM jsonb_each(report.candidate_rules) WITH ORDINALITY AS kind(key, rules, n),
             jsonb_array_elements_text(kind.rules) WITH ORDINALITY AS rule(value, n))
           AS candidate_rules,
       (item.adjudicated_at IS NOT NULL)::text AS final,
       cause.paths AS cause, cause.names AS "cause.names", cause.method AS "cause.method",
       cause.reason AS "cause.reason", cause.rationale AS "cause.rationale",
       impact.paths AS impact, impact.names AS "impact.names", impact.method AS "impact.method",
       impact.reason AS "impact.reason", impact.rationale AS "impact.rationale"
FROM labeler_studyitem item
JOIN mining_bugreport report ON report.id = item.report_id
JOIN mining_repository repository ON repository.id = report.repository_id
LEFT JOIN LATERAL (
    SELECT string_agg(commit.sha, ';' ORDER BY link.strength, link.id)
               FILTER (WHERE commit.sha <> '') AS commits,
           string_agg(pr.number::text, ';' ORDER BY link.strength, link.id) AS pull_requests,
           string_agg(link.evidence, ';' ORDER BY link.strength, link.id) AS evidence,
           string_agg(link.reverted::text, ';' ORDER BY link.strength, link.id) AS reverted
    FROM mining_fixlink link
    LEFT JOIN mining_commit commit ON commit.id = link.commit_id
    LEFT JOIN mining_pullrequest pr ON pr.id = link.pull_request_id
    WHERE link.report_id = report.id
) fixes ON true
{final_label_joins}
WHERE item.study_id = {study}
ORDER BY item.id
) TO STDOUT WITH CSV HEADER
"""

# One dimension's final label: key paths, their names (parent's name > name), the method, and
# an adjudication's reason and rationale.
FINAL_LABEL_JOIN = """
LEFT JOIN LATERAL (
    SELECT string_agg(t.path, ';' ORDER BY n) AS paths,
           string_agg(coalesce(parent.name || ' > ', '') || category.name, ';' ORDER BY n)
               AS names,
           min(final.method) AS method, min(final.reason) AS reason,
           min(final.rationale) AS rationale
    FROM labeler_finallabel final
    CROSS JOIN jsonb_array_elements_text(final."values") WITH ORDINALITY AS t(path, n)
    JOIN taxonomy_category category ON category.dimension_id = final.dimension_id
                                   AND category.path = t.path
    LEFT JOIN taxonomy_category parent ON parent.id = category.parent_id
    WHERE final.item_id = item.id AND final.dimension_id = {dimension}
) {alias} ON true
"""

ISO_TIME = (
    "to_char({0} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS') || CASE to_char({0}, 'US') "
    "WHEN '000000' THEN '' ELSE '.' || to_char({0}, 'US') END || 'Z'"
)


def first_difference(copied: Path, exported: Path) -> str | None:
    """Where two CSV files first differ once read (COPY quotes empty text, and ends lines with
    LF where the export writes CRLF): "row R, column C: 'copy' != 'export'", or None when
    they hold the same rows."""
    with (
        copied.open(newline="", encoding="utf-8") as a,
        exported.open(newline="", encoding="utf-8") as b,
    ):
        reader_a, reader_b = csv.reader(a), csv.reader(b)
        header = next(reader_b, [])
        for number, (x, y) in enumerate(
            itertools.zip_longest(
                itertools.chain([next(reader_a, None)], reader_a),
                itertools.chain([header], reader_b),
            )
        ):
            if x == y:
                continue
            if x is None or y is None:
                return f"row {number}: only in {'the export' if x is None else 'COPY'}"
            for column, (cell_a, cell_b) in enumerate(itertools.zip_longest(x, y)):
                if cell_a != cell_b:
                    name = header[column] if column < len(header) else f"#{column}"
                    return f"row {number}, column {name}: {cell_a!r} (COPY) != {cell_b!r}"
        return None


# Runs its arguments as a command and prints the command's wall time, peak resident memory
# and exit code. A child's peak as getrusage gives it counts the memory of the process that
# spawned it (Linux records it at exec): spawned from this small process, not from the
# bench's own (200 MB and more after the build), the figure is the command's.
LAUNCHER = """
import os, sys, time
quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_WRONLY, 0) for fd in (1, 2)]
start = time.perf_counter()
pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ, file_actions=quiet)
_, status, usage = os.wait4(pid, 0)
print(time.perf_counter() - start, usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status))
"""


def child_run(command: list[str]) -> tuple[float, int]:
    """Wall time and peak resident memory (bytes) of a command, run in a child process."""
    report = subprocess.run(
        [sys.executable, "-c", LAUNCHER, *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    elapsed, peak, code = float(report[0]), int(report[1]), int(report[2])
    if code != 0:
        raise SystemExit(f"{' '.join(command)} failed")
    return elapsed, peak


def measure(args) -> None:
    from django.db import connection

    from labeler.export.dataset import ExportOptions
    from labeler.export.pipeline import Export
    from labeler.models import Study
    from taxonomy.models import Dimension

    study = Study.objects.select_related("codebook").get(slug="bench")
    items = study.items.count()
    dimensions = {d.key: d.pk for d in Dimension.objects.filter(codebook=study.codebook)}
    sql = COPY_SQL.format(
        created_at=ISO_TIME.format("report.created_at"),
        closed_at=ISO_TIME.format("report.closed_at"),
        final_label_joins="".join(
            FINAL_LABEL_JOIN.format(dimension=dimensions[key], alias=key)
            for key in ("cause", "impact")
        ),
        study=study.pk,
    )
    runs = [("csv", []), ("json", []), ("jsonl", []), ("csv", ["--include-annotators"])]
    labels = [f"{fmt}{' ' + extra[0] if extra else ''}" for fmt, extra in runs]
    with tempfile.TemporaryDirectory() as directory:
        copied = Path(directory) / "copy.csv"
        copy_times, timed = [], {label: [] for label in labels}
        # Round by round, COPY then each format: a machine that speeds up or slows down
        # meanwhile does so for both sides alike.
        for _ in range(RUNS):
            with copied.open("w", encoding="utf-8") as sink, connection.cursor() as cursor:
                cursor.execute("SET jit = off")  # as the export sets it
                start = time.perf_counter()
                cursor.cursor.copy_expert(sql, sink)
                copy_times.append(time.perf_counter() - start)
            for label, (fmt, extra) in zip(labels, runs, strict=True):
                output = Path(directory) / f"bench{'-'.join(['', *extra])}.{fmt}"
                command = [sys.executable, "manage.py", "export_dataset", "bench"]
                command += ["--format", fmt, "--output", str(output), *extra]
                timed[label].append((*child_run(command), output.stat().st_size))
        copy_rate = items / min(copy_times)
        print(
            f"\nPostgreSQL COPY of the same rows (CSV)        {copy_rate:10,.0f} rows/s "
            f"(the fastest of {RUNS} runs, as every rate here)"
        )
        rates = {}
        for label in labels:
            elapsed, peak = min(t for t, _, _ in timed[label]), max(p for _, p, _ in timed[label])
            rates[label] = items / elapsed
            print(
                f"export_dataset {label:<28}{items / elapsed:10,.0f} rows/s end to end, peak "
                f"RSS {peak / 2**20:5.0f} MB, {timed[label][0][2] / 2**20:6.1f} MB written"
            )
        difference = first_difference(copied, Path(directory) / "bench.csv")
        print(f"COPY's rows and cells are the export's CSV's: {difference or 'yes'}")

    for fmt in ("csv", "json", "jsonl"):
        export = Export(study=study, fmt=fmt, options=ExportOptions())
        export.datasheet  # noqa: B018 - the datasheet apart: this times the records alone
        times = []
        for _ in range(RUNS):
            start = time.perf_counter()
            with open(os.devnull, "w", encoding="utf-8") as sink:
                for piece in export.pieces():
                    sink.write(piece)
            times.append(time.perf_counter() - start)
        rate = items / min(times)
        rates[f"records alone {fmt}"] = rate
        print(f"records alone, in process, {fmt:<19}{rate:10,.0f} rows/s")
    print(
        f"\nCSV / COPY: {rates['csv'] / copy_rate:.2f} end to end, "
        f"{rates['records alone csv'] / copy_rate:.2f} records alone"
    )
    print(f"goal: CSV at least {copy_rate / 2:,.0f} rows/s (half of COPY); peak under 200 MB")


def main() -> None:
    args = parse_args()
    if args.reuse_db:
        args.keep_db = True
    with django_on_database(args, create=not args.reuse_db):
        if not args.reuse_db:
            build(args)
        print(f"load average (1 min) {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
        measure(args)


if __name__ == "__main__":
    main()
