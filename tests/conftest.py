"""Fixtures for the server tests: a database per test on SQLite, and on PostgreSQL when
``MAGDAGDON_TEST_DATABASE_URL`` is set (``.ci/run`` sets it; without it those runs skip)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, make_url, text

from magdagdon.settings import Settings

PG_ENV = "MAGDAGDON_TEST_DATABASE_URL"


@pytest.fixture(scope="session")
def postgres_server_url() -> Iterator[str]:
    """A fresh PostgreSQL database for this test session, dropped at the end."""
    base = os.environ.get(PG_ENV)
    if not base:
        pytest.skip(f"{PG_ENV} is not set")
    url = make_url(base)
    name = f"magdagdon_test_{secrets.token_hex(4)}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def _truncate(url: str) -> None:
    engine = create_engine(url)
    with engine.begin() as conn:
        exists = conn.execute(text("SELECT to_regclass('public.games')")).scalar()
        if exists:
            conn.execute(text("TRUNCATE highscores, games, players RESTART IDENTITY CASCADE"))
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database: a new SQLite file, or the session's PostgreSQL database emptied."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'magdagdon.db'}"
    url: str = request.getfixturevalue("postgres_server_url")
    _truncate(url)
    return url


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Settings for a test server: its own database, test seeds allowed."""
    return Settings(database_url=database_url, allow_test_seeds=True)
