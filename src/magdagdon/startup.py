"""Starting against a database: wait for it, refuse one newer than this code, migrate, say so.

``magdagdon serve`` and ``magdagdon migrate`` run :func:`prepare_database` before anything
else. What goes wrong there ends in a :class:`StartupError`, whose message is one line for
the person starting the service (the command prints it instead of a traceback).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from alembic.util import CommandError
from sqlalchemy import make_url
from sqlalchemy.exc import SQLAlchemyError

from .store import Database
from .store.revisions import current_revision, head_revision, is_known, revisions_after

log = logging.getLogger(__name__)

FIRST_DELAY = 0.5
"""Seconds before the second attempt to reach the database; each later wait doubles…"""
LONGEST_DELAY = 10.0
"""…up to this."""


class StartupError(Exception):
    """The database cannot be used: the message says why in one line."""


def shown_url(url: str) -> str:
    """A database URL as logs may show it (the password masked)."""
    return make_url(url).render_as_string(hide_password=True)


def describe(exc: BaseException, url: str | None = None) -> str:
    """An error as one line: the driver's own message, without SQLAlchemy's statement and
    links, and never the password of ``url``."""
    cause = getattr(exc, "orig", None) or exc
    text = " ".join(line.strip() for line in str(cause).splitlines() if line.strip())
    text = text or type(cause).__name__
    password = make_url(url).password if url else None
    if password:
        text = text.replace(str(password), "***")
    return text


def wait_for_database(
    database: Database,
    wait: float,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Return once the database answers a query; try again with growing pauses for up to
    ``wait`` seconds (a database that starts with the machine may come up after us), then
    raise :class:`StartupError`."""
    start = clock()
    delay = FIRST_DELAY
    while True:
        try:
            database.ping()
            return
        except (SQLAlchemyError, OSError) as exc:
            reason = describe(exc, database.url)
            elapsed = clock() - start
            if elapsed + delay > wait:
                raise StartupError(
                    f"cannot reach the database {shown_url(database.url)} "
                    f"(tried for {elapsed:.0f} s): {reason}"
                ) from exc
            log.warning("the database does not answer (%s); trying again in %g s", reason, delay)
        sleep(delay)
        delay = min(2 * delay, LONGEST_DELAY)


def prepare_database(database: Database, wait: float) -> str:
    """Wait for the database, check that this version knows its revision, migrate it to the
    newest one, load the starter set of puzzles if it is not there; log each migration run,
    the revision reached and the puzzles loaded (one line each). Returns that revision."""
    wait_for_database(database, wait)
    head = head_revision()
    try:
        before = current_revision(database)
    except SQLAlchemyError as exc:
        raise StartupError(f"cannot read the database's revision: {describe(exc)}") from exc
    if not is_known(before):
        raise StartupError(
            f"database is at revision {before}, this version knows up to {head}: upgrade magdagdon"
        )
    try:
        database.migrate()
        after = current_revision(database)
    except (SQLAlchemyError, CommandError) as exc:
        raise StartupError(f"migrating the database failed: {describe(exc, database.url)}") from exc
    for step in revisions_after(before, after):
        log.info(
            "migrated the database from %s to %s: %s",
            step.down_revision or "empty",
            step.revision,
            step.doc,
        )
    log.info("database at revision %s (this version knows up to %s)", after, head)
    from .store.puzzles import load_starter

    loaded = load_starter(database)
    if loaded:
        log.info("loaded the starter set: %d puzzles", loaded)
    return after or head
