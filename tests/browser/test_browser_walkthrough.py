"""The guided first game (issue #14): a few steps on the real board on a browser's first visit,
in each language, with the keyboard, skippable, once per browser, again from the menu."""

from __future__ import annotations

from typing import Any

import pytest

from ..utils.ui import screenshot
from .test_browser_a11y import serious_violations

STEPS = 6
FIRST_TITLE = {"en": "Roll four dice", "et": "Veereta neli täringut", "sv": "Slå fyra tärningar"}


def first_visit(browser: Any, live_server: str, language: str, **size: int) -> Any:
    context = browser.new_context(
        tour=True,
        locale=language,
        viewport={"width": size.get("width", 390), "height": size.get("height", 844)},
        reduced_motion="reduce",
    )
    page = context.new_page()
    page.goto(live_server)
    page.wait_for_selector("#tour")
    return page


@pytest.mark.parametrize("language", ["en", "et", "sv"])
def test_the_walkthrough_explains_each_part_in_turn(
    browser: Any, live_server: str, language: str
) -> None:
    page = first_visit(browser, live_server, language, width=360, height=740)
    assert page.locator("#tour-title").inner_text() == FIRST_TITLE[language]
    targets = []
    for n in range(STEPS):
        tour = page.locator("#tour")
        assert f"{n + 1}" in tour.locator(".tour-count").inner_text()
        assert page.evaluate("document.activeElement.id") == "tour-title"  # focus moves along
        marked = page.locator(".tour-target")
        assert marked.count() == 1
        targets.append(marked.get_attribute("id"))
        if n == 2:
            screenshot(page, f"walkthrough-{language}-360x740")
            assert serious_violations(page) == []
        page.click("[data-intent='tour-next']")
    assert page.locator("#tour").count() == 0 and page.locator(".tour-target").count() == 0
    assert set(targets) == {"actions", "tray", "board", "status"}  # each part of the screen
    page.reload()  # once per browser
    page.wait_for_selector("[data-intent='roll']")
    page.wait_for_load_state("networkidle")  # started and settled: no step comes
    assert page.locator("#tour").count() == 0
    page.context.close()


def test_the_walkthrough_with_the_keyboard_escape_and_the_menu(
    browser: Any, live_server: str
) -> None:
    page = first_visit(browser, live_server, "en")
    page.keyboard.press("Tab")  # from the step's title to its buttons
    focused = page.evaluate("document.activeElement.dataset.intent")
    assert focused == "tour-skip"
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # NEXT
    assert page.locator(".tour-count").inner_text().startswith("2")
    page.keyboard.press("Escape")  # leaves it at any step
    assert page.locator("#tour").count() == 0
    assert page.evaluate("document.activeElement.tagName") != "BODY"
    # "How to play" in the menu opens it again, from the first step
    page.click("#menu-button")
    page.click("#sheet [data-intent='how-to-play']")
    page.wait_for_selector("#tour")
    assert page.locator("#tour-title").inner_text() == FIRST_TITLE["en"]
    page.click("[data-intent='tour-skip']")
    assert page.locator("#tour").count() == 0
    # the game under it was never blocked: ROLL works after a skip
    page.click("[data-intent='roll']")
    page.wait_for_selector(".die")
    page.context.close()


def test_skipping_at_once_also_counts_as_seen(browser: Any, live_server: str) -> None:
    page = first_visit(browser, live_server, "sv")
    page.click("[data-intent='tour-skip']")
    page.reload()
    page.wait_for_selector("[data-intent='roll']")
    page.wait_for_load_state("networkidle")  # started and settled: no step comes
    assert page.locator("#tour").count() == 0
    page.context.close()


def test_offline_the_installed_game_opens_and_says_it_waits(browser: Any, live_server: str) -> None:
    """The service worker caches the page's own files, never the API: without a network the
    page still opens, says the game is safe on the server, and goes on by itself once the
    network is back (issue #14)."""
    context = browser.new_context(offline_ready=True, viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(live_server)
    page.wait_for_selector("[data-intent='roll']")
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()  # now under the worker's control
    page.wait_for_selector("[data-intent='roll']")
    cached = page.evaluate(
        """async () => {
            const names = await caches.keys();
            const urls = [];
            for (const name of names) {
                const cache = await caches.open(name);
                for (const request of await cache.keys()) urls.push(request.url);
            }
            return urls;
        }"""
    )
    assert any(u.endswith("/js/app.js") for u in cached)
    assert not any("/api/" in u for u in cached)
    context.set_offline(True)
    page.reload()  # the page itself comes from the cache
    page.wait_for_selector("#connection:not([hidden])")
    assert "safe on the server" in page.locator("#connection").inner_text()
    screenshot(page, "offline-390x844")
    context.set_offline(False)  # it retries by itself
    page.wait_for_selector("#connection[hidden]", state="attached", timeout=20_000)
    page.wait_for_selector("[data-intent='roll']")
    context.close()
