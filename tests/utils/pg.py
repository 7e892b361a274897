"""A throw-away PostgreSQL database on a server the caller names."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine, create_engine, make_url, text
from sqlalchemy.pool import NullPool


@contextmanager
def temporary_database(server_url: str, prefix: str = "magdagdon_test") -> Iterator[str]:
    """Create a fresh database on ``server_url``'s server; yields its URL; drops it after."""
    url = make_url(server_url)
    name = f"{prefix}_{secrets.token_hex(4)}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


ROOTS = ("players", "games", "highscores", "dailies", "daily_scores", "server_secrets")
"""The tables :func:`truncate` empties, with every table that refers to one of them."""
PRISTINE = "tests_starter_puzzles"
"""The table where :func:`truncate` keeps the starter set of puzzles as first loaded."""

_engines: dict[str, Engine] = {}


def _engine(url: str) -> Engine:
    """An engine for ``url``, made once (its dialect's setup costs more than the reset); no
    connection is kept open between uses."""
    engine = _engines.get(url)
    if engine is None:
        engine = _engines[url] = create_engine(url, poolclass=NullPool)
    return engine


def _emptied(conn: Connection) -> list[str]:
    """The tables to empty, each after every table that refers to it: :data:`ROOTS` (those
    that exist) and, transitively, every table with a foreign key to one of them."""
    refers = conn.execute(
        text(
            "SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint "
            "WHERE contype = 'f' AND connamespace = 'public'::regnamespace"
        )
    ).all()
    existing = set(
        conn.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).scalars()
    )
    reached = {t for t in ROOTS if t in existing}
    while True:
        more = {child for child, parent in refers if parent in reached} - reached
        if not more:
            break
        reached |= more
    order: list[str] = []
    while len(order) < len(reached):  # a table whose referrers are all emptied already
        before = len(order)
        for table in sorted(reached - set(order)):
            if all(
                child in order or child == table
                for child, parent in refers
                if parent == table and child in reached
            ):
                order.append(table)
        if len(order) == before:
            raise RuntimeError(f"tables referring to each other: {sorted(reached - set(order))}")
    return order


def truncate(url: str) -> None:
    """Empty the game's tables of a PostgreSQL database (those that exist), ids from 1 again,
    as ``TRUNCATE … RESTART IDENTITY CASCADE`` did, but with the starter set of puzzles as a
    server's first start loads it. The truncation emptied the puzzles with the players their
    own puzzles refer to, and each server started on the database loaded the set again (most
    of a second of CPU each), and it made every table and index anew (0.25-0.3 s a test on a
    busy machine, where deleting the few rows a test wrote takes a few milliseconds). The
    starter set is loaded once and kept aside in :data:`PRISTINE` (made again if the puzzles'
    columns changed: a test that migrates the database down and up); the puzzles a test
    rated, added or removed are put back as they were."""
    engine = _engine(url)
    with engine.begin() as conn:
        tables, columns = _plan(conn, url)
        kept = bool(columns) and _kept.get(url) == columns
        for table in tables:
            if table == "puzzles" and kept:
                conn.execute(
                    text(f"DELETE FROM puzzles WHERE id NOT IN (SELECT id FROM {PRISTINE})")
                )
            else:
                conn.execute(text(f'DELETE FROM "{table}"'))
        conn.execute(
            text(
                "SELECT setval(s.oid, 1, false) FROM pg_class s "
                "JOIN pg_depend d ON d.objid = s.oid JOIN pg_class t ON d.refobjid = t.oid "
                "WHERE s.relkind = 'S' AND d.deptype IN ('a', 'i') AND t.relname = ANY(:tables)"
            ),
            {"tables": tables},
        )
        if "puzzles" not in tables:
            return
        if kept:
            names = [name for name, _ in columns if name != "id"]
            conn.execute(
                text(
                    f"UPDATE puzzles AS p SET ({', '.join(names)}) = "
                    f"({', '.join('k.' + name for name in names)}) FROM {PRISTINE} AS k "
                    "WHERE p.id = k.id AND (p.*)::text IS DISTINCT FROM (k.*)::text"
                )
            )
            conn.execute(
                text(
                    f"INSERT INTO puzzles SELECT * FROM {PRISTINE} AS k "
                    "WHERE NOT EXISTS (SELECT 1 FROM puzzles AS p WHERE p.id = k.id)"
                )
            )
            conn.execute(
                text(
                    "SELECT setval(pg_get_serial_sequence('puzzles', 'id'), "
                    "(SELECT COALESCE(MAX(id), 0) + 1 FROM puzzles), false)"
                )
            )
            return
        conn.execute(text(f"DROP TABLE IF EXISTS {PRISTINE}"))
    # the first time: loaded as a server's first start loads it, and kept aside
    from magdagdon.store.db import Database
    from magdagdon.store.puzzles import load_starter

    database = Database(url)
    try:
        load_starter(database)
    finally:
        database.dispose()
    with engine.begin() as conn:
        conn.execute(text(f"CREATE TABLE {PRISTINE} AS SELECT * FROM puzzles"))
    _kept[url] = columns


Columns = list[tuple[str, str]]
_plans: dict[tuple[str, str | None], tuple[list[str], Columns]] = {}
"""Per database and schema revision: the tables :func:`truncate` empties, and the puzzles'
columns."""
_kept: dict[str, Columns] = {}
"""Per database: the columns of the puzzles kept aside in :data:`PRISTINE`."""


def _plan(conn: Connection, url: str) -> tuple[list[str], Columns]:
    """The tables to empty (:func:`_emptied`) and the puzzles' columns, at the database's
    revision (read once a revision)."""
    revision = None
    if conn.execute(text("SELECT to_regclass('public.alembic_version')")).scalar():
        revision = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    plan = _plans.get((url, revision))
    if plan is None:
        plan = _plans[(url, revision)] = (_emptied(conn), _columns(conn, "puzzles"))
    return plan


def _columns(conn: Connection, table: str) -> Columns:
    """A table's columns and their types, in order ([] if there is no such table)."""
    return [
        (name, kind)
        for name, kind in conn.execute(
            text(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = 'public' AND table_name = :table ORDER BY ordinal_position"
            ),
            {"table": table},
        ).all()
    ]
