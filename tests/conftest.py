"""Fixtures for the server tests: a database per test on SQLite, and on PostgreSQL when
``MAGDAGDON_TEST_DATABASE_URL`` is set (``.ci/run`` sets it; without it those runs skip)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from magdagdon.settings import Settings

PG_ENV = "MAGDAGDON_TEST_DATABASE_URL"


@pytest.fixture(scope="session")
def postgres_server_url() -> Iterator[str]:
    """A fresh PostgreSQL database for this test session, dropped at the end."""
    from .utils.pg import temporary_database

    base = os.environ.get(PG_ENV)
    if not base:
        pytest.skip(f"{PG_ENV} is not set")
    with temporary_database(base) as url:
        yield url


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
    """Settings for a test server: its own database, test seeds allowed, no rate limits
    (tests act far faster than people; tests/test_api_limits.py checks the limits)."""
    return Settings(
        database_url=database_url, allow_test_seeds=True, test_seeds_scored=True, rate_limits=False
    )


# --- browser tests -----------------------------------------------------------------------------

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = Path(os.environ.get("MAGDAGDON_SCREENSHOTS", "test-artifacts/screenshots"))


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, driven by Playwright (tests skip where it is missing)."""
    if not CHROMIUM.exists():
        pytest.skip("Chromium is not installed at /usr/bin/chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
            ],
        )
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``magdagdon serve`` on a temporary SQLite file, test seeds allowed; its base URL."""
    from .utils.server import running_server

    db = tmp_path_factory.mktemp("live") / "magdagdon.db"
    with running_server(f"sqlite:///{db}") as base:
        yield base


@pytest.fixture
def page(browser: Any, live_server: str) -> Iterator[Any]:
    """A phone-sized page of a new player (its own cookies)."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, locale="en-US", reduced_motion="reduce"
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, errors


def screenshot(page: Any, name: str) -> Path:
    """Save a screenshot under the screenshots folder; its path."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
