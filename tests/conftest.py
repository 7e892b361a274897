"""Fixtures shared by the test packages: a database per test on SQLite, and on PostgreSQL when
``MAGDAGDON_TEST_DATABASE_URL`` is set (``.ci/run`` sets it; without it those runs skip); a
Redis database when ``MAGDAGDON_TEST_REDIS_URL`` is set (likewise). The browser tests'
fixtures are in ``tests/browser/conftest.py``.

Heavy imports (SQLAlchemy, the server, Playwright) happen inside the fixtures, so the engine's
and the AI's tests import none of them and run without the server's dependencies installed.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import hypothesis
import pytest

from .utils import server_logs

if TYPE_CHECKING:
    from magdagdon.settings import Settings

PG_ENV = "MAGDAGDON_TEST_DATABASE_URL"
REDIS_ENV = "MAGDAGDON_TEST_REDIS_URL"

# Hypothesis draws the same examples on every run (derandomized: each test's from its own
# name), so a run's outcome depends on the code alone, not on what a draw happened to find
# (issue 43: a property test that found something new on CI's run threw the submission
# away). HYPOTHESIS_PROFILE=explore draws new examples every run, to look for more.
hypothesis.settings.register_profile("deterministic", derandomize=True)
hypothesis.settings.register_profile("explore", derandomize=False)
hypothesis.settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


@pytest.fixture(scope="session")
def postgres_server_url() -> Iterator[str]:
    """A fresh PostgreSQL database for this test session, dropped at the end."""
    base = os.environ.get(PG_ENV)
    if not base:
        pytest.skip(f"{PG_ENV} is not set")
    from .utils.pg import temporary_database

    with temporary_database(base) as url:
        yield url


def _worker_database(url: str) -> str:
    """Under pytest-xdist, worker N's own Redis database: the given number minus N (gw0 the
    given one), so that two workers never empty each other's."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    number = int(worker.removeprefix("gw") or 0)
    if number == 0:
        return url
    base, _, given = url.rpartition("/")
    if not given.isdigit() or int(given) < number:
        pytest.skip(f"{REDIS_ENV}={url}: no database number for worker {worker}")
    return f"{base}/{int(given) - number}"


@pytest.fixture
def redis_url() -> str:
    """A Redis database for tests (``MAGDAGDON_TEST_REDIS_URL``, which ``.ci/run`` sets to
    a database number of its own), emptied; without it the test skips."""
    url = os.environ.get(REDIS_ENV)
    if not url:
        pytest.skip(f"{REDIS_ENV} is not set")
    import redis

    url = _worker_database(url)

    client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
    try:
        client.flushdb()
    except redis.RedisError as exc:
        pytest.fail(f"{REDIS_ENV}={url} does not answer: {exc}")
    finally:
        client.close()
    return url


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite file at the newest migration with the starter set of puzzles loaded (as a
    server leaves a new database at its first start, and as the session's PostgreSQL database
    is after its first server), made once for the session: each test's database is a copy
    (migrating a new file for each of a thousand tests cost a minute of the suite, and loading
    the puzzles took each server started on a copy most of a second). The migrations and the
    first start on an empty database are tests/api/test_migrations.py's and
    test_operations.py's."""
    from magdagdon.store.db import Database
    from magdagdon.store.puzzles import load_starter

    path = tmp_path_factory.mktemp("migrated") / "magdagdon.db"
    db = Database(f"sqlite:///{path}")
    db.migrate()
    load_starter(db)
    db.dispose()  # the last connection closed: the write-ahead log is in the file
    assert not path.with_name(path.name + "-wal").exists()
    return path


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database at the newest migration with no player, game nor daily in it (as a server
    finds it after its first start, the starter set of puzzles loaded): a new SQLite file, or
    the session's PostgreSQL database emptied."""
    if request.param == "sqlite":
        path = tmp_path / "magdagdon.db"
        shutil.copyfile(request.getfixturevalue("migrated_sqlite"), path)
        return f"sqlite:///{path}"
    from .utils.pg import truncate

    url: str = request.getfixturevalue("postgres_server_url")
    truncate(url)
    return url


TEST_ORIGIN = "http://testserver"
"""The origin of FastAPI's test client: named as the public origin of test servers (passkeys
and transfer codes answer only at the names the operator gives, and localhost)."""


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Settings for a test server: its own database, test seeds allowed (and scored), no rate
    limits (tests act far faster than people; tests/api/test_api_hardening.py checks them),
    every daily game ranked (tests/api/test_accounts.py checks the default, accounts only)."""
    from magdagdon.settings import Settings

    return Settings(
        database_url=database_url,
        allow_test_seeds=True,
        test_seeds_scored=True,
        rate_limits=False,
        daily_ranks="everyone",
        public_origin=TEST_ORIGIN,
    )


@pytest.fixture(autouse=True)
def _servers_logs_from_here() -> None:
    """What the tests' servers write from here on is this test's (printed if it fails)."""
    server_logs.test_started()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A failed test's report ends with what each of the tests' servers logged while it ran
    (``--log-level warning`` unless the test chose another: errors and their tracebacks)."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.failed:
        for log, lines in server_logs.written():
            report.sections.append((f"what the server logged ({log.name})", lines))


SECONDS_A_TEST = {
    "crossbrowser": 8.0,
    "browser": 3.5,
    "tui": 2.5,
    "ai": 1.3,
    "api": 1.3,
    "engine": 0.2,
    "rl": 0.2,
}
"""About how long a test of each package takes (a run of the whole suite, issue 43), for
:func:`longest_first`; a test of another package 1 s, one that starts a server ``process``
(or ``slow``) at least 3 s."""

ROOT = Path(__file__).parents[1]


def folders(item: pytest.Item) -> set[str]:
    """The names of the folders and file of ``item``'s path within the checkout (not those of
    the folders the checkout is in, which could be called ``api`` or ``browser`` too)."""
    path = item.path.relative_to(ROOT) if item.path.is_relative_to(ROOT) else item.path
    return set(path.parts)


def expected_seconds(item: pytest.Item) -> float:
    """About how long ``item`` takes (:data:`SECONDS_A_TEST`)."""
    parts = folders(item)
    seconds = next((s for name, s in SECONDS_A_TEST.items() if name in parts), 1.0)
    if item.get_closest_marker("process") or item.get_closest_marker("slow"):
        seconds = max(seconds, 3.0)
    return seconds


def longest_first(items: list[pytest.Item]) -> None:
    """Order the test packages by their expected time, longest first, and each package's
    modules likewise, each module's tests in the order they had (pytest-randomly's).
    pytest-xdist's ``loadfile`` hands the modules out in this order as each worker asks for
    more: the long ones go first and the last to go are short, so neither worker waits long
    for the other at the end (in a random order a module of two minutes could come last, with
    the other worker idle meanwhile); and a package's modules follow each other, so a worker
    starts the browser and the server that a package's tests share once, not each time it
    comes back to the package."""
    modules: dict[Path, float] = {}
    for item in items:
        modules[item.path] = modules.get(item.path, 0.0) + expected_seconds(item)
    packages: dict[Path, float] = {}
    for path, seconds in modules.items():
        packages[path.parent] = packages.get(path.parent, 0.0) + seconds
    first = {path: n for n, path in enumerate(modules)}  # (ties: the order they came in)
    items.sort(
        key=lambda item: (-packages[item.path.parent], -modules[item.path], first[item.path])
    )


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist, the modules go out in the order the workers collected them
    (:func:`longest_first`), not sorted again by their number of tests."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The browser tests are ``process`` tests (a live server, a browser) wherever they are.
    On pytest-xdist's workers the modules are ordered :func:`longest_first` (pytest-randomly
    has shuffled them and their tests already: the tests of each module stay in its order)."""
    for item in items:
        if {"browser", "crossbrowser"} & folders(item):
            item.add_marker(pytest.mark.process)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        longest_first(items)


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test not marked ``process`` (nor ``slow``) may not start a server: ``make check``,
    which leaves those out, stays quick because the marks are whole."""
    marked = any(item.iter_markers("process")) or any(item.iter_markers("slow"))
    server_logs.allow_processes(marked)
