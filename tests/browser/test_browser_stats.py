"""The Statistics sheet (its numbers, the SVG histogram and trend with their tables, the empty
states) and the new screens (menu, the day's dailies, statistics) in English, Estonian and
Swedish at phone and desktop sizes, light and dark: nothing wider than the screen, touch
targets of 44 px, and no serious axe violation."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from ..utils.api import ViewPlayer
from ..utils.ui import screenshot
from .test_browser_a11y import serious_violations
from .test_browser_daily import api, day_context, open_menu_item, open_page


def finish_regular_game(page: Any, base: str, difficulty: str) -> Any:
    """A regular game (dice the server draws, as a player's) finished through the API."""
    view = api(page, base, "POST", "/api/games", {"difficulty": difficulty, "abandon": True})
    bot = ViewPlayer()
    while view["phase"] != "over":
        body = {"version": view["version"], "action": bot.next_action(view)}
        view = api(page, base, "POST", f"/api/games/{view['id']}/actions", body)
    return view


EMPTY = "Finish a game to see your statistics."


def test_statistics_sheet(browser: Any, live_server: str) -> None:
    phone = {"width": 360, "height": 740}
    context = day_context(browser, live_server, "2026-12-10", viewport=phone)
    page = open_page(context, live_server)
    open_menu_item(page, "stats")
    sheet = page.locator("#sheet")
    expect(sheet.locator(".empty-state").first).to_have_text(EMPTY)
    expect(sheet.locator(".empty-state").last).to_have_text(
        "Finish a daily challenge to start a streak."
    )
    expect(sheet.locator("svg.chart")).to_have_count(0)
    page.keyboard.press("Escape")

    scores = [finish_regular_game(page, live_server, "peaceful")["final_score"]["total"]]
    scores.append(finish_regular_game(page, live_server, "peaceful")["final_score"]["total"])
    stats = api(page, live_server, "GET", "/api/players/me/stats")["difficulties"]["peaceful"]
    assert stats["finished"] == 2 and stats["recent"] == scores
    page.click("#menu-button")
    with page.expect_request(lambda r: "/api/players/me/puzzles" in r.url) as asked:
        page.click("#sheet [data-intent='open'][data-screen='stats']")
    assert asked.value.url.endswith("?search=false")  # the rating only: the games not searched
    page.click("#sheet [data-intent='stats-difficulty'][data-difficulty='peaceful']")
    # each term with its number, read at once from one element: the sheet is drawn again as
    # its lists arrive, and two reads could meet two drawings (a clean-clone run did)
    numbers = dict(
        sheet.locator(".stats-numbers").first.evaluate(
            "el => [...el.querySelectorAll('dt')].map(dt => [dt.innerText,"
            " dt.nextElementSibling.innerText])"
        )
    )
    assert numbers["Finished"] == "2" and numbers["Best"] == str(max(scores)).replace("-", "−")
    assert numbers["Mean"] == f"{sum(scores) / 2:.1f}".replace("-", "−")
    histogram, trend = sheet.locator("svg.chart").all()
    assert histogram.get_attribute("role") == "img"
    label = histogram.get_attribute("aria-label") or ""
    assert label.startswith("Your PEACEFUL scores: ")
    counted = sum(b["count"] for b in stats["histogram"])
    assert counted == 2 and label.count("game") == len(stats["histogram"])
    rows = sheet.locator(".chart-table").first.locator("tbody tr")
    expect(rows).to_have_count(len(stats["histogram"]))
    assert trend.locator("circle").count() == 2
    assert (trend.get_attribute("aria-label") or "").endswith(
        "oldest first: " + ", ".join(str(s).replace("-", "−") for s in scores)
    )
    sheet.locator(".chart-table summary").first.click()
    expect(rows.first).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "stats-en-360x740")
    assert serious_violations(page) == []
    page.emulate_media(color_scheme="dark")
    screenshot(page, "stats-en-dark-360x740")
    assert serious_violations(page) == []
    page.click("#sheet [data-intent='stats-difficulty'][data-difficulty='survival']")
    expect(sheet.locator(".empty-state").first).to_have_text(EMPTY)
    assert not page.errors
    context.close()


CASES = {
    "et-phone-dark": ("et-EE", {"width": 390, "height": 844}, "dark"),
    "sv-phone": ("sv-SE", {"width": 360, "height": 740}, "light"),
    "sv-desktop-dark": ("sv-SE", {"width": 1280, "height": 800}, "dark"),
    "et-desktop": ("et-EE", {"width": 1280, "height": 800}, "light"),
}
# the menu's entry (a button: capitals), the sheet's title, PLAY, the day
WORDS = {
    "et": ("PÄEVA MÄNG", "Statistika", "MÄNGI", "Päeva mäng nr 11"),
    "sv": ("DAGENS SPEL", "Statistik", "SPELA", "Dagsspel nr 11"),
}


def fits(page: Any, width: int) -> None:
    """Nothing wider than the screen; every button and link of the sheet 44 px or more."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for node in page.locator("#sheet .button").all():
        box = node.bounding_box()
        assert box is None or (box["width"] >= 44 and box["height"] >= 44), node.inner_text()


@pytest.mark.parametrize("case", list(CASES))
def test_new_screens_in_every_language(browser: Any, live_server: str, case: str) -> None:
    locale, viewport, scheme = CASES[case]
    language = locale[:2]
    daily, statistics, play, number = WORDS[language]
    context = day_context(
        browser, live_server, "2026-12-11", locale=locale, viewport=viewport, scheme=scheme
    )
    page = open_page(context, live_server)
    finish_regular_game(page, live_server, "survival")
    page.click("#menu-button")
    expect(page.locator("#sheet [data-screen='daily']")).to_have_text(daily)
    fits(page, viewport["width"])
    screenshot(page, f"menu-{case}")
    page.click("#sheet [data-intent='open'][data-screen='daily']")
    expect(page.locator("#sheet .daily-day strong")).to_have_text(number)
    expect(page.locator("#sheet [data-intent='daily-play']")).to_have_text([play] * 3)
    fits(page, viewport["width"])
    screenshot(page, f"daily-list-{case}")
    assert serious_violations(page) == []
    page.keyboard.press("Escape")
    open_menu_item(page, "stats")
    expect(page.locator("#sheet-title")).to_have_text(statistics)
    page.click("#sheet [data-intent='stats-difficulty'][data-difficulty='survival']")
    expect(page.locator("#sheet svg.chart")).to_have_count(2)  # SURVIVAL, the last game's
    fits(page, viewport["width"])
    screenshot(page, f"stats-{case}")
    assert serious_violations(page) == []
    assert not page.errors
    context.close()
