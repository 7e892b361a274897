"""The schema's Alembic revisions: the ones this version knows, and a database's own.

The newest revision is read from the migration scripts, never written down twice, so a new
migration needs no change here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from .db import Database, alembic_config


@dataclass(frozen=True)
class Revision:
    """One migration script: its revision id, the one before it and what it does."""

    revision: str
    down_revision: str | None
    doc: str


@cache
def known_revisions() -> tuple[Revision, ...]:
    """Every revision of the migration scripts, oldest first (they form one line)."""
    scripts = ScriptDirectory.from_config(alembic_config())
    found = []
    for script in scripts.walk_revisions():  # newest first
        down = script.down_revision
        if not (down is None or isinstance(down, str)):  # pragma: no cover - no merges
            raise RuntimeError(f"migration {script.revision} merges branches")
        found.append(Revision(script.revision, down, " ".join((script.doc or "").split())))
    return tuple(reversed(found))


def head_revision() -> str:
    """The newest revision this version of magdagdon knows."""
    return known_revisions()[-1].revision


def current_revision(database: Database) -> str | None:
    """The revision the database is at (None: no schema yet)."""
    with database.engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def is_known(revision: str | None) -> bool:
    """Whether this version knows ``revision`` (None, an empty database, is known)."""
    return revision is None or any(r.revision == revision for r in known_revisions())


def revisions_after(revision: str | None, upto: str | None) -> list[Revision]:
    """The migrations that take a database from ``revision`` to ``upto``, in order."""
    names = [r.revision for r in known_revisions()]
    start = 0 if revision is None else names.index(revision) + 1
    end = 0 if upto is None else names.index(upto) + 1
    return list(known_revisions()[start:end])
