"""The app under gunicorn for the benchmarks that drive it over HTTP (bench/label_load.py,
bench/adjudication_bench.py), the wait for a quiet machine, and percentiles.

- `app_environment(args)`: the app's settings, on the database `args.pg`/`args.database`;
- `gunicorn_serving(args, env, ...)`: the app (or another WSGI app) under gunicorn on a free
  loopback port, answering, for the time of a `with` block;
- `load_average()`, `wait_until_quiet(args)`: other work on the machine, and waiting it out;
- `percentile(...)` (interpolated) and `percentile_nearest_rank(...)` (a measured value).
"""

from __future__ import annotations

import http.client
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"


def app_environment(args, **extra: str) -> dict[str, str]:
    """This process's environment with the app's settings for a benchmark, and `extra`."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"{args.pg}/{args.database}",
        "DEBUG": "0",
        "SECRET_KEY": "bench-only-secret-key-not-for-production-use-0123456789",
        "ALLOWED_HOSTS": HOST,
        "CELERY_BROKER_URL": "",
        "LOG_LEVEL": "WARNING",
        **extra,
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def gunicorn_start(args, env, port, app: tuple[str, ...] = ("config.wsgi",)) -> subprocess.Popen:
    """gunicorn serving `app` on `port`: `args.workers` processes of `args.threads` threads."""
    return subprocess.Popen(
        [
            str(Path(sys.executable).with_name("gunicorn")),
            *app,
            "--bind",
            f"{HOST}:{port}",
            "--workers",
            str(args.workers),
            "--worker-class",
            "gthread",
            "--threads",
            str(args.threads),
            "--log-level",
            "warning",
        ],
        env=env,
        cwd=ROOT,
    )


def wait_until_up(port: int, server: subprocess.Popen, path: str, headers: dict) -> None:
    """Until GET `path` answers 200 (at most 60 s), or gunicorn exits."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"gunicorn exited with {server.returncode}")
        try:
            connection = http.client.HTTPConnection(HOST, port, timeout=2)
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            response.read()
            connection.close()
            if response.status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not answer within 60 s")


@contextmanager
def gunicorn_serving(
    args,
    env,
    path: str,
    headers: dict | None = None,
    app: tuple[str, ...] = ("config.wsgi",),
):
    """`app` under gunicorn on a free port, yielded once GET `path` (with `headers`) answers
    200; stopped on leaving."""
    port = free_port()
    server = gunicorn_start(args, env, port, app)
    try:
        wait_until_up(port, server, path, headers or {})
        yield port
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} (1, 5, 15 min)"


def wait_until_quiet(args, skewed: str = "figures are skewed") -> None:
    """Other work on the machine takes CPU from the app and its clients alike: wait (up to
    `args.wait_seconds`) for the 1-minute load average to fall to `args.max_load`; if it does
    not, say so, and what that means for the figures (`skewed`)."""
    deadline = time.monotonic() + args.wait_seconds
    while os.getloadavg()[0] > args.max_load and time.monotonic() < deadline:
        print(f"waiting for a quiet machine: {load_average()}", flush=True)
        time.sleep(15)
    if os.getloadavg()[0] > args.max_load:
        print(f"WARNING: the machine stayed busy; {skewed}: {load_average()}")


def percentile(values: list[float], fraction: float) -> float:
    """Interpolated between the two nearest values (NaN of none)."""
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(fraction * 100) - 1]


def percentile_nearest_rank(values: list[float], fraction: float) -> float:
    """The measured value nearest that rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]
