"""The database: engine, transactions, migrations on start, and a readiness check."""

from __future__ import annotations

import contextlib
import math
import os
import threading
import time
from contextvars import ContextVar
from functools import cache

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no cross-process lock for SQLite
    fcntl = None  # type: ignore[assignment]
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, event, make_url, text

MIGRATIONS = Path(__file__).parent / "migrations"
_MIGRATION_LOCK_ID = 0x4D41_4744  # "MAGD": PostgreSQL advisory lock held while migrating


def alembic_config() -> Config:
    """Alembic's configuration of the migration scripts (no database given yet)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


@cache
def _head_revision() -> str | None:
    """The newest migration's revision (read from the scripts once a process)."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


DEADLINE: ContextVar[float | None] = ContextVar("magdagdon_database_deadline", default=None)
"""The moment (``time.monotonic()``) by which the database work under way must be done: one
deadline for a whole request (``web.deps.run_store`` sets it), however many transactions and
statements it takes. None: each transaction gets the database's own timeout."""

_PROGRESS_STEPS = 20_000
"""SQLite virtual-machine steps between two looks at the deadline (a statement past it is
interrupted: its transaction rolls back)."""


def remaining(default: float) -> float:
    """Seconds left before :data:`DEADLINE` (``default`` when no deadline is set)."""
    deadline = DEADLINE.get()
    return default if deadline is None else deadline - time.monotonic()


def _past_deadline() -> int:
    deadline = DEADLINE.get()
    return int(deadline is not None and time.monotonic() > deadline)


def _sqlite_pragmas(timeout: float) -> Callable[[Any, Any], None]:
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        # SQLAlchemy emits BEGIN itself (see _sqlite_begin), not the sqlite3 module.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")  # readers never block the writer
        cursor.execute("PRAGMA synchronous=NORMAL")  # durable at every checkpoint with WAL
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(timeout * 1000)}")
        cursor.close()
        # a statement still running when the request's deadline passes is interrupted
        dbapi_connection.set_progress_handler(_past_deadline, _PROGRESS_STEPS)

    return on_connect


def _sqlite_begin(connection: Any) -> None:
    # A write transaction takes the write lock up front: a deferred one that read first
    # could not upgrade once another writer committed (SQLITE_BUSY_SNAPSHOT, no waiting).
    # The lock is waited for until the request's deadline at most (the busy handler).
    options = connection.get_execution_options()
    write = options.get("magdagdon_write", False)
    wait = options.get("magdagdon_wait")
    if wait is not None:
        connection.exec_driver_sql(f"PRAGMA busy_timeout={max(1, int(wait * 1000))}")
    connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def _no_statement_past_deadline(
    conn: Any, cursor: Any, statement: Any, parameters: Any, context: Any, executemany: bool
) -> None:
    # Nothing starts once the request's deadline has passed: the transaction rolls back, and
    # the request answers 503 having changed nothing.
    if _past_deadline():
        raise DatabaseTimeout("the request's database deadline passed")


def private_file(path: Path) -> None:
    """Make ``path`` an empty file readable by its owner only (0600), in a folder made 0700
    when it is made here, unless the file exists already (then it is left as it is).

    The SQLite database and its backups hold the daily games' secret and every game's seed:
    under the usual umask of 022 SQLite would make them readable by every user of the
    machine. SQLite gives its ``-wal`` and ``-shm`` files the database's own mode."""
    if path.exists():
        return
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):  # another process made it meanwhile
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


class DatabaseTimeout(Exception):
    """The database did not give what a request needed (a lock, an answer) in time."""


class Database:
    """One SQLAlchemy engine for a database URL, its transactions and its migrations."""

    def __init__(self, url: str, timeout: float = 10.0) -> None:
        """Connect lazily to ``url``; an SQLite file's directory is created if missing.

        ``timeout`` (seconds) bounds the wait for a connection (PostgreSQL's connect and
        the pool); SQLite's write lock is waited for three quarters of it, so that a write
        gives up (and writes nothing) before the request's own deadline. SQL parameters
        never appear in errors or logs (they hold secret seeds and token hashes).
        """
        parsed = make_url(url)
        self.url = url
        self.timeout = timeout
        self._lock_wait = 0.75 * timeout
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        self.is_postgresql = parsed.get_backend_name() == "postgresql"
        kwargs: dict[str, Any] = {"pool_pre_ping": True, "hide_parameters": True}
        if self.is_sqlite:
            database = parsed.database
            if database and database != ":memory:" and not database.startswith("file:"):
                private_file(Path(database).expanduser())
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": self._lock_wait}
        else:
            kwargs.update(pool_size=10, max_overflow=20, pool_timeout=timeout)
            if parsed.get_backend_name() == "postgresql":
                kwargs["connect_args"] = {
                    # the whole connection set-up, a server that accepts and never answers too
                    "connect_timeout": max(1, math.ceil(timeout)),
                    # a connection whose server went away without a word is found out
                    "keepalives": 1,
                    "keepalives_idle": 10,
                    "keepalives_interval": 5,
                    "keepalives_count": 3,
                }
        self.engine: Engine = create_engine(url, **kwargs)
        if self.is_sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas(self._lock_wait))
            event.listen(self.engine, "begin", _sqlite_begin)
        event.listen(self.engine, "before_cursor_execute", _no_statement_past_deadline)
        # SQLite has one writer at a time. Queueing this process's writers here wakes the
        # next one as soon as the lock is free; SQLite's own busy handler polls with sleeps
        # of up to 100 ms. Other processes on the same file still meet the busy handler.
        self._write_lock = threading.Lock()

    def _writer(self, write: bool, wait: float) -> AbstractContextManager[object]:
        """The in-process SQLite write lock for a writing transaction; nothing otherwise."""
        return self._locked(wait) if write and self.is_sqlite else nullcontext()

    @contextmanager
    def _locked(self, wait: float) -> Iterator[None]:
        if not self._write_lock.acquire(timeout=wait):
            raise DatabaseTimeout(f"no write lock within {wait:.3g} s")
        try:
            yield
        finally:
            self._write_lock.release()

    @contextmanager
    def transaction(
        self, *, write: bool = False, patience: float | None = None
    ) -> Iterator[Connection]:
        """A Core connection in a transaction (lighter than a session, for the hot paths).

        Under a request's :data:`DEADLINE` the transaction gives up when it passes, having
        changed nothing: it does not begin after it (:class:`DatabaseTimeout`); SQLite waits
        for its write lock until then at most and interrupts a statement still running;
        PostgreSQL is told the time left (``statement_timeout``, ``lock_timeout`` and
        ``idle_in_transaction_session_timeout`` of the transaction), so the server itself
        abandons the work rather than finish it after the request was answered 503.

        ``patience``: on SQLite, wait this long at most for the write lock (work that can be
        skipped, such as recording a session's last use, gives up rather than hold a read up
        behind another writer: :class:`DatabaseTimeout` or ``OperationalError``)."""
        left = remaining(self._lock_wait if self.is_sqlite else self.timeout)
        if left <= 0:
            raise DatabaseTimeout("the request's database deadline passed")
        wait = min(left, self._lock_wait) if self.is_sqlite else left
        if patience is not None and self.is_sqlite:
            wait = min(wait, patience)
        with self._writer(write, wait), self.engine.connect() as connection:
            options: dict[str, Any] = {}
            if write:
                options["magdagdon_write"] = True
            if self.is_sqlite:  # (every time: a pooled connection keeps the last one's wait)
                options["magdagdon_wait"] = wait
            if options:
                connection.execution_options(**options)
            with connection.begin():
                if self.is_postgresql and DEADLINE.get() is not None:
                    limit = str(max(1, int(remaining(self.timeout) * 1000)))
                    connection.exec_driver_sql(
                        "SELECT set_config('statement_timeout', %(ms)s, true), "
                        "set_config('lock_timeout', %(ms)s, true), "
                        "set_config('idle_in_transaction_session_timeout', %(ms)s, true)",
                        {"ms": limit},
                    )
                yield connection

    def migrate(self) -> None:
        """Bring the schema to the newest migration (safe when several processes start at once).
        A schema at the newest already is left as it is without running Alembic's upgrade
        (which compiles and runs its environment script each time, for nothing: the tests
        start an app a test)."""
        config = alembic_config()
        with self._file_lock(), self.engine.connect() as connection:
            if not self.is_sqlite:
                connection.execute(text("SELECT pg_advisory_lock(:id)"), {"id": _MIGRATION_LOCK_ID})
                connection.commit()
            try:
                current = MigrationContext.configure(connection).get_current_revision()
                connection.commit()  # (reading the revision began a transaction)
                if current != _head_revision():
                    config.attributes["connection"] = connection
                    command.upgrade(config, "head")
                    connection.commit()
            finally:
                if self.is_sqlite:
                    # The migrations turn SQLite's foreign keys off; a pragma is a no-op inside
                    # a transaction, so the connection may still have them off: it is not given
                    # back to the pool, where a request would delete without ON DELETE CASCADE.
                    connection.invalidate()
                if not self.is_sqlite:
                    connection.execute(
                        text("SELECT pg_advisory_unlock(:id)"), {"id": _MIGRATION_LOCK_ID}
                    )
                    connection.commit()

    @contextmanager
    def _file_lock(self) -> Iterator[None]:
        """For an SQLite file: an exclusive lock beside it while migrating (other processes
        wait, then find the schema current)."""
        database = make_url(self.url).database if self.is_sqlite else None
        if not database or database == ":memory:" or database.startswith("file:") or fcntl is None:
            yield
            return
        lock_path = Path(database).expanduser().with_suffix(".migrate-lock")
        with open(lock_path, "w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def ping(self) -> None:
        """Raise if the database cannot answer a query now (within the deadline, if any)."""
        with self.transaction() as connection:
            connection.execute(text("SELECT 1"))

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()
