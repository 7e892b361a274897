"""The guided first game (issue #14): a few steps on the real board on a browser's first visit,
in each language, with the keyboard, skippable, once per browser, again from the menu."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright.sync_api import expect

from ..utils.ui import screenshot
from .conftest import UI_WAIT_MS
from .test_browser_a11y import serious_violations

STEPS = 6
FIRST_TITLE = {"en": "Roll four dice", "et": "Veereta neli täringut", "sv": "Kasta fyra tärningar"}
PLACE_WORDS = {
    ("en", "tap"): "Tap a die",
    ("en", "click"): "Click a die",
    ("et", "tap"): "Puuduta täringut",
    ("et", "click"): "Klõpsa täringut",
    ("sv", "tap"): "Tryck på en tärning",
    ("sv", "click"): "Klicka på en tärning",
}
# where the card and the outlined target are (the outline drawn 4 px out, 3 px wide)
APART = """() => {
  const card = document.getElementById("tour").getBoundingClientRect();
  const target = document.querySelector(".tour-target").getBoundingClientRect();
  const ring = 7;
  const apart = card.bottom <= target.top - ring + 0.5 || card.top >= target.bottom + ring - 0.5
    || card.right <= target.left - ring + 0.5 || card.left >= target.right + ring - 0.5;
  const within = (r, box) => r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5
    && r.left >= box.left - 0.5 && r.right <= box.right + 0.5;
  const right = document.documentElement.clientWidth;
  const screen = { top: 0, left: 0, bottom: innerHeight, right };
  // the card on screen, and its buttons in it (never scrolled away with its words)
  const inside = within(card, screen) && [...document.querySelectorAll("#tour .button")]
    .every((b) => within(b.getBoundingClientRect(), card));
  return { apart, inside, card: [card.top, card.bottom].map(Math.round),
           target: [target.top, target.bottom].map(Math.round) };
}"""


def first_visit(browser: Any, live_server: str, language: str, **size: Any) -> Any:
    touch = size.pop("touch", True)
    context = browser.new_context(
        tour=True,
        locale=language,
        viewport={"width": size.get("width", 390), "height": size.get("height", 844)},
        reduced_motion="reduce",
        is_mobile=touch,
        has_touch=touch,
    )
    page = context.new_page()
    page.goto(live_server)
    page.wait_for_selector("#tour")
    return page


def card_beside_target(page: Any, where: str) -> None:
    """The step's card is on screen and does not cover the outlined target (after a resize
    once the page has handled it: the resize event comes after the new size, and on a loaded
    machine after the first look)."""
    # Polled from here: page.wait_for_function's polling compiles its predicate in the page,
    # which the game's Content-Security-Policy forbids (an EvalError when the first look fails)
    deadline = time.monotonic() + UI_WAIT_MS / 1000  # (what a failing wait is given)
    at = page.evaluate(APART)
    while not (at["apart"] and at["inside"]) and time.monotonic() < deadline:
        page.wait_for_timeout(100)
        at = page.evaluate(APART)
    assert at["apart"] and at["inside"], (where, at)


@pytest.mark.parametrize(
    ("language", "width", "height", "touch"),
    [
        ("en", 360, 640, True),
        ("et", 375, 667, True),
        ("sv", 390, 844, True),
        ("en", 1280, 800, False),
        ("et", 1280, 800, False),
    ],
)
def test_the_walkthrough_teaches_on_the_first_roll(
    browser: Any, live_server: str, language: str, width: int, height: int, touch: bool
) -> None:
    """It waited for no roll: step 2 outlined an empty tray and spoke of "+" squares that were
    not there, and its card hid ROLL and CONFIRM on a phone. Now the first step's way on is the
    player's own ROLL; each later step points at the dice and squares of that roll, its card
    beside what it outlines; a mouse clicks, a finger taps."""
    page = first_visit(browser, live_server, language, width=width, height=height, touch=touch)
    name = f"{language}-{width}x{height}"
    assert page.locator("#tour-title").inner_text() == FIRST_TITLE[language]
    roll = page.locator(".tour-target")
    assert roll.get_attribute("data-intent") == "roll"
    assert page.locator("#tour [data-intent='tour-next']").count() == 0  # ROLL is the way on
    card_beside_target(page, f"roll {name}")
    screenshot(page, f"walkthrough-roll-{name}")
    # a redraw (the board's focus moved), a turned screen: ROLL still outlined, the card beside it
    page.focus("[data-square='0']")
    page.keyboard.press("ArrowRight")  # (the board redrawn, its focus moved)
    expect(page.locator("[data-square='1']")).to_be_focused()
    assert page.locator(".tour-target").get_attribute("data-intent") == "roll"
    page.set_viewport_size({"width": height, "height": width})
    card_beside_target(page, f"roll {name}, turned")
    page.set_viewport_size({"width": width, "height": height})
    card_beside_target(page, f"roll {name}, back")
    roll = page.locator(".tour-target")
    roll.click()
    targets = []
    for n in range(1, STEPS):
        expect(page.locator("#tour .tour-count")).to_have_text(re.compile(rf"^{n + 1}\D"))
        assert page.evaluate("document.activeElement.id") == "tour-title"  # focus moves along
        marked = page.locator(".tour-target")
        assert marked.count() == 1
        targets.append(marked.get_attribute("id"))
        card_beside_target(page, f"step {n + 1} {name}")
        if n == 1:  # the dice of the roll, in the tray
            assert page.locator("#tray .die:not(.on-board)").count() == 4
            words = PLACE_WORDS[(language, "tap" if touch else "click")]
            assert page.locator("#tour-text").inner_text().startswith(words)
        if n == 2:  # the squares a die of the roll may go to, marked +
            assert page.locator(".square.legal").count() > 0
            screenshot(page, f"walkthrough-lit-{name}")
            assert serious_violations(page) == []
        page.click("[data-intent='tour-next']")
    assert page.locator("#tour").count() == 0 and page.locator(".tour-target").count() == 0
    assert targets == ["tray", "board", "actions", "board", "status"]  # each part of the screen
    page.reload()  # once per browser
    page.wait_for_selector("#app[aria-busy='false'] #tray .die")
    page.wait_for_load_state("networkidle")  # started and settled: no step comes
    assert page.locator("#tour").count() == 0
    page.context.close()


def test_the_walkthrough_with_the_keyboard_escape_and_the_menu(
    browser: Any, live_server: str
) -> None:
    page = first_visit(browser, live_server, "en", touch=False)
    page.keyboard.press("Tab")  # from the step's title to its buttons
    focused = page.evaluate("document.activeElement.dataset.intent")
    assert focused == "tour-skip"
    page.focus("[data-intent='roll']")
    page.keyboard.press("Enter")  # the game's own ROLL moves the tour on
    expect(page.locator(".tour-count")).to_have_text("2 of 6")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # NEXT
    expect(page.locator(".tour-count")).to_have_text("3 of 6")
    page.keyboard.press("Escape")  # leaves it at any step
    assert page.locator("#tour").count() == 0
    assert page.evaluate("document.activeElement.tagName") != "BODY"
    # "How to play" in the menu opens it again, on the dice rolled: from the first step on them
    page.click("#menu-button")
    page.click("#sheet [data-intent='how-to-play']")
    page.wait_for_selector("#tour")
    expect(page.locator(".tour-count")).to_have_text("2 of 6")
    assert page.locator(".tour-target").get_attribute("id") == "tray"
    page.click("[data-intent='tour-skip']")
    assert page.locator("#tour").count() == 0
    # the game under it was never blocked: a die goes on the board after a skip
    page.click("#tray .die >> nth=0")
    page.click(".square.legal >> nth=0")
    page.wait_for_selector(".square.staged")
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
