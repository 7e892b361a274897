"""The replay viewer (issue #15): anyone with a finished game's link watches it turn by turn at
/replay/{game_id}, in every language, on a phone and a desktop, light and dark; the game-over
sheet and the high-score table link to it; an unknown or unfinished game is said to be so.

One game is finished (through the API, from the page's own session, with a test seed) by a
player whose page stays open; everyone else watching it is another player (a new context).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from ..utils.api import ViewPlayer
from ..utils.ui import screenshot
from .test_browser_a11y import serious_violations

STATIC = Path(__file__).resolve().parents[2] / "src" / "magdagdon" / "web" / "static"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
SIZES = {"phone": PHONE, "desktop": DESKTOP}
LOCALES = {"en": "en-US", "et": "et-EE", "sv": "sv-SE"}


def words(language: str, key: str, **params: Any) -> str:
    """A catalog's text with its placeholders filled, as the page's t() does."""
    text: str = json.loads((STATIC / "i18n" / f"{language}.json").read_text("utf-8"))[key]
    return re.sub(r"\{(\w+)\}", lambda m: str(params[m.group(1)]), text)


def number(n: int) -> str:
    """A score as the page writes it (a minus sign below zero)."""
    return str(n).replace("-", "−")


class Finished:
    """The finished game: its player's page (still open), its id and its final view."""

    def __init__(self, page: Any, view: dict[str, Any]) -> None:
        self.page, self.view, self.id = page, view, view["id"]
        self.score: int = view["final_score"]["total"]


@pytest.fixture(scope="module")
def finished(browser: Any, live_server: str) -> Iterator[Finished]:
    """A PEACEFUL game of seed 0 (a MAGDAGDON rescued by a Majda Power, and a RUIN), played to
    the end through the API by the page's player after the page showed it."""
    context = browser.new_context(viewport=PHONE, locale="en-US", reduced_motion="reduce")
    page = context.new_page()
    page.goto(f"{live_server}/?seed=0")
    page.wait_for_selector("[data-intent='roll']")
    view = page.request.get(f"{live_server}/api/games/current").json()
    bot = ViewPlayer(use_power=True)
    kinds: set[str] = set()
    while view["phase"] != "over":
        action = bot.next_action(view)
        kinds.add(action["type"])
        body = {"version": view["version"], "action": action}
        r = page.request.post(f"{live_server}/api/games/{view['id']}/actions", data=body)
        assert r.ok, r.text()
        view = r.json()
    assert {"adjust", "accept_magdagdon"} <= kinds and view["final_score"]["total"] > 0
    yield Finished(page, view)
    context.close()


class Watcher(NamedTuple):
    """Another player's context, its page, and the page's uncaught errors."""

    context: Any
    page: Any
    errors: list[str]


def watch(browser: Any, base: str, game_id: str, *, clock: bool = False, **options: Any) -> Watcher:
    """Another player's page on the game's replay, loaded; with ``clock``, the page's timers
    on Playwright's clock (flowing, and moved on by the test at will)."""
    options.setdefault("viewport", PHONE)
    options.setdefault("locale", "en-US")
    context = browser.new_context(reduced_motion="reduce", **options)
    if clock:
        context.clock.install()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{base}/replay/{game_id}")
    page.wait_for_selector("#app[aria-busy='false']")
    return Watcher(context, page, errors)


def caption(page: Any) -> str:
    text: str = page.locator("#replay-caption").inner_text()
    return text


def step(page: Any) -> int:
    """The frame shown (0-based), from the slider."""
    return int(page.locator("#replay-slider").input_value())


def fits(page: Any, width: int) -> None:
    """Nothing scrolls sideways; every control is a touch target of 44 px at least."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for node in page.locator(".replay .button, .play-link, #replay-slider").all():
        box = node.bounding_box()
        assert box and box["height"] >= 44, node.evaluate("n => n.outerHTML")
        assert box["width"] >= 44, node.evaluate("n => n.outerHTML")
        assert box["x"] >= 0 and box["x"] + box["width"] <= width


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("language", list(LOCALES))
def test_another_player_watches_from_the_first_frame_to_the_final_score(
    browser: Any, live_server: str, finished: Finished, language: str, size: str
) -> None:
    viewport = SIZES[size]
    context, page, errors = watch(
        browser, live_server, finished.id, viewport=viewport, locale=LOCALES[language]
    )
    try:
        assert page.locator("html").get_attribute("lang") == language
        frames = int(page.locator("#replay-slider").get_attribute("max") or 0) + 1
        assert frames > 2 * finished.view["turns"]  # a roll and the dice placed, every turn
        assert caption(page) == words(language, "replay_start")
        assert page.locator("#replay-score").inner_text() == "0"
        assert page.locator("#replay-position").inner_text() == words(
            language, "replay_step", n=1, of=frames
        )
        assert words(language, "anonymous") in page.locator(".replay-meta").inner_text()
        assert "PEACEFUL" in page.locator(".replay-meta").inner_text()
        page.keyboard.press("ArrowRight")  # the first roll: four dice, all just rolled
        assert page.locator(".tray .die.changed").count() == 4
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")  # two dice placed: one square outlined, the die faded
        assert page.locator(".square.fresh").count() == 1
        assert page.locator(".tray .die.on-board").count() == 2
        fits(page, viewport["width"])
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            screenshot(page, f"replay-{language}-{scheme}-{viewport['width']}x{viewport['height']}")
            assert serious_violations(page) == [], scheme
        page.keyboard.press("End")
        final = number(finished.score)
        assert page.locator("#replay-score").inner_text() == final
        assert caption(page) == words(language, "replay_end", score=final)
        assert page.locator(".square svg").count() == 16  # the full board
        final_lines = finished.view["final_score"]  # each line's sum and bonus, as the game's
        for kind, key in (("row", "rows"), ("col", "columns")):
            shown = page.locator(f".replay-board .sum.{kind} .num").all_inner_texts()
            assert shown == [str(line["sum"]) for line in final_lines[key]]
        lines = final_lines["rows"] + final_lines["columns"]
        bonuses = sum(1 for line in lines if line["bonus"])
        assert bonuses and page.locator(".replay-board .sum .badge").count() == bonuses
        screenshot(page, f"replay-{language}-dark-{viewport['width']}x{viewport['height']}-end")
        assert not errors, errors
    finally:
        context.close()


def test_previous_next_slider_keys_and_autoplay_move_the_frame(
    browser: Any, live_server: str, finished: Finished
) -> None:
    context, page, errors = watch(browser, live_server, finished.id, clock=True)
    try:
        last = int(page.locator("#replay-slider").get_attribute("max") or 0)
        assert page.locator("html.no-motion").count() == 1  # reduced motion: no animations
        page.click("[data-replay='next']")
        assert step(page) == 1 and caption(page).startswith("Turn 1: rolled ")
        page.click("[data-replay='next']")
        page.click("[data-replay='previous']")
        assert step(page) == 1
        page.click("[data-replay='last']")
        assert step(page) == last
        page.click("[data-replay='first']")
        assert step(page) == 0
        assert page.locator("[data-replay='previous']").get_attribute("aria-disabled") == "true"
        # the slider: dragged (a value set) and by its own keys
        page.locator("#replay-slider").fill("5")
        assert step(page) == 5
        assert page.locator("#replay-position").inner_text() == f"Step 6 of {last + 1}"
        valuetext = page.locator("#replay-slider").get_attribute("aria-valuetext") or ""
        assert valuetext == f"Step 6 of {last + 1}: {caption(page)}"
        page.focus("#replay-slider")
        page.keyboard.press("ArrowRight")
        assert step(page) == 6
        page.keyboard.press("Home")
        assert step(page) == 0
        # the page's keys, from anywhere but a field
        page.locator(".replay-meta").click()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        assert step(page) == 2
        page.keyboard.press("ArrowLeft")
        assert step(page) == 1
        page.keyboard.press("End")
        assert step(page) == last
        page.keyboard.press("Home")
        assert step(page) == 0
        # every frame in words: the powers, the RUIN, the dice placed one by one
        said = []
        for _ in range(last):
            page.keyboard.press("ArrowRight")
            said.append(caption(page))
        assert any(s.startswith("Majda Power: DECREASE −1 die ") for s in said) or any(
            s.startswith("Majda Power: INCREASE +1 die ") for s in said
        ), said
        assert any(re.fullmatch(r"MAGDAGDON! RUIN on row \d, column \d", s) for s in said), said
        assert any(re.fullmatch(r"Placed \d on row \d, column \d", s) for s in said), said
        assert any("MAGDAGDON: this roll cannot be placed." in s for s in said), said
        # Space plays and pauses (about a frame every 0.8 s); PLAY at the end starts again
        page.keyboard.press("Home")
        page.keyboard.press(" ")
        assert page.locator("[data-replay='play']").inner_text() == "PAUSE"
        page.wait_for_function("() => Number(document.getElementById('replay-slider').value) >= 2")
        page.keyboard.press(" ")
        assert page.locator("[data-replay='play']").inner_text() == "PLAY"
        paused = step(page)
        page.clock.run_for(8_000)  # ten frames' time (on a loaded machine 1 s waited for real
        assert step(page) == paused  # could pass before a frame that was due)
        # Space on a step button plays and pauses too (it does not step)
        page.click("[data-replay='first']")
        page.focus("[data-replay='next']")
        page.keyboard.press(" ")
        assert page.locator("[data-replay='play']").inner_text() == "PAUSE"
        page.keyboard.press(" ")
        assert page.locator("[data-replay='play']").inner_text() == "PLAY"
        page.click("[data-replay='last']")
        page.click("[data-replay='play']")  # from the first frame again
        page.wait_for_function("() => Number(document.getElementById('replay-slider').value) >= 1")
        assert step(page) < last
        page.click("[data-replay='play']")
        assert not errors, errors
    finally:
        context.close()


def test_the_game_over_sheet_and_the_high_scores_link_to_the_replay(
    live_server: str, finished: Finished
) -> None:
    page = finished.page
    page.reload()  # the finished game's result again
    link = page.locator("#sheet a[data-replay-link]")
    assert link.inner_text() == "WATCH REPLAY"
    assert link.get_attribute("href") == f"/replay/{finished.id}"
    link.click()
    page.wait_for_url(f"**/replay/{finished.id}")
    page.wait_for_selector("#app[aria-busy='false']")
    assert page.locator(".play-link").get_attribute("href") == "/"
    page.click(".play-link")  # back to the game: its result
    page.wait_for_selector("#sheet[open]")
    page.click("[data-intent='close']")
    page.click("#menu-button")
    page.click("#sheet [data-intent='open'][data-screen='scores']")
    page.click("[data-intent='scores-scope'][data-scope='me']")
    row = page.locator(f"a[data-replay-link='{finished.id}']")
    assert (row.get_attribute("aria-label") or "").startswith("Watch the replay of place ")
    # a table row on a desktop (the review button, then the link), a card on a phone: the
    # link inside the sheet, nothing to scroll sideways
    for width in (1280, 390, 360):
        page.set_viewport_size({"width": width, "height": 740})
        if width == 1280:
            screenshot(page, "replay-link-scores-1280x740")
        box, sheet = row.bounding_box(), page.locator("#sheet").bounding_box()
        assert box and box["height"] >= 44 and box["width"] >= 44
        assert sheet and box["x"] + box["width"] <= sheet["x"] + sheet["width"]
        widths = page.locator("#sheet").evaluate("node => [node.scrollWidth, node.clientWidth]")
        assert widths[0] <= widths[1], widths
    screenshot(page, "replay-link-scores-360x740")
    row.click()
    page.wait_for_url(f"**/replay/{finished.id}")
    page.wait_for_selector("#replay-slider")


@pytest.mark.parametrize("language", list(LOCALES))
def test_an_unknown_or_unfinished_game_says_so(
    browser: Any, live_server: str, language: str
) -> None:
    context, page, errors = watch(browser, live_server, "0" * 24, locale=LOCALES[language])
    try:
        alert = page.locator(".replay-error")
        assert alert.inner_text() == words(language, "replay_not_found")
        assert page.locator(".replay a.button.primary").get_attribute("href") == "/"
        if language == "en":
            screenshot(page, "replay-not-found-390x844")
            # this player's own game in progress is not watchable either
            page.goto(f"{live_server}/?seed=7")
            page.wait_for_selector("[data-intent='roll']")
            active = page.request.get(f"{live_server}/api/games/current").json()["id"]
            page.goto(f"{live_server}/replay/{active}")
            page.wait_for_selector("#app[aria-busy='false']")
            assert page.locator(".replay-error").inner_text() == words("en", "replay_not_found")
        assert not errors, errors
    finally:
        context.close()


@pytest.mark.parametrize("language", ["et", "sv"])
def test_every_frame_fits_a_360_px_phone(
    browser: Any, live_server: str, finished: Finished, language: str
) -> None:
    """The longest words (Estonian, Swedish) on the narrowest phone: no frame pushes the page
    sideways (SPELA UPP once did) or the controls off the screen, and the board stays put."""
    context, page, errors = watch(
        browser,
        live_server,
        finished.id,
        viewport={"width": 360, "height": 740},
        locale=LOCALES[language],
    )
    try:
        last = int(page.locator("#replay-slider").get_attribute("max") or 0)
        fits(page, 360)
        board = page.locator(".replay-board").bounding_box()
        shot = False
        for _ in range(last):
            page.keyboard.press("ArrowRight")
            assert page.evaluate("document.documentElement.scrollWidth") <= 360, caption(page)
            # the controls on the screen, the board still (a bonus arriving moves nothing)
            controls = page.locator(".replay-controls").bounding_box()
            assert controls and controls["y"] + controls["height"] <= 740, caption(page)
            assert page.locator(".replay-board").bounding_box() == board, caption(page)
            if not shot and "MAGDAGDON" in caption(page):
                screenshot(page, f"replay-{language}-magdagdon-360x740")
                shot = True
        assert shot and not errors, errors
    finally:
        context.close()


def test_a_daily_is_watched_by_others_once_its_day_ended(browser: Any, live_server: str) -> None:
    """Its own player watches a daily at once; another player only after midnight UTC (the
    test server takes the X-Magdagdon-Test-Date header as today)."""
    day, next_day = "2027-03-14", "2027-03-15"  # daily #104, a day no other test plays
    mine = browser.new_context(
        viewport=PHONE, locale="en-US", extra_http_headers={"X-Magdagdon-Test-Date": day}
    )
    try:
        page = mine.new_page()
        r = page.request.post(f"{live_server}/api/daily/survival")
        assert r.status == 201, r.text()
        view, bot = r.json(), ViewPlayer()
        while view["phase"] != "over":
            body = {"version": view["version"], "action": bot.next_action(view)}
            r = page.request.post(f"{live_server}/api/games/{view['id']}/actions", data=body)
            assert r.ok, r.text()
            view = r.json()
        game_id, score = view["id"], view["final_score"]["total"]
        page.goto(f"{live_server}/replay/{game_id}")  # its own player: at once
        page.wait_for_selector("#replay-slider")
        assert "Daily #104" in page.locator(".replay-meta").inner_text()
    finally:
        mine.close()
    header = {"X-Magdagdon-Test-Date": day}
    context, page, errors = watch(
        browser,
        live_server,
        game_id,
        locale="et-EE",
        extra_http_headers=header,
        viewport={"width": 360, "height": 740},
    )
    try:  # another player, the same day: the way to today's dailies, its words whole
        assert page.locator(".replay-error").inner_text() == words("et", "replay_not_over")
        onward = page.locator(".replay a.button.primary")
        assert onward.inner_text() == words("et", "replay_play_daily")
        assert onward.evaluate("n => n.scrollWidth <= n.clientWidth")
        fits(page, 360)
        screenshot(page, "replay-et-not-over-360x740")
        assert not errors, errors
    finally:
        context.close()
    header = {"X-Magdagdon-Test-Date": next_day}
    context, page, errors = watch(browser, live_server, game_id, extra_http_headers=header)
    try:  # another player, the next day
        page.keyboard.press("End")
        assert page.locator("#replay-score").inner_text() == number(score)
        assert "Daily #104" in page.locator(".replay-meta").inner_text()
        assert not errors, errors
    finally:
        context.close()


def test_the_installed_page_shows_a_replay_and_waits_for_the_network(
    browser: Any, live_server: str, finished: Finished
) -> None:
    """Under the service worker a replay's address is the cached page (the same index.html),
    with replay.js among the cached files; offline it says so and loads once back."""
    context = browser.new_context(offline_ready=True, viewport=PHONE, locale="en-US")
    page = context.new_page()
    try:
        page.goto(f"{live_server}/replay/{finished.id}")
        page.wait_for_selector("#replay-slider")
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        page.reload()  # now under the worker's control
        page.wait_for_selector("#replay-slider")
        assert page.evaluate("Boolean(navigator.serviceWorker.controller)")
        cached = page.evaluate(
            """async () => {
                const urls = [];
                for (const name of await caches.keys()) {
                    const cache = await caches.open(name);
                    for (const request of await cache.keys()) urls.push(request.url);
                }
                return urls;
            }"""
        )
        assert any(u.endswith("/js/replay.js") for u in cached), cached
        context.set_offline(True)
        page.reload()  # the page from the cache; its frames wait for the network
        page.wait_for_selector("#connection:not([hidden])")
        assert page.locator("#connection").inner_text() == words("en", "replay_offline")
        context.set_offline(False)  # it retries by itself
        page.wait_for_selector("#replay-slider")
        page.wait_for_selector("#connection[hidden]", state="attached")
    finally:
        context.close()
