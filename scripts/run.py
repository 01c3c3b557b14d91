"""`make run`: the whole app on one machine, with nothing installed but Python.

Unless DATABASE_URL is set, the embedded PostgreSQL (config/embedded_db.py) runs for as long
as this does. Unless CELERY_BROKER_URL is set, a Celery worker runs beside the web server on
a folder queue (.data/queue), so that an import started on a page runs in the background
with its live progress and cancel, as with Redis. Then: migrate, load the built-in codebooks
and the demo, and serve. Ctrl-C stops all of it.
"""

import argparse
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
# Run as a file, this script sees scripts/ on its path, not the project beside it.
sys.path.insert(0, str(ROOT))

from config.embedded_db import DATA_DIR, EmbeddedDatabaseError, EmbeddedPostgres  # noqa: E402

# A worker stopping lets its import stop at its next step for this long (an idle worker takes
# about 5 s to stop). Longer means a GitHub request in flight, which the pool process would
# see to its end, retries included.
WORKER_GRACE_SECONDS = 8


def worker_command() -> list[str]:
    """One worker process (prefork, so that the tasks' time limits hold), quiet."""
    return [
        sys.executable, "-m", "celery", "-A", "config", "--quiet", "worker",
        "--pool", "prefork", "--concurrency", "1", "--loglevel", "WARNING",
        "--without-gossip", "--without-mingle", "--without-heartbeat",
    ]  # fmt: skip


@contextlib.contextmanager
def database(data: Path) -> Iterator[str]:
    if os.environ.get("DATABASE_URL"):
        yield os.environ["DATABASE_URL"]
        return
    with EmbeddedPostgres(data).running() as url:
        yield url


@contextlib.contextmanager
def worker(env: dict, data: Path) -> Iterator[dict]:
    """The environment of the app's processes, with a worker on a folder queue when no
    broker is configured."""
    if env.get("CELERY_BROKER_URL"):
        yield env
        return
    queue = data / "queue"
    (queue / "control").mkdir(parents=True, exist_ok=True)
    env = {**env, "CELERY_BROKER_URL": f"filesystem://localhost{queue}"}
    process = start(worker_command(), env)
    try:
        yield env
    finally:
        stop_worker(process)


def stop_worker(process: subprocess.Popen) -> None:
    """A cold shutdown: the import in flight stops and its message goes back to the queue,
    so the next run resumes it from its checkpoint (a warm shutdown would wait for the whole
    import to end)."""
    process.send_signal(signal.SIGQUIT)
    try:
        process.wait(timeout=WORKER_GRACE_SECONDS)
        return
    except subprocess.TimeoutExpired:
        pass
    # The worker puts the message of a lost pool process back too.
    with contextlib.suppress(psutil.NoSuchProcess):
        for child in psutil.Process(process.pid).children(recursive=True):
            child.kill()
    wait(process, 20)


def start(command: list[str], env: dict) -> subprocess.Popen:
    """A child in a process group of its own: Ctrl-C reaches this script alone, which then
    stops each child the way that child stops cleanly."""
    return subprocess.Popen(  # noqa: S603 (the project's own commands)
        command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, process_group=0
    )


def wait(process: subprocess.Popen, seconds: float) -> None:
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def manage(env: dict, *args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True)  # noqa: S603


def serve(env: dict, host: str, port: int) -> int:
    process = start([sys.executable, "manage.py", "runserver", f"{host}:{port}"], env)
    try:
        return process.wait()
    finally:
        if process.poll() is None:
            # The development server and its autoreloader child.
            os.killpg(process.pid, signal.SIGTERM)
            wait(process, 10)


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _stop_requested(signum, frame) -> None:
    # Once: a second Ctrl-C must not cut the clean-up short, or the worker, the server and
    # the database would be left running without anyone to stop them.
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--data", type=Path, default=DATA_DIR, help="data folder (.data)")
    args = parser.parse_args()
    data = args.data.absolute()
    # `kill`, or closing the terminal, stops the app as Ctrl-C does: nothing is left behind.
    for sig in STOP_SIGNALS:
        signal.signal(sig, _stop_requested)
    try:
        with database(data) as url:
            env = {**os.environ, "DATABASE_URL": url}
            manage(env, "migrate", "--noinput")
            manage(env, "load_codebook", "--builtin", "all")
            manage(env, "load_demo", "--url", f"http://{args.host}:{args.port}/")
            with worker(env, data) as env:
                print(f"Serving on http://{args.host}:{args.port}/  (Ctrl-C stops)", flush=True)
                return serve(env, args.host, args.port)
    except EmbeddedDatabaseError as error:
        print(error, file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as error:
        return error.returncode
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
