"""The daily games' secret: readable by the server's user only where SQLite keeps it (the
database, its backups and their folder), and replaced from tomorrow on by
``magdagdon rotate-secret`` without changing a day that has begun or a published seed."""

from __future__ import annotations

import os
import stat
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from magdagdon.engine import Difficulty
from magdagdon.store import Database, Store

from .test_operations import magdagdon_command

TODAY = date(2026, 12, 1)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_database_its_folder_and_backups_are_the_owners_alone(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        folder = tmp_path / "data" / "magdagdon"
        url = f"sqlite:///{folder / 'magdagdon.db'}"
        result = magdagdon_command("migrate", env={"MAGDAGDON_DATABASE_URL": url})
        assert result.returncode == 0, result.stderr
        database = folder / "magdagdon.db"
        assert _mode(folder) == 0o700 and _mode(database) == 0o600
        store = Store(Database(url))
        store.daily_seed(TODAY, Difficulty.PEACEFUL)  # the secret is written: WAL files too
        for extra in folder.glob("magdagdon.db-*"):
            assert _mode(extra) == 0o600, extra
        store.db.dispose()
        backup = tmp_path / "backup.db"
        result = magdagdon_command("backup", str(backup), env={"MAGDAGDON_DATABASE_URL": url})
        assert result.returncode == 0, result.stderr
        assert _mode(backup) == 0o600
    finally:
        os.umask(old)


def test_a_database_made_elsewhere_keeps_its_mode(tmp_path: Path) -> None:
    database = tmp_path / "shared.db"
    database.touch(mode=0o640)
    os.chmod(database, 0o640)
    Database(f"sqlite:///{database}").migrate()
    assert _mode(database) == 0o640  # the operator chose it


def test_rotation_changes_the_days_after_today_only(database_url: str) -> None:
    Database(database_url).migrate()
    worker, other = Store(Database(database_url)), Store(Database(database_url))
    past, tomorrow = TODAY - timedelta(days=3), TODAY + timedelta(days=1)
    before = {day: worker.daily_seed(day, Difficulty.SURVIVAL) for day in (past, TODAY, tomorrow)}
    assert other.daily_seed(TODAY, Difficulty.SURVIVAL) == before[TODAY]  # cached by both
    assert other.rotate_daily_secret(TODAY) == tomorrow
    fresh = Store(Database(database_url))  # another worker, or the server after a restart
    for store in (worker, other, fresh):
        assert store.daily_seed(past, Difficulty.SURVIVAL) == before[past]
        assert store.daily_seed(TODAY, Difficulty.SURVIVAL) == before[TODAY]
    later = tomorrow + timedelta(days=5)
    new = fresh.daily_seed(later, Difficulty.SURVIVAL)
    assert other.daily_seed(later, Difficulty.SURVIVAL) == new
    assert worker.daily_seed(later, Difficulty.SURVIVAL) == new
    assert fresh.daily_seed(tomorrow, Difficulty.SURVIVAL) != before[tomorrow]
    # a second rotation the day after: the first key keeps its one day
    assert fresh.rotate_daily_secret(tomorrow) == tomorrow + timedelta(days=1)
    third = Store(Database(database_url))
    assert third.daily_seed(tomorrow, Difficulty.SURVIVAL) == fresh.daily_seed(
        tomorrow, Difficulty.SURVIVAL
    )
    assert third.daily_seed(later, Difficulty.SURVIVAL) != new


def test_rotate_secret_says_what_it_changes(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    before = datetime.now(UTC).date()
    result = magdagdon_command("rotate-secret", env={"MAGDAGDON_DATABASE_URL": url})
    after = datetime.now(UTC).date()
    assert result.returncode == 0, result.stderr
    # tomorrow as the command saw it (a run across midnight UTC sees either day)
    firsts = {(day + timedelta(days=1)).isoformat() for day in (before, after)}
    assert any(f"replaced from {first} (UTC) on" in result.stdout for first in firsts)
    assert "Today's dailies keep their dice" in result.stdout
    assert "Past days keep their published seeds" in result.stdout
