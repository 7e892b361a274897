"""``magdagdon backup``: a consistent copy of a live SQLite database.

The server keeps its SQLite database in WAL mode: the newest commits may live in the
``-wal`` file beside it, so copying the database file alone (``cp``) can lose them or copy a
page half-written. SQLite's online backup copies a consistent snapshot, committed writes
included, while the server goes on writing. PostgreSQL has ``pg_dump`` for this.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from sqlalchemy import make_url

from .db import private_file


class BackupError(Exception):
    """The backup cannot be made: the message says why in one line."""


def sqlite_path(url: str) -> Path:
    """The file of an SQLite database URL; BackupError for any other database."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        raise BackupError(
            "magdagdon backup copies SQLite databases; back up PostgreSQL with "
            "pg_dump -Fc (see the README)"
        )
    database = parsed.database
    if not database or database == ":memory:" or database.startswith("file:"):
        raise BackupError(f"the database {url} is not an SQLite file")
    return Path(database)


def backup_sqlite(url: str, target: Path) -> int:
    """Copy the SQLite database of ``url`` to ``target`` (replaced if it exists, and only
    once the copy is complete and checked); the size of the copy in bytes.

    The copy is one self-contained file (rollback journal, not WAL), ready to be opened
    or put back in place of the database while the server is stopped.
    """
    source = sqlite_path(url)
    if not source.is_file():
        raise BackupError(f"there is no database at {source}")
    if target.exists() and target.resolve() == source.resolve():
        raise BackupError("the backup would overwrite the database itself")
    if not target.parent.is_dir():
        raise BackupError(f"the directory {target.parent} does not exist")
    partial = target.with_name(f".{target.name}.partial")
    try:
        with contextlib.closing(sqlite3.connect(source, timeout=10)) as live:
            partial.unlink(missing_ok=True)
            private_file(partial)  # 0600: the copy holds the daily secret and the seeds
            with contextlib.closing(sqlite3.connect(partial)) as copy:
                live.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")
                (check,) = copy.execute("PRAGMA quick_check").fetchone()
                if check != "ok":
                    raise BackupError(f"the copy does not check out: {check}")
        os.replace(partial, target)
    except sqlite3.Error as exc:
        raise BackupError(f"the backup of {source} failed: {exc}") from exc
    finally:
        partial.unlink(missing_ok=True)
    return target.stat().st_size
