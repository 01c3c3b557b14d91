"""Load test of labelling: many annotators asking for the next item and submitting at once.

Builds its own PostgreSQL database (dropped afterwards unless --keep-db) holding a study of
--items items at overlap --overlap, starts the app under gunicorn on a free loopback port,
and drives --annotators concurrent annotators (next, then submit, again and again, no
pause) for --seconds, after --warmup-seconds of the same, unmeasured. The same number of
clients call GET /api/ping/, the smallest authenticated view of the same app, for the same
time; the two take turns (--rounds), so that the machine's changing speed weighs on both.
Prints requests/s, p50 and p95 latency of each endpoint, errors, and checks that no item
got more than k annotations or the same person twice. The goals are judged on these two
closed-loop, zero-think-time runs.

Then, as a separate figure set, the annotators label again with a think time between
receiving an item and submitting it (--think-seconds, 0 to leave it out), as people do.

Last, the floor: the minimal view's clients against bench/floor_app.py, an empty Django view
with no middleware and no database, under the same gunicorn settings, on a quiet machine.
No view of any Django app answers faster than that on this machine at this load; when the
floor's p95 is already near or over the 50 ms goal, the machine cannot meet that goal,
whatever the app does.

Other work on the machine skews every figure: the run waits (up to --wait-seconds) for the
1-minute load average to fall to --max-load, and prints the load average and the share of
CPU time other processes took during each run. It needs PostgreSQL on 127.0.0.1 as user
postgres and nothing else set by hand.

    .venv/bin/python bench/label_load.py [--seconds 20] [--annotators 50] [--items 50000]
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import statistics
import sys
import time

from bench_app import (
    HOST,
    ROOT,
    app_environment,
    gunicorn_serving,
    load_average,
    percentile,
    wait_until_quiet,
)
from bench_db import database, database_arguments, database_settle, study_labels, study_with_reports

REQUEST_TIMEOUT = 10


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seconds", type=float, default=30.0, help="length of each phase (all its rounds)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="labelling and the minimal view take turns this many times, each a share of --seconds",
    )
    parser.add_argument(
        "--warmup-seconds", type=float, default=3.0, help="unmeasured labelling before the runs"
    )
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--items", type=int, default=50_000)
    parser.add_argument("--overlap", type=int, default=3)
    # One process per core, each with three threads to overlap its database waits: on two
    # cores this answered with the shortest tails (more processes split the clients' kept-alive
    # connections unevenly; more threads fight over each process's lock).
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="gunicorn processes"
    )
    parser.add_argument("--threads", type=int, default=3, help="threads per gunicorn worker")
    parser.add_argument(
        "--think-seconds",
        type=float,
        default=1.0,
        help="mean pause between an item's arrival and its submission in the think-time run",
    )
    parser.add_argument("--max-load", type=float, default=1.5, help="1-minute load average")
    parser.add_argument("--wait-seconds", type=float, default=900, help="wait for --max-load")
    parser.add_argument("--client-processes", type=int, default=5)
    database_arguments(parser, "labeler_bench")
    return parser.parse_args()


def build_study(args) -> tuple[list[str], dict]:
    """Migrate, load a codebook, make the reports and the study; returns tokens and labels."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from labeler.studies.services import study_member_add

    study = study_with_reports(
        args.items, args.overlap, ("pytorch/pytorch", "tensorflow/tensorflow")
    )
    tokens = []
    for index in range(args.annotators):
        user = get_user_model().objects.create_user(username=f"annotator{index}")
        study_member_add(study=study, user=user, role="annotator")
        tokens.append(Token.objects.create(user=user).key)
    labels = study_labels(study)
    # The client processes are forked from this one: database_settle() closes the connections.
    database_settle()
    return tokens, labels


def authorization(token: str) -> dict[str, str]:
    return {"Authorization": f"Token {token}"}


def request(connection, method: str, path: str, token: str, body: dict | None = None):
    headers = authorization(token)
    payload = None
    if body is not None:
        payload = json.dumps(body)
        headers["Content-Type"] = "application/json"
    started = time.perf_counter()
    connection.request(method, path, body=payload, headers=headers)
    response = connection.getresponse()
    data = response.read()
    return response.status, data, time.perf_counter() - started


def annotator_loop(port, token, labels, mode, deadline, results, think):
    """One client: `label` (next + submit) or `ping`, until the deadline; `think` seconds on
    average between an item's arrival and its submission."""
    latencies: dict[str, list[float]] = {"next": [], "submit": [], "ping": []}
    errors: list[str] = []
    pause = random.Random(token)
    connection = http.client.HTTPConnection(HOST, port, timeout=REQUEST_TIMEOUT)
    while time.monotonic() < deadline:
        try:
            if mode == "ping":
                status, _, elapsed = request(connection, "GET", "/api/ping/", token)
                latencies["ping"].append(elapsed)
                if status != 200:
                    errors.append(f"ping {status}")
                continue
            status, data, elapsed = request(connection, "POST", "/api/studies/bench/next/", token)
            latencies["next"].append(elapsed)
            if status == 204:
                break
            if status != 200:
                errors.append(f"next {status}: {data[:200]!r}")
                continue
            assignment = json.loads(data)["assignment"]
            if assignment is None:
                # Nothing free now: others hold the last items, which may still come back.
                time.sleep(1)
                continue
            if think:
                time.sleep(think * pause.uniform(0.5, 1.5))
            body = {"labels": labels, "seconds": 1}
            status, data, elapsed = request(
                connection, "POST", f"/api/assignments/{assignment}/submit/", token, body
            )
            latencies["submit"].append(elapsed)
            if status != 200:
                errors.append(f"submit {status}: {data[:200]!r}")
        except (OSError, http.client.HTTPException) as error:
            errors.append(f"{mode}: {error!r}")
            connection.close()
            connection = http.client.HTTPConnection(HOST, port, timeout=REQUEST_TIMEOUT)
    connection.close()
    results.put((latencies, errors))


def client_process(port, tokens, labels, mode, deadline, results, think):
    import threading

    threads = [
        threading.Thread(
            target=annotator_loop, args=(port, t, labels, mode, deadline, results, think)
        )
        for t in tokens
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def drive(
    args, port, tokens, labels, mode, think=0.0, seconds=None
) -> tuple[dict[str, list[float]], list[str], float]:
    seconds = args.seconds if seconds is None else seconds
    results = multiprocessing.Queue()
    started = time.monotonic()
    deadline = started + seconds
    shares = [tokens[i :: args.client_processes] for i in range(args.client_processes)]
    processes = [
        multiprocessing.Process(
            target=client_process, args=(port, share, labels, mode, deadline, results, think)
        )
        for share in shares
        if share
    ]
    for process in processes:
        process.start()
    latencies: dict[str, list[float]] = {"next": [], "submit": [], "ping": []}
    errors: list[str] = []
    for _ in tokens:
        client_latencies, client_errors = results.get(
            timeout=seconds + 4 * REQUEST_TIMEOUT + 2 * think
        )
        for key, values in client_latencies.items():
            latencies[key].extend(values)
        errors.extend(client_errors)
    for process in processes:
        process.join()
    return latencies, errors, time.monotonic() - started


def pooled(runs) -> tuple[dict[str, list[float]], list[str], float]:
    """Several drive() results as one: latencies and errors together, times added up."""
    latencies: dict[str, list[float]] = {"next": [], "submit": [], "ping": []}
    errors: list[str] = []
    for run_latencies, run_errors, _ in runs:
        for key, values in run_latencies.items():
            latencies[key].extend(values)
        errors.extend(run_errors)
    return latencies, errors, sum(elapsed for _, _, elapsed in runs)


def figures(name: str, values: list[float], elapsed: float) -> str:
    return (
        f"  {name:<7} {len(values):>7} requests {len(values) / elapsed:>8.1f}/s   "
        f"p50 {percentile(values, 0.50) * 1000:>7.1f} ms   "
        f"p95 {percentile(values, 0.95) * 1000:>7.1f} ms"
    )


def over_assignment(env) -> tuple[int, int, int]:
    """(items with more than k claims or submissions, items labelled twice by one person,
    submitted annotations)."""
    import psycopg2

    connection = psycopg2.connect(env["DATABASE_URL"])
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM labeler_studyitem WHERE claimed > needed OR submitted > needed"
            " OR (SELECT count(*) FROM labeler_assignment a WHERE a.item_id = labeler_studyitem.id"
            " AND a.status IN ('held', 'submitted')) > needed"
        )
        over = cursor.fetchone()[0]
        cursor.execute(
            "SELECT count(*) FROM (SELECT item_id, annotator_id FROM labeler_assignment"
            " GROUP BY item_id, annotator_id HAVING count(*) > 1) twice"
        )
        twice = cursor.fetchone()[0]
        cursor.execute("SELECT count(*) FROM labeler_assignment WHERE status = 'submitted'")
        submitted = cursor.fetchone()[0]
    connection.close()
    return over, twice, submitted


class CpuShare:
    """How much of the machine's CPU time went to other work than this run (the app, its
    database sessions, the clients) between start() and stop(), and how much the host took
    for other guests (steal time: a virtual machine's CPUs are shared). Linux /proc only."""

    def __init__(self, database: str) -> None:
        self.database = database

    @staticmethod
    def _busy() -> tuple[int, int]:
        """(busy ticks but steal, steal ticks) of all CPUs."""
        with open("/proc/stat") as stat:
            fields = [int(value) for value in stat.readline().split()[1:]]
        # user nice system idle iowait irq softirq steal (guest time is inside user already)
        steal = fields[7] if len(fields) > 7 else 0
        return sum(fields[:8]) - fields[3] - fields[4] - steal, steal

    def _own(self) -> dict[str, int]:
        """CPU ticks of this run's processes, by pid."""
        parents, ticks, commands = {}, {}, {}
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
                with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                    commands[pid] = cmdline.read().decode(errors="replace")
            except OSError:
                continue
            parents[pid] = fields[1]
            ticks[pid] = int(fields[11]) + int(fields[12])
            if pid == str(os.getpid()):
                # With the client processes' time, once they have ended and been waited for.
                ticks[pid] += int(fields[13]) + int(fields[14])

        def ours(pid: str) -> bool:
            while pid in parents:
                if pid == str(os.getpid()):
                    return True
                pid = parents[pid]
            return False

        return {
            pid: ticks[pid]
            for pid in ticks
            if ours(pid) or ("postgres" in commands[pid] and self.database in commands[pid])
        }

    def start(self) -> None:
        self.started = (self._busy(), self._own())

    def stop(self) -> tuple[float, float]:
        """(share of other work, share stolen by the host), of the CPU time that passed."""
        (busy, steal), (busy_before, steal_before) = self._busy(), self.started[0]
        busy, steal = busy - busy_before, steal - steal_before
        # Per process: a database session that ended meanwhile (the app renews its connections)
        # takes its time with it, and is left out rather than counted as negative time.
        before = self.started[1]
        own = sum(ticks - before.get(pid, 0) for pid, ticks in self._own().items())
        total = busy + steal
        if not total:
            return 0.0, 0.0
        return max(0, busy - own) / total, steal / total


def drive_floor(args, env, tokens, labels):
    """The minimal view's clients against bench/floor_app.py under the same server settings."""
    floor_app = ("--pythonpath", str(ROOT / "bench"), "floor_app")
    with gunicorn_serving(args, env, "/api/ping/", authorization(tokens[0]), floor_app) as port:
        # A lower bound: measured on a quiet machine, once the app's load has settled.
        wait_until_quiet(args)
        drive(args, port, tokens, labels, "ping", seconds=args.warmup_seconds)
        others = CpuShare(args.database)
        others.start()
        result = drive(args, port, tokens, labels, "ping")
        return (*result, others.stop())


def report_labelling(title, latencies, errors, elapsed) -> None:
    labelled = len(latencies["next"]) + len(latencies["submit"])
    print(f"\n{title}: {labelled / elapsed:.1f} requests/s over {elapsed:.1f} s")
    print(figures("next", latencies["next"], elapsed))
    print(figures("submit", latencies["submit"], elapsed))
    print(f"  errors  {len(errors)}")
    for error in errors[:5]:
        print(f"    {error}")


def main() -> None:
    args = parse_args()
    # Static files are not served here: never mind that they were not collected.
    env = app_environment(args, PYTHONWARNINGS="ignore:No directory at")
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)

    print(f"building {args.database}: {args.items} items, overlap {args.overlap} ...", flush=True)
    database(args, "create")
    try:
        built = time.monotonic()
        tokens, labels = build_study(args)
        print(f"built in {time.monotonic() - built:.1f} s", flush=True)
        run(args, env, tokens, labels)
    finally:
        if not args.keep_db:
            database(args, "drop")


def run(args, env, tokens, labels) -> None:
    loads = {}
    with gunicorn_serving(args, env, "/api/ping/", authorization(tokens[0])) as port:
        print(
            f"gunicorn on {HOST}:{port}: {args.workers} workers x {args.threads} threads; "
            f"{args.annotators} clients in {args.client_processes} processes, "
            f"{args.seconds:.0f} s per phase in {args.rounds} rounds, {os.cpu_count()} CPUs",
            flush=True,
        )
        wait_until_quiet(args)
        # Unmeasured: every server thread's first requests (imports, caches, connections).
        warm = drive(args, port, tokens, labels, "label", seconds=args.warmup_seconds)
        if warm[1]:
            raise SystemExit(f"the warm-up failed: {warm[1][:3]}")
        loads["before"] = load_average()
        # Labelling and the minimal view take turns, so that a change in the machine's speed
        # during the run (other guests on the host) weighs on both alike.
        others = CpuShare(args.database)
        runs: dict[str, list] = {"label": [], "ping": []}
        shares: dict[str, list[tuple[float, float]]] = {"label": [], "ping": []}
        for _ in range(args.rounds):
            for mode in ("label", "ping"):
                others.start()
                seconds = args.seconds / args.rounds
                runs[mode].append(drive(args, port, tokens, labels, mode, seconds=seconds))
                shares[mode].append(others.stop())
        latencies, errors, elapsed = pooled(runs["label"])
        ping, ping_errors, ping_elapsed = pooled(runs["ping"])
        others_labelling = [statistics.mean(share) for share in zip(*shares["label"], strict=True)]
        others_ping = [statistics.mean(share) for share in zip(*shares["ping"], strict=True)]
        loads["after"] = load_average()
        if args.think_seconds:
            thinking = drive(args, port, tokens, labels, "label", think=args.think_seconds)
    floor, floor_errors, floor_elapsed, others_floor = drive_floor(args, env, tokens, labels)

    over, twice, submitted = over_assignment(env)
    print(f"\n{loads['before']} before the runs, {loads['after']} after them")
    print(
        f"CPU time taken by other work on the machine: {others_labelling[0]:.0%} during the "
        f"labelling run, {others_ping[0]:.0%} during the minimal view's; by the host for other "
        f"guests (steal): {others_labelling[1]:.0%} and {others_ping[1]:.0%}"
    )
    report_labelling(
        "labelling, closed loop, no think time (next + submit)", latencies, errors, elapsed
    )
    print(f"minimal view (GET /api/ping/): {len(ping['ping']) / ping_elapsed:.1f} requests/s")
    print(figures("ping", ping["ping"], ping_elapsed))
    print(f"  errors  {len(ping_errors)}")
    print(
        f"integrity after every run: {submitted} annotations submitted; items over k: {over}; "
        f"items labelled twice by one person: {twice}"
    )
    p95 = {name: percentile(latencies[name], 0.95) for name in ("next", "submit")}
    ping_p95 = percentile(ping["ping"], 0.95)
    for name, value in p95.items():
        print(
            f"goal {name}: p95 {value * 1000:.1f} ms (< 50 ms: {'yes' if value < 0.05 else 'no'});"
            f" {value / ping_p95:.1f}x the minimal view's (< 3x: "
            f"{'yes' if value < 3 * ping_p95 else 'no'})"
        )
    floor_p95 = percentile(floor["ping"], 0.95)
    print(
        f"floor (an empty Django view: no middleware, no database; same server and clients): "
        f"{len(floor['ping']) / floor_elapsed:.1f} requests/s"
    )
    print(figures("floor", floor["ping"], floor_elapsed))
    print(
        f"  errors  {len(floor_errors)}; other work {others_floor[0]:.0%}, "
        f"steal {others_floor[1]:.0%} of the CPU time"
    )
    print(
        f"floor p95 {floor_p95 * 1000:.1f} ms: no view of a Django app answers faster here at "
        f"this load ({'under' if floor_p95 < 0.05 else 'not under'} the 50 ms goal even so)"
    )
    clean = not errors and not ping_errors and not over and not twice
    print(f"goal errors and over-assignment: none: {'yes' if clean else 'no'}")
    if args.think_seconds:
        report_labelling(
            f"for comparison, not judged: labelling with {args.think_seconds:.1f} s mean think "
            "time between an item and its submission",
            *thinking,
        )


if __name__ == "__main__":
    main()
