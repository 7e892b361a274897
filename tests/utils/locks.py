"""Another process's transaction holding a table while a test block runs."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, make_url, text


@contextmanager
def table_held(database_url: str, table: str, mode: str = "ACCESS EXCLUSIVE") -> Iterator[None]:
    """``table`` locked for as long as the block lasts: on PostgreSQL in ``mode`` (``ACCESS
    EXCLUSIVE``: nobody reads or writes it; ``EXCLUSIVE``: reads go on, writes wait); on
    SQLite the database's write lock (reads go on, every write waits)."""
    if database_url.startswith("sqlite"):
        holder = sqlite3.connect(make_url(database_url).database or "", isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        return
    engine = create_engine(database_url)
    with engine.connect() as c:
        held = c.begin()
        c.execute(text(f"LOCK TABLE {table} IN {mode} MODE"))
        try:
            yield
        finally:
            held.rollback()
    engine.dispose()
