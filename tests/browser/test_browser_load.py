"""The start page survives a network that fails while it loads (js/boot.js): a module or the
catalog that did not arrive (a phone moving from Wi-Fi to mobile data; a network interface
added on the machine, which Chromium answers with ERR_NETWORK_CHANGED) would leave an empty
page for good, for the browser keeps a failed module for the page's life. The page says it
retries, waits for the server and loads itself again, which starts the game."""

from __future__ import annotations

import re
from typing import Any

import httpx2
import pytest

READY = "#app[aria-busy='false'] [data-intent='roll']"


def _fail_until_retried(page: Any, pattern: str) -> list[str]:
    """Every request matching ``pattern`` fails as a dropped network would (the preload and
    the import alike), until the page asks whether the server answers: by then the network
    is back. The failed URLs."""
    failed: list[str] = []
    back = {"network": False}

    def handle(route: Any) -> None:
        if back["network"]:
            route.continue_()
        else:
            failed.append(route.request.url)
            route.abort("internetdisconnected")

    def health(route: Any) -> None:
        back["network"] = True
        route.continue_()

    page.route(pattern, handle)
    page.route("**/api/health", health)
    return failed


@pytest.mark.parametrize(
    ("what", "pattern", "locale"),
    [
        ("a module", "**/js/view.js", "en-US"),
        ("the catalog", "**/i18n/et.json", "et-EE"),
    ],
)
def test_a_page_whose_files_did_not_arrive_loads_again_and_starts(
    browser: Any, live_server: str, what: str, pattern: str, locale: str
) -> None:
    context = browser.new_context(
        viewport={"width": 375, "height": 667}, locale=locale, reduced_motion="reduce"
    )
    try:
        page = context.new_page()
        failed = _fail_until_retried(page, pattern)
        page.goto(live_server)
        page.wait_for_selector(READY)
        assert failed, f"{what} was not asked for"
        # the page that started the game is the first one loaded again
        kind = "performance.getEntriesByType('navigation')[0].type"
        assert page.evaluate(kind) == "reload"
        assert page.locator("#connection").is_hidden()
        # the game works: a roll shows four dice
        page.click("[data-intent='roll']")
        page.wait_for_selector("#tray [data-die]:nth-of-type(4)")
    finally:
        context.close()


def test_a_page_that_cannot_load_says_it_retries_in_its_language(
    browser: Any, live_server: str
) -> None:
    """While the server cannot be reached, the page says so in the player's language (not the
    browser's error page, not an empty board), and starts once it can."""
    context = browser.new_context(
        viewport={"width": 375, "height": 667}, locale="sv-SE", reduced_motion="reduce"
    )
    try:
        page = context.new_page()
        down = {"network": True}
        failed: list[str] = []

        def network(route: Any) -> None:
            if down["network"]:
                failed.append(route.request.url)
                route.abort("internetdisconnected")
            else:
                route.continue_()

        page.route("**/js/dom.js", network)
        page.route("**/api/health", network)
        page.goto(live_server)
        line = page.locator("#connection")
        line.wait_for(state="visible")
        assert line.inner_text() == "Offline: ditt spel är i säkerhet på servern. Försöker igen…"
        # it waits for the server: a first try of the network fails
        with page.expect_request(lambda request: request.url.endswith("/api/health")):
            pass
        down["network"] = False  # the network is back
        page.wait_for_selector(READY)
        assert line.is_hidden()
    finally:
        context.close()


def test_the_guard_runs_before_the_game_and_is_not_preloaded_as_a_module(
    live_server: str,
) -> None:
    """boot.js is deferred before app.js (deferred scripts run in order: its listener is there
    before app.js can fail), and no module preload fetches it."""
    html = httpx2.get(live_server, timeout=30).text
    guard = re.search(r'<script src="/r/\w+/js/boot\.js" defer></script>', html)
    game = re.search(r'<script type="module" src="/r/\w+/js/app\.js"></script>', html)
    assert guard and game and guard.start() < game.start()
    assert not re.search(r'modulepreload" href="[^"]*boot\.js', html)
