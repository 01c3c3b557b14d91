"""The adjudication desk in a real browser: from a lead's decision to the next item painted.

Builds its own PostgreSQL database (dropped afterwards unless --keep-db) holding a study of
--items items on which two annotators disagree on one dimension, collects the static files,
starts the app under gunicorn on a free loopback port (as bench/label_load.py does, with the
app's security headers, Content-Security-Policy included, left as they are), signs a lead in
in headless Chromium at 1400x900, and decides items by keyboard as a lead does: an
annotator's answer (`1`), the rationale (`r`, typed, `Esc`), the reason (`c`), then `Enter`.

Measured per decision, in the page: from the Enter key's event to the first frame after the
next item (side by side and its report) is in the page, i.e. a requestAnimationFrame
callback followed by a task (setTimeout 0), which runs once that frame was handed to paint.
The decision's request to the server is inside that time; the next item was fetched while
the lead read. Two runs:

- reading (the goal's figure): the lead reads each item for --read-seconds before deciding,
  so the next item is fetched by then;
- no reading: Enter as soon as the keys are typed, the next item's fetch possibly still under
  way (the worst case).

For comparison, a full load of the desk's page on an item (navigation start to the item
painted), which was the cost of every item before the desk.

It needs PostgreSQL on 127.0.0.1 as user postgres and Playwright's Chromium.

    .venv/bin/python bench/adjudication_bench.py [--decisions 100] [--read-seconds 1]
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import subprocess
import sys
import time

from bench_app import (
    HOST,
    ROOT,
    app_environment,
    gunicorn_serving,
    percentile_nearest_rank,
    wait_until_quiet,
)
from bench_db import database, database_arguments, database_settle, study_labels, study_with_reports

PYTHON = sys.executable
# The lead signs in with it; made afresh each run, like the database.
PASSWORD = secrets.token_urlsafe(16)
GOAL_P95_MS = 150
# The Chromium the browser tests use (tests/conftest.py).
CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"

# Installed in the page once: times each Enter to the next item painted (see the docstring).
MEASURE = """() => {
  const bench = { latencies: [], pressed: null };
  performance.setResourceTimingBufferSize(100000);  // every decision's request is kept
  window.__bench = bench;
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter") bench.pressed = performance.now();
  }, true);
  const desk = document.getElementById("desk");
  new MutationObserver(() => {
    if (bench.pressed === null) return;
    const pressed = bench.pressed;
    bench.pressed = null;
    requestAnimationFrame(() => setTimeout(() => {
      bench.latencies.push(performance.now() - pressed);
    }, 0));
  }).observe(desk, { attributes: true, attributeFilter: ["data-item"] });
}"""

# The control: the app's smallest authenticated view (/api/ping/, as bench/label_load.py
# uses it) fetched from the same page, one at a time: what any request costs on this machine.
PINGS = """async (count) => {
  const times = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await (await fetch("/api/ping/", { credentials: "same-origin" })).json();
    times.push(performance.now() - start);
  }
  return times;
}"""

# A full load of the page: navigation start to the item painted, the same way.
PAGE_LOAD = """() => new Promise((resolve) => {
  const desk = document.getElementById("desk");
  const done = () => requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0));
  if (desk.dataset.item) return done();
  new MutationObserver((_, observer) => {
    if (!desk.dataset.item) return;
    observer.disconnect();
    done();
  }).observe(desk, { attributes: true, attributeFilter: ["data-item"] });
})"""


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=100, help="measured, with reading")
    parser.add_argument("--hurried", type=int, default=50, help="measured, without reading")
    parser.add_argument("--warmup", type=int, default=5, help="decisions not measured")
    parser.add_argument("--page-loads", type=int, default=20, help="full page loads timed")
    parser.add_argument("--pings", type=int, default=50, help="control requests timed")
    parser.add_argument("--read-seconds", type=float, default=1.0)
    parser.add_argument(
        "--max-load", type=float, default=1.5, help="wait for the 1-minute load average"
    )
    parser.add_argument("--wait-seconds", type=float, default=300, help="at most this long")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--threads", type=int, default=3)
    database_arguments(parser, "labeler_bench_adjudication")
    return parser.parse_args()


def build_study(items: int) -> None:
    """Migrate, load a codebook, and make a study whose every item two annotators labelled
    differently on its first dimension; a lead who does not label in it."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from labeler.labelling.services import assignment_next, assignment_submit
    from labeler.studies.services import study_member_add

    study = study_with_reports(items, 2, ("pytorch/pytorch",))
    users = get_user_model().objects
    lead = users.create_user(username="lead", password=PASSWORD)
    study_member_add(study=study, user=lead, role="lead")
    for index in range(2):
        labels = study_labels(study, first_dimension_leaf=index)
        annotator = users.create_user(username=f"annotator{index}")
        study_member_add(study=study, user=annotator, role="annotator")
        while (held := assignment_next(study=study, user=annotator)) is not None:
            assignment_submit(assignment_id=held.pk, user=annotator, labels=labels)
    database_settle()


def figures(name: str, values: list[float]) -> str:
    return (
        f"  {name:<34} n={len(values):<4} p50 {percentile_nearest_rank(values, 0.5):6.1f} ms"
        f"   p95 {percentile_nearest_rank(values, 0.95):6.1f} ms   max {max(values):6.1f} ms"
    )


def decide(page, expected_decisions: int, read_seconds: float) -> None:
    """One decision by keyboard on the item shown; returns once the next item is painted."""
    if read_seconds:
        time.sleep(read_seconds)  # the lead reads: the next item is fetched meanwhile
    for key in ("1", "r"):
        page.keyboard.press(key)
    page.keyboard.type("bench rationale")
    for key in ("Escape", "c", "Enter"):
        page.keyboard.press(key)
    page.wait_for_function("(n) => window.__bench.latencies.length >= n", arg=expected_decisions)


def drive(args, base: str) -> tuple[list[float], ...]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"],
        )
        page = browser.new_page(base_url=base, viewport={"width": 1400, "height": 900})
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto("/accounts/login/")
        page.fill("#id_username", "lead")
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_selector("[data-testid=username]")

        # Full page loads of the desk on the queue's head, for comparison.
        page.goto("/studies/bench/adjudicate/")
        head = page.locator("[data-testid=queue] tbody tr[data-item]").first
        item = head.get_attribute("data-item")
        loads = []
        for _ in range(args.page_loads + 1):
            page.goto(f"/studies/bench/adjudicate/{item}/", wait_until="domcontentloaded")
            painted = page.evaluate(PAGE_LOAD)
            loads.append(painted)  # performance.now() counts from the navigation's start
        loads = loads[1:]

        page.evaluate(MEASURE)
        page.wait_for_selector("[data-testid=waiting]:has-text('waiting')")
        done = 0
        for _ in range(args.warmup):
            done += 1
            decide(page, done, args.read_seconds)
        reading_from = done
        for _ in range(args.decisions):
            done += 1
            decide(page, done, args.read_seconds)
        hurried_from = done
        for _ in range(args.hurried):
            done += 1
            decide(page, done, 0)
        pings = page.evaluate(PINGS, args.pings)
        latencies = page.evaluate("window.__bench.latencies")
        requests = page.evaluate(
            """() => performance.getEntriesByType("resource")
                .filter((entry) => entry.name.endsWith("/adjudicate/"))
                .map((entry) => entry.duration)"""
        )
        status = page.get_by_test_id("status").text_content()
        browser.close()
    if errors:
        raise SystemExit(f"the page failed: {errors[:3]}")
    if not status.startswith("Decided"):
        raise SystemExit(f"the last decision was not taken: {status}")
    return latencies[reading_from:hurried_from], latencies[hurried_from:], loads, requests, pings


def main() -> None:
    args = parse_args()
    env = app_environment(args)
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    items = args.warmup + args.decisions + args.hurried + 1
    print(f"building {args.database}: {items} items in dispute ...", flush=True)
    database(args, "create")
    try:
        build_study(items)
        subprocess.run(
            [PYTHON, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
            env=env,
            check=True,
        )
        with gunicorn_serving(args, env, "/accounts/login/") as port:
            print(
                f"gunicorn on {HOST}:{port}: {args.workers} workers x {args.threads} threads; "
                "headless Chromium at 1400x900",
                flush=True,
            )
            wait_until_quiet(args, "every figure is skewed; compare with the control")
            load = os.getloadavg()[0]
            reading, hurried, loads, requests, pings = drive(args, f"http://{HOST}:{port}")
            load = f"load average {load:.2f} before, {os.getloadavg()[0]:.2f} after"
        check_decided(args.warmup + args.decisions + args.hurried)
    finally:
        if not args.keep_db:
            database(args, "drop")
    print(f"\ndecision (Enter) to the next item painted ({load}):")
    print(figures(f"reading {args.read_seconds:g} s before deciding", reading))
    print(figures("no reading (Enter at once)", hurried))
    print(figures("of which the decision's request", requests))
    print(figures("full page load of the desk, for comparison", loads))
    print(figures("control: GET /api/ping/ from the page", pings))
    met = "met" if percentile_nearest_rank(reading, 0.95) < GOAL_P95_MS else "NOT met"
    print(f"goal: p95 under {GOAL_P95_MS} ms with reading: {met}")


def check_decided(expected: int) -> None:
    """Every decision reached the database: as many final items, each with its history."""
    from labeler.models import FinalLabelEvent, StudyItem

    final = StudyItem.objects.filter(study__slug="bench", adjudicated_at__isnull=False).count()
    events = FinalLabelEvent.objects.filter(user__username="lead", kind="decided").count()
    if (final, events) != (expected, expected):
        raise SystemExit(f"{expected} decisions sent, {final} final items, {events} events")


if __name__ == "__main__":
    main()
