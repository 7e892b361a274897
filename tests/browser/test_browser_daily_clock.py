"""The daily's clock in the browser (issue 45, item 3): the daily list says when new dailies
come, in the last quarter hour before midnight UTC how little is left to start one (and that a
game started then can be finished until 02:00 UTC, said in the player's own time), and after
midnight a daily left unfinished comes back after a reload and has CONTINUE with the time left.

The clock is the test server's: the context's ``X-Magdagdon-Test-Now`` header, moved between
steps (no waiting, whatever the real time). One page a language (EN/ET/SV, in Tallinn's time
zone: 02:00 UTC is 04:00 there in winter), measured at 360×640 and 375×667, light and dark:
no sideways scroll, no line cut, axe clean; the screenshots go to test-artifacts/screenshots.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from ..utils.ui import UiPlayer, screenshot
from .test_browser_a11y import serious_violations
from .test_browser_replay import LOCALES, words

DAY, NEXT = "2027-02-10", "2027-02-11"  # daily #72 and #73
SIZES = [(360, 640), (375, 667)]
TIMES = {"en": "{h} h {m} min", "et": "{h} t {m} min", "sv": "{h} h {m} min"}


def at(context: Any, moment: str) -> None:
    """Move the server's clock for this context's requests (UTC)."""
    context.set_extra_http_headers({"X-Magdagdon-Test-Now": f"{moment}Z"})


def open_daily(page: Any) -> Any:
    """The menu's DAILY CHALLENGE, drawn from a fresh GET /api/daily; the sheet."""
    page.click("#menu-button")
    page.click("#sheet [data-intent='open'][data-screen='daily']")
    sheet = page.locator("#sheet")
    expect(sheet.locator(".daily-day")).to_be_visible()
    return sheet


def close_sheet(page: Any) -> None:
    page.keyboard.press("Escape")
    expect(page.locator("#sheet")).to_be_hidden()


CUT = "#sheet .daily-time, #sheet .daily-last, #sheet .daily-status, #sheet .button"
"""The texts measured for a cut (``measured``)."""


def measured(page: Any, name: str, texts: str = CUT) -> None:
    """At each phone size, light and dark: nothing wider than the screen, no text of ``texts``
    (a selector) cut, axe clean; a screenshot of each."""
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, (name, width)
            cut = page.evaluate(
                """(texts) => [...document.querySelectorAll(texts)]
                  .filter((e) => e.offsetParent && e.scrollWidth > e.clientWidth + 1)
                  .map((e) => e.textContent)""",
                texts,
            )
            assert cut == [], (name, width, cut)
            screenshot(page, f"{name}-{width}x{height}-{scheme}")
            if width == 360:
                assert serious_violations(page) == [], (name, scheme)
    page.emulate_media(color_scheme="light")


@pytest.mark.parametrize("language", ["en", "et", "sv"])
def test_the_daily_list_says_the_time_left(browser: Any, live_server: str, language: str) -> None:
    context = browser.new_context(
        viewport={"width": 360, "height": 640},
        locale=LOCALES[language],
        timezone_id="Europe/Tallinn",
        reduced_motion="reduce",
    )
    at(context, f"{DAY}T20:48:00")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(live_server)
    page.wait_for_selector("#app[aria-busy='false'] [data-intent='roll']")
    hm = TIMES[language]

    # 20:48 UTC: 3 h 12 min until the next dailies; no warning yet
    sheet = open_daily(page)
    time_left = hm.format(h=3, m=12)
    expect(sheet.locator(".daily-time")).to_have_text(
        words(language, "daily_new_in", time=time_left)
    )
    expect(sheet.locator(".daily-last")).to_have_count(0)
    measured(page, f"daily-clock-time-left-{language}")
    close_sheet(page)

    # 23:51 UTC: 9 min left to start one, said by PLAY; a game started now ends at 04:00 local
    at(context, f"{DAY}T23:51:00")
    sheet = open_daily(page)
    clock = page.evaluate(
        "(l) => new Intl.DateTimeFormat(l, { hour: 'numeric', minute: '2-digit' })"
        f".format(new Date('{NEXT}T02:00:00Z'))",
        LOCALES[language],
    )
    assert "4:00" in clock  # the player's time (Tallinn, UTC+2), not 02:00 UTC
    warning = words(
        language, "daily_last_minutes", time=words(language, "time_minutes", m=9), clock=clock
    )
    expect(sheet.locator(".daily-last")).to_have_text(warning)
    expect(sheet.locator(".daily-time")).to_have_count(0)
    # the warning sits right above the PLAY buttons
    between = page.evaluate(
        """() => document.querySelector('#sheet .daily-last').nextElementSibling.className"""
    )
    assert between == "daily-list"
    measured(page, f"daily-clock-last-quarter-{language}")

    # PLAY at 23:51 and a ROLL; past midnight a reload shows it again, and it plays on
    sheet.locator("[data-intent='daily-play'][data-difficulty='peaceful']").click()
    expect(page.locator("#sheet")).to_be_hidden()
    chip = page.locator("#difficulty-chip.daily-chip")
    expect(chip).to_contain_text(words(language, "daily_chip", number=72))
    started = page.request.get(f"{live_server}/api/daily").json()["games"][0]
    ui = UiPlayer(page, live_server)
    ui.game_id = started["game_id"]
    view = ui.perform({"type": "roll"})
    assert view["daily"] == {"date": DAY, "number": 72, "finish_by": f"{NEXT}T02:00:00Z"}
    at(context, f"{NEXT}T00:20:00")
    page.reload()
    page.wait_for_selector("#app[aria-busy='false']")
    # the remembered daily is on the board again (not ended, no notice), and plays on
    expect(chip).to_contain_text(words(language, "daily_chip", number=72))
    expect(page.locator("#sheet .daily-notice")).to_have_count(0)
    view = ui.perform(
        next(
            {"type": "stage", "die": d["index"], "cell": d["legal_cells"][0]}
            for d in view["dice"]
            if d["legal_cells"]
        )
    )

    # the list: yesterday's to CONTINUE with 1 h 40 min left, today's three, 23 h 40 min left
    sheet = open_daily(page)
    unfinished = sheet.locator(".daily-unfinished")
    expect(unfinished).to_have_count(1)
    expect(unfinished.locator(".daily-status")).to_have_text(
        words(language, "daily_left_to_finish", time=hm.format(h=1, m=40))
    )
    expect(sheet.locator(".daily-day")).to_contain_text(words(language, "daily_number", number=73))
    expect(sheet.locator("[data-intent='daily-play']")).to_have_count(3)
    expect(sheet.locator(".daily-time")).to_have_text(
        words(language, "daily_new_in", time=hm.format(h=23, m=40))
    )
    measured(page, f"daily-clock-unfinished-{language}")
    # (the regular game on the board meanwhile: CONTINUE brings the daily back)
    sheet.locator("[data-intent='back-to-game']").click()
    expect(page.locator("#difficulty-chip.daily-chip")).to_have_count(0)
    sheet = open_daily(page)
    sheet.locator(".daily-unfinished [data-intent='daily-continue']").click()
    expect(page.locator("#sheet")).to_be_hidden()
    expect(chip).to_contain_text(words(language, "daily_chip", number=72))
    assert ui.view()["staged"] == view["staged"]
    assert errors == []
    context.close()
