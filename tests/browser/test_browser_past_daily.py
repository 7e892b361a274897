"""Past dailies in the browser (issue 45, item 4): DAILY → PAST DAILIES lists the month's days
of a difficulty; a day the player missed has PLAY, which puts that day's dice on the board
marked as a past daily; its end says it is not on the day's leaderboard, where it would stand
there, the coach's score and the friend who played the day; the calendar then shows the score,
and the day's leaderboard shows the past daily apart, with the friend.

The clock is the test server's (``X-Magdagdon-Test-Now``, moved between steps); each language
has days of its own. Measured at 360×640 and 375×667, light and dark: no sideways scroll, no
text cut, axe clean; the screenshots go to test-artifacts/screenshots.
"""

from __future__ import annotations

from datetime import date, timedelta
from functools import partial
from typing import Any

import pytest
from playwright.sync_api import expect

from ..utils.api import play_through
from .test_browser_challenges import post_as
from .test_browser_daily import finish_in_page
from .test_browser_daily_clock import at
from .test_browser_daily_clock import measured as measure
from .test_browser_replay import LOCALES, number, words

DAYS = {"en": "2027-05-03", "et": "2027-05-13", "sv": "2027-05-23"}  # no other test's days
TEXTS = (
    "#sheet .daily-status, #sheet .button, #sheet .friend-scores li, #sheet p, "
    "#difficulty-chip, .chip-daily"
)
"""The texts measured for a cut: the calendar's, the result's, the leaderboard's, the chip's."""


def measured(page: Any, name: str) -> None:
    """The daily clock's measure (test_browser_daily_clock.measured) of these texts."""
    measure(page, name, TEXTS)


def friend_played(browser: Any, live_server: str, day: str, name: str) -> tuple[int, str]:
    """A friend with a name plays ``day``'s PEACEFUL daily on its day and makes a challenge of
    a regular game; their daily's score and the challenge's code."""
    context = browser.new_context()
    at(context, f"{day}T09:00:00")
    post = partial(post_as, context, live_server)
    named = context.request.put(f"{live_server}/api/players/me", data={"name": name})
    assert named.ok, named.text()
    daily = play_through(post, post("/api/daily/peaceful", {}), to_the_end=True)
    game = play_through(
        post, post("/api/games", {"difficulty": "peaceful", "seed": 5}), to_the_end=True
    )
    code = post("/api/challenges", {"game_id": game["id"]})["code"]
    context.close()
    return daily["score"]["total"], code


@pytest.mark.parametrize("language", ["en", "et", "sv"])
def test_a_missed_day_is_played_from_the_calendar_and_set_beside_its_day(
    browser: Any, live_server: str, language: str
) -> None:
    day = DAYS[language]
    later = (date.fromisoformat(day) + timedelta(days=3)).isoformat()
    number_of_day = (date.fromisoformat(day) - date(2026, 11, 30)).days
    friend = f"Mari{language.upper()}"
    theirs, code = friend_played(browser, live_server, day, friend)

    context = browser.new_context(
        viewport={"width": 360, "height": 640}, locale=LOCALES[language], reduced_motion="reduce"
    )
    at(context, f"{later}T12:00:00")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(live_server)
    page.wait_for_selector("#app[aria-busy='false'] [data-intent='roll']")
    post = partial(post_as, page, live_server)
    # the player took the friend's challenge once: they are friends
    play_through(post, post(f"/api/challenges/{code}/games", {}), to_the_end=True)
    page.reload()
    page.wait_for_selector("#app[aria-busy='false']")
    page.keyboard.press("Escape")  # (the challenge's result, shown again after the reload)

    # DAILY → PAST DAILIES: the month's days, newest first; the friend's day has PLAY
    page.click("#menu-button")
    page.click("#sheet [data-intent='open'][data-screen='daily']")
    sheet = page.locator("#sheet")
    sheet.locator("[data-intent='open'][data-screen='pastdaily']").click()
    expect(sheet.locator(".past-days")).to_be_visible()
    expect(page.locator("#sheet-title")).to_have_text(words(language, "title_past_dailies"))
    rows = sheet.locator(".past-day")
    expect(rows.first).to_contain_text(words(language, "daily_number", number=number_of_day + 3))
    expect(rows.first.locator(".daily-status")).to_have_text(
        words(language, "past_daily_state_not_over")
    )
    row = sheet.locator(".past-day", has_text=words(language, "daily_number", number=number_of_day))
    expect(row.locator(".daily-status")).to_have_text(words(language, "daily_not_played"))
    measured(page, f"past-daily-calendar-{language}")

    # PLAY: the day's dice on the board, marked as a past daily
    row.locator("[data-intent='pastdaily-play']").click()
    expect(page.locator("#sheet")).to_be_hidden()
    chip = page.locator("#difficulty-chip.daily-chip")
    expect(chip).to_contain_text(words(language, "past_daily_chip", number=number_of_day))
    measured(page, f"past-daily-board-{language}")
    regular = page.request.get(f"{live_server}/api/games/current").json()
    assert regular is None or regular["past_daily"] is None  # (the regular game, untouched)
    game_id = page.evaluate("localStorage.getItem('magdagdon.lastGame')")
    past = page.request.get(f"{live_server}/api/games/{game_id}").json()
    assert past["past_daily"] == {"date": day, "number": number_of_day}
    # played up to its last action through the API (the page's cookie), the last in the page
    # (after a reload: it is still the game on the board)
    over = finish_in_page(page, live_server, play_through(post, past))
    assert over["status"] == "over"
    mine = over["score"]["total"]
    expect(sheet.locator(".daily-day")).to_contain_text(
        words(language, "past_daily_number", number=number_of_day)
    )
    expect(sheet).to_contain_text(words(language, "past_daily_outside"))
    friends = sheet.locator(".friend-scores li")
    expect(friends).to_have_count(1)
    expect(friends).to_contain_text(friend)
    expect(friends.locator(".num")).to_have_text(number(theirs))
    better = 1 if theirs > mine else 0
    expect(sheet.locator(".daily-me")).to_contain_text(
        words(language, "past_daily_would_rank", rank=better + 1, players=1, percentile=0).split(
            " · "
        )[0]
    )
    measured(page, f"past-daily-over-{language}")

    # the calendar says it was played later, with the score; its LEADERBOARD shows it apart
    page.keyboard.press("Escape")
    page.click("#difficulty-chip")
    expect(sheet.locator(".past-days")).to_be_visible()
    row = sheet.locator(".past-day", has_text=words(language, "daily_number", number=number_of_day))
    expect(row.locator(".daily-status")).to_contain_text(
        words(language, "past_daily_state_past_played", score=number(mine))
    )
    row.locator("[data-intent='leaderboard']").click()
    expect(sheet.locator(".past-daily-me")).to_contain_text(
        words(language, "past_daily_your_game", score=number(mine))
    )
    expect(sheet.locator(".scores-table tbody tr")).to_have_count(1)  # the friend's daily only
    expect(sheet.locator(".friend-scores li")).to_contain_text(friend)
    measured(page, f"past-daily-leaderboard-{language}")
    assert errors == []
    context.close()
