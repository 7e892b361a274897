"""The browser tests' fixtures: Debian's Chromium through Playwright, a live server, a page.

They live as long as this package's tests (not the session): Playwright's sync API keeps an
event loop running in the main thread while it is open, which other tests' loops (the
terminal game's pilot) cannot share.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUMS = (Path("/usr/bin/chromium-headless-shell"), Path("/usr/bin/chromium"))
"""Debian's Chromium, the first of these that is installed: its headless shell (package
chromium-headless-shell, the same Blink without the browser's own windows and services), which
plays the browser package's tests in two thirds of the time the whole browser takes (issue 43),
else the browser itself."""
CHROMIUM = next((path for path in CHROMIUMS if path.exists()), CHROMIUMS[-1])
TOUR_SEEN = "localStorage.setItem('magdagdon.tourSeen', '1')"
NAME_ASKED = "localStorage.setItem('magdagdon.nameAsked', '1')"
"""A returning visitor's device has asked for a name once already (the question would stand
over what the tests press): ``new_context(ask_name=True)`` asks."""
UI_WAIT_MS = 30_000
"""How long a page's wait (for an element, a click, a request) may take before the test fails.
Only a failing test waits that long; the suite runs beside another worker, its browsers and
servers on two cores, where what takes 0.1 s alone has been seen to take over 10 s."""


class WithoutTour:
    """The browser, whose new pages have seen the guided first game already (it would stand
    over what the other tests press); ``new_context(tour=True)`` gives a first visit."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser

    def new_context(
        self,
        *,
        tour: bool = False,
        ask_name: bool = False,
        offline_ready: bool = False,
        **options: Any,
    ) -> Any:
        """A new context (Playwright's options), a returning visitor's unless ``tour``; the
        service worker is blocked (it would serve what tests route) unless ``offline_ready``."""
        if not offline_ready:
            options.setdefault("service_workers", "block")
        context = self._browser.new_context(**options)
        context.set_default_timeout(UI_WAIT_MS)
        _journal(context)
        if not tour:
            context.add_init_script(TOUR_SEEN)
        if not ask_name:
            context.add_init_script(NAME_ASKED)
        return context

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


JOURNAL: list[str] = []
"""What the pages of the test running now did (navigations, console messages, page errors,
failed requests, answers of 400 and over, every request that changes something with what it
sent and its answer): printed under a failed test, as a failure on a loaded machine cannot be
run again to be looked at."""


def _journal(context: Any) -> None:
    """Write what ``context``'s pages do into :data:`JOURNAL`."""
    start = time.monotonic()

    def note(text: str) -> None:
        if len(JOURNAL) < 500:
            JOURNAL.append(f"{time.monotonic() - start:7.2f}s {text}")

    def watch(page: Any) -> None:
        page.on("console", lambda m: note(f"console {m.type}: {m.text}"))
        page.on("pageerror", lambda e: note(f"page error: {e}"))
        page.on(
            "framenavigated",
            lambda f: note(f"navigated to {f.url}") if f == page.main_frame else None,
        )
        page.on("load", lambda _: note("load"))

    context.on("page", watch)
    context.on("requestfailed", lambda r: note(f"failed: {r.method} {r.url} ({r.failure})"))
    context.on(
        "response",
        lambda r: (
            note(f"{r.status} {r.request.method} {r.url}{_body(r.request)}")
            if r.status >= 400 or r.request.method not in ("GET", "HEAD")
            else None
        ),
    )


def _body(request: Any) -> str:
    """What a request that changes something sent (its first 80 characters), for the journal."""
    if request.method in ("GET", "HEAD"):
        return ""
    try:
        body = request.post_data or ""
    except Exception:  # (binary)
        return ""
    return f" {body[:80]}" if body else ""


@pytest.fixture(autouse=True)
def _fresh_journal() -> None:
    JOURNAL.clear()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A failed browser test's report ends with :data:`JOURNAL`."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.failed and JOURNAL:
        report.sections.append(("what the pages did", "\n".join(JOURNAL[-150:])))


@pytest.fixture(scope="package")
def browser() -> Iterator[Any]:
    """Debian's Chromium (:data:`CHROMIUM`), headless, driven by Playwright (tests skip where
    it is missing)."""
    if not CHROMIUM.exists():
        pytest.skip(f"Chromium is not installed at {' nor '.join(map(str, CHROMIUMS))}")
    sync_api = pytest.importorskip("playwright.sync_api")
    sync_api.expect.set_options(timeout=UI_WAIT_MS)  # expect()'s own default is 5 s
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
        yield WithoutTour(chromium)
        chromium.close()


@pytest.fixture(scope="package")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``magdagdon serve`` on a temporary SQLite file, test seeds allowed, no bound on one
    address's background work (:data:`~tests.utils.server.SHARED_ADDRESS`); its base URL."""
    from ..utils.server import SHARED_ADDRESS, running_server

    db = tmp_path_factory.mktemp("live") / "magdagdon.db"
    with running_server(f"sqlite:///{db}", env=SHARED_ADDRESS) as base:
        yield base


@contextmanager
def player_page(browser: Any, width: int = 390, height: int = 844, **options: Any) -> Iterator[Any]:
    """A page of a new player (a browser context of its own: its own cookies) at a phone's
    size; an error in the page fails the test when the block ends."""
    context = browser.new_context(
        viewport={"width": width, "height": height},
        **{"locale": "en-US", "reduced_motion": "reduce", **options},
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield page
    finally:
        context.close()
    assert not errors, errors


@pytest.fixture
def page(browser: Any, live_server: str) -> Iterator[Any]:
    """A phone-sized page of a new player (its own cookies)."""
    with player_page(browser) as page:
        yield page
