"""A throw-away PostgreSQL database on a server the caller names."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, make_url, text


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


def truncate(url: str) -> None:
    """Empty the game's tables of a PostgreSQL database (if they exist), ids from 1 again."""
    engine = create_engine(url)
    with engine.begin() as conn:
        exists = conn.execute(text("SELECT to_regclass('public.games')")).scalar()
        if exists:
            conn.execute(text("TRUNCATE highscores, games, players RESTART IDENTITY CASCADE"))
        if conn.execute(text("SELECT to_regclass('public.dailies')")).scalar():
            conn.execute(text("TRUNCATE dailies, daily_scores, server_secrets"))
    engine.dispose()
