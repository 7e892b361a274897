"""Running it as a service: --version, migrate, a database that is late or newer than the
code, settings from a file, and backups of SQLite that restore."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import httpx2
import pytest
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.exc import OperationalError

import magdagdon
from magdagdon.ai.puzzles import starter_puzzles
from magdagdon.cli import main
from magdagdon.startup import LONGEST_DELAY, StartupError, wait_for_database
from magdagdon.store.puzzles import puzzle_key
from magdagdon.store.revisions import head_revision, known_revisions

from ..utils.api import new_game, play_to_end
from ..utils.proxy import TcpProxy
from ..utils.server import free_port, running_server
from .test_migrations import downgrade_to


def magdagdon_command(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run ``magdagdon ARGS`` as a process (its logging set up as in real use)."""
    import os

    return subprocess.run(
        [sys.executable, "-m", "magdagdon.cli", *args],
        env={**os.environ, **(env or {})},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def set_revision(url: str, revision: str) -> None:
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = :r"), {"r": revision})
    engine.dispose()


# --- --version ---------------------------------------------------------------------------------


def test_version_comes_from_the_package_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"magdagdon {version('magdagdon')}"
    assert version("magdagdon") == magdagdon.__version__  # pyproject.toml and the package agree


# --- migrate -----------------------------------------------------------------------------------


def test_migrate_brings_an_empty_database_to_the_head_and_says_so(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    done = magdagdon_command("migrate", env={"MAGDAGDON_DATABASE_URL": url})
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    migrated = [line for line in lines if "migrated the database from" in line]
    assert len(migrated) == len(known_revisions())
    assert "from empty to 0001" in migrated[0]
    head = head_revision()
    assert lines[-2].endswith(f"database at revision {head} (this version knows up to {head})")
    # a new server has puzzles: the starter set's, each position once
    shipped = len({puzzle_key(puzzle, None) for puzzle in starter_puzzles()})
    assert lines[-1].endswith(f"loaded the starter set: {shipped} puzzles")
    again = magdagdon_command("migrate", env={"MAGDAGDON_DATABASE_URL": url})
    assert again.returncode == 0 and "starter set" not in again.stderr  # (loaded once)
    again = magdagdon_command("migrate", env={"MAGDAGDON_DATABASE_URL": url})
    assert again.returncode == 0
    assert "migrated" not in again.stderr  # nothing to do: only the revision line
    assert len(again.stderr.splitlines()) == 1


def test_migrate_from_an_earlier_release_logs_each_migration_it_ran(database_url: str) -> None:
    assert (
        magdagdon_command("migrate", env={"MAGDAGDON_DATABASE_URL": database_url}).returncode == 0
    )
    downgrade_to(database_url, "0001")
    done = magdagdon_command("migrate", env={"MAGDAGDON_DATABASE_URL": database_url})
    assert done.returncode == 0, done.stderr
    migrated = [line for line in done.stderr.splitlines() if "migrated the database" in line]
    assert len(migrated) == len(known_revisions()) - 1
    assert "from 0001 to 0002: Games remember the version" in migrated[0]


@pytest.mark.parametrize("command", ["serve", "migrate"])
def test_a_database_newer_than_the_code_stops_with_one_line(
    database_url: str, command: str
) -> None:
    assert (
        magdagdon_command("migrate", env={"MAGDAGDON_DATABASE_URL": database_url}).returncode == 0
    )
    set_revision(database_url, "0999")  # a migration of a later release
    args = [command, "--port", str(free_port())] if command == "serve" else [command]
    try:
        done = magdagdon_command(*args, env={"MAGDAGDON_DATABASE_URL": database_url})
    finally:  # the PostgreSQL database is shared by the session's tests
        set_revision(database_url, head_revision())
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"magdagdon: database is at revision 0999, this version knows up to {head_revision()}: "
        "upgrade magdagdon"
    ]


def test_an_unreachable_database_is_retried_then_one_line(tmp_path: Path) -> None:
    url = f"postgresql+psycopg://magdagdon:s3cret-pw@127.0.0.1:{free_port()}/magdagdon"
    started = time.monotonic()
    done = magdagdon_command(
        "serve",
        "--port",
        str(free_port()),
        env={"MAGDAGDON_DATABASE_URL": url, "MAGDAGDON_DATABASE_WAIT": "2"},
    )
    took = time.monotonic() - started
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert sum("trying again" in line for line in lines) == 2  # after 0.5 s, then 1 s
    assert lines[-1].startswith(
        "magdagdon: cannot reach the database postgresql+psycopg://magdagdon:***@127.0.0.1:"
    )
    assert "Traceback" not in done.stderr and "s3cret-pw" not in done.stderr + done.stdout
    assert 1.5 <= took < 15


def test_serve_waits_for_a_database_that_comes_up_late(postgres_server_url: str) -> None:
    """The database comes up once the command has found it down and said it will try again
    (not after a fixed delay, which a slow start of the command could outlast)."""
    import os

    real = make_url(postgres_server_url)
    proxy = TcpProxy((real.host or "127.0.0.1", real.port or 5432))
    url = real.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    process = subprocess.Popen(
        [sys.executable, "-m", "magdagdon.cli", "migrate"],
        env={**os.environ, "MAGDAGDON_DATABASE_URL": url},
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    try:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            if "trying again" in line:
                proxy.start()  # the database comes up
                break
        lines += process.stderr.readlines()
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
        proxy.stop()
    stderr = "".join(lines)
    assert process.returncode == 0, stderr
    assert "trying again" in stderr
    assert f"database at revision {head_revision()}" in stderr


class FlakyDatabase:
    """Answers a ping only after ``failures`` refusals."""

    url = "postgresql+psycopg://u:pw@db.example/m"

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.pings = 0

    def ping(self) -> None:
        self.pings += 1
        if self.pings <= self.failures:
            raise OperationalError("SELECT 1", {}, ConnectionRefusedError("refused"))


def fake_time() -> tuple[list[float], Callable[[float], None], Callable[[], float]]:
    slept: list[float] = []
    now = [0.0]

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    return slept, sleep, lambda: now[0]


def test_the_pauses_between_attempts_double_up_to_a_limit() -> None:
    slept, sleep, clock = fake_time()
    database = FlakyDatabase(failures=7)
    wait_for_database(database, 120, sleep=sleep, clock=clock)  # type: ignore[arg-type]
    assert database.pings == 8
    assert slept == [0.5, 1, 2, 4, 8, LONGEST_DELAY, LONGEST_DELAY]


def test_waiting_gives_up_after_the_time_allowed() -> None:
    slept, sleep, clock = fake_time()
    database = FlakyDatabase(failures=100)
    with pytest.raises(StartupError, match=r"tried for 16 s\): refused") as raised:
        wait_for_database(database, 20, sleep=sleep, clock=clock)  # type: ignore[arg-type]
    assert "pw" not in str(raised.value)
    assert sum(slept) <= 20


# --- settings from a file ----------------------------------------------------------------------


def test_migrate_and_serve_read_settings_from_an_env_file(tmp_path: Path) -> None:
    db = tmp_path / "from-file.db"
    env_file = tmp_path / "magdagdon.env"
    env_file.write_text(f"# settings\nMAGDAGDON_DATABASE_URL=sqlite:///{db}\n")
    done = magdagdon_command("migrate", "--env-file", str(env_file), env={}, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert db.exists()
    missing = magdagdon_command("migrate", "--env-file", str(tmp_path / "nope.env"))
    assert missing.returncode == 1
    assert missing.stderr.strip() == (
        f"magdagdon: the settings file {tmp_path / 'nope.env'} does not exist"
    )


@pytest.mark.process
def test_workers_read_the_env_file_too(tmp_path: Path) -> None:
    env_file = tmp_path / "magdagdon.env"
    env_file.write_text("MAGDAGDON_MAX_BODY_BYTES=1024\n")
    with running_server(
        f"sqlite:///{tmp_path / 'workers.db'}", workers=2, args=["--env-file", str(env_file)]
    ) as base:
        body = {"difficulty": "peaceful", "padding": "x" * 2000}
        # A connection each, so that both workers answer some (each reads the file itself).
        assert {httpx2.post(f"{base}/api/games", json=body).status_code for _ in range(8)} == {413}
        assert httpx2.post(f"{base}/api/games", json={"difficulty": "peaceful"}).status_code == 201


# --- backup ------------------------------------------------------------------------------------


@pytest.mark.process
def test_a_backup_of_the_live_sqlite_database_restores_a_working_game(tmp_path: Path) -> None:
    live = tmp_path / "live" / "magdagdon.db"
    backup = tmp_path / "backup.db"
    env = {"MAGDAGDON_DATABASE_URL": f"sqlite:///{live}"}
    with running_server(f"sqlite:///{live}") as base, httpx2.Client(base_url=base) as client:
        final = play_to_end(client, new_game(client, "nightmare", seed=77))
        started = new_game(client, "peaceful", seed=5)  # in progress when backed up
        done = magdagdon_command("backup", str(backup), env=env)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"backed up the database to {backup} (")
        cookies = dict(client.cookies)
        client.post("/api/games", json={"difficulty": "survival", "abandon": True})
    with sqlite3.connect(backup) as copy:
        assert copy.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    assert not Path(f"{backup}-wal").exists()
    restored = tmp_path / "restored.db"
    restored.write_bytes(backup.read_bytes())
    with (
        running_server(f"sqlite:///{restored}") as base,
        httpx2.Client(base_url=base, cookies=cookies) as client,
    ):
        rows = client.get("/api/highscores/nightmare?scope=me").json()["rows"]
        assert [r["score"] for r in rows] == [final["final_score"]["total"]]
        assert client.get(f"/api/games/{final['id']}/replay").status_code == 200
        assert client.get("/api/games/current").json()["id"] == started["id"]
        assert play_to_end(client, started)["phase"] == "over"


def test_backup_refuses_postgresql_and_a_missing_database(tmp_path: Path) -> None:
    pg = magdagdon_command(
        "backup",
        str(tmp_path / "b.db"),
        env={"MAGDAGDON_DATABASE_URL": "postgresql+psycopg://u@127.0.0.1/m"},
    )
    assert pg.returncode == 1
    assert "pg_dump -Fc" in pg.stderr and "Traceback" not in pg.stderr
    missing = magdagdon_command(
        "backup",
        str(tmp_path / "b.db"),
        env={"MAGDAGDON_DATABASE_URL": f"sqlite:///{tmp_path / 'none.db'}"},
    )
    assert missing.returncode == 1
    assert missing.stderr.strip() == f"magdagdon: there is no database at {tmp_path / 'none.db'}"
    assert not (tmp_path / "b.db").exists()
