"""One player's whole journey through the new screens, in each language at phone and desktop
size: the daily from the menu to its end (the last action in the page), the coach's score,
SHARE (the clipboard's text checked line by line), the leaderboard, the statistics and the
replay of their own daily from the leaderboard — axe on every screen on the way."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from ..utils.api import COACH_WAIT
from ..utils.ui import screenshot
from .test_browser_a11y import serious_violations
from .test_browser_daily import (
    day_context,
    finish_in_page,
    open_menu_item,
    open_page,
    play_through_api,
)
from .test_browser_replay import number

CATALOGS = Path(__file__).parents[2] / "src" / "magdagdon" / "web" / "static" / "i18n"
LOCALES = {"en": "en-US", "et": "et-EE", "sv": "sv-SE"}
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
# a day of its own for each run, so that every leaderboard holds one player
DAYS = {
    (language, size): f"2027-01-{n:02d}"
    for n, (language, size) in enumerate(((lang, s) for lang in LOCALES for s in SIZES), 10)
}


def words(language: str) -> dict[str, str]:
    """The language's catalog."""
    catalog: dict[str, str] = json.loads((CATALOGS / f"{language}.json").read_text())
    return catalog


def no_serious_violations(page: Any, where: str) -> None:
    found = serious_violations(page)
    assert not found, (where, found)


def wait_for_par(page: Any, url: str, seconds: float = COACH_WAIT) -> int:
    """The daily's par once the server has computed it (the leaderboard says null until then):
    the coach's background work, which a loaded machine has taken over 60 s to do."""
    deadline = time.monotonic() + seconds
    while True:
        par = page.request.get(url).json()["par"]
        if par is not None:
            return int(par)
        assert time.monotonic() < deadline, "the par was not computed"
        time.sleep(0.25)


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("language", list(LOCALES))
def test_a_daily_journey(browser: Any, live_server: str, language: str, size: str) -> None:
    day = DAYS[(language, size)]
    context = day_context(browser, live_server, day, locale=LOCALES[language], viewport=SIZES[size])
    try:
        page = open_page(context, live_server)
        name = f"journey-{language}-{size}"
        # menu → DAILY CHALLENGE → PLAY the PEACEFUL daily
        open_menu_item(page, "daily")
        expect(page.locator("#sheet [data-intent='daily-play']")).to_have_count(3)
        no_serious_violations(page, "daily list")
        page.click("#sheet [data-intent='daily-play'][data-difficulty='peaceful']")
        expect(page.locator("#sheet")).not_to_be_visible()
        today = page.request.get(live_server + "/api/daily").json()
        game_id = next(g["game_id"] for g in today["games"] if g["difficulty"] == "peaceful")
        view = page.request.get(f"{live_server}/api/games/{game_id}").json()
        ref = {"date": day, "number": today["number"], "finish_by": today["finish_by"]}
        assert view["daily"] == ref
        # most of it through the API, the last action in the page: the game-over sheet
        view = play_through_api(page, live_server, view)
        final = finish_in_page(page, live_server, view)
        assert final["phase"] == "over"
        # The coach's line says "playing these dice…" until the par is computed (in the
        # background, slow on a loaded machine): wait for the par itself, then for its line.
        par = wait_for_par(page, f"{live_server}/api/daily/{day}/peaceful/leaderboard")
        page.wait_for_function(
            """par => {
                const line = document.querySelector('#sheet .daily-coach');
                return line && line.textContent.replace(/[\\u202f\\u00a0]/g, '').includes(par);
            }""",
            arg=str(par),
            timeout=30_000,
        )
        no_serious_violations(page, "daily game over")
        screenshot(page, f"{name}-over")
        # SHARE: the text in the clipboard
        page.click("#sheet [data-intent='share']")
        expect(page.locator("#sheet .share-note")).to_be_visible()
        text = page.evaluate("navigator.clipboard.readText()")
        lines = text.split("\n")
        assert len(lines) == 7, text
        assert lines[0].startswith("MAGDAGDON ") and str(today["number"]) in lines[0]
        assert "PEACEFUL" in lines[0]
        total = final["final_score"]["total"]
        assert str(abs(total)) in lines[1].replace("\u00a0", "").replace("\u202f", "")
        assert str(par) in lines[1].replace("\u00a0", "").replace("\u202f", "")
        assert all(len(line) == 4 and set(line) <= set("🟩🟨💥⬜") for line in lines[2:6])
        assert lines[6] == f"{live_server}/replay/{game_id}"
        # the leaderboard: the player's own row, marked
        page.click("#sheet [data-intent='leaderboard']")
        mine = page.locator("#sheet tr.mine")
        expect(mine).to_have_count(1)
        no_serious_violations(page, "leaderboard")
        screenshot(page, f"{name}-leaderboard")
        # the statistics: one finished PEACEFUL game, drawn and tabled
        page.click("#sheet [data-intent='close']")
        open_menu_item(page, "stats")
        expect(page.locator("#sheet svg.chart").first).to_be_visible()
        assert page.locator("#sheet-title").inner_text() == words(language)["title_statistics"]
        no_serious_violations(page, "statistics")
        screenshot(page, f"{name}-stats")
        # the replay of one's own daily, at once, from the leaderboard
        page.click("#sheet [data-intent='close']")
        page.click("#difficulty-chip")  # on a daily: today's list
        page.locator("#sheet [data-intent='leaderboard'][data-difficulty='peaceful']").first.click()
        page.locator("#sheet tr.mine a.watch").click()
        page.wait_for_selector("#replay-slider")
        page.keyboard.press("End")
        expect(page.locator("#replay-score")).to_have_text(number(total))
        no_serious_violations(page, "replay")
        screenshot(page, f"{name}-replay")
        assert not page.errors, page.errors
    finally:
        context.close()
