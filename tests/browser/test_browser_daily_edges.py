"""The daily challenge's edges in the browser: a daily whose day ends before it is finished
(said, with today's dailies), the keyboard's focus kept when a sheet is drawn again, a daily's
replay link opened by someone else the same day (today's dailies offered), the guided tour
kept out of a daily's one attempt, and BACK TO MY GAME when that game ended meanwhile."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from ..utils.ui import UiPlayer
from .test_browser_daily import (
    api,
    day_context,
    open_menu_item,
    open_page,
    play_through_api,
)
from .test_browser_share import Held

DAY = "2027-02-03"
NEXT = "2027-02-04"


def test_a_daily_ended_midgame_and_on_the_next_visit_is_said(
    browser: Any, live_server: str
) -> None:
    context = day_context(browser, live_server, DAY)
    page = open_page(context, live_server)
    open_menu_item(page, "daily")
    page.click("#sheet [data-intent='daily-play'][data-difficulty='survival']")
    expect(page.locator("#sheet")).not_to_be_visible()
    ui = UiPlayer(page, live_server)
    games = api(page, live_server, "GET", "/api/daily")["games"]
    ui.game_id = next(g["game_id"] for g in games if g["difficulty"] == "survival")
    view = ui.perform({"type": "roll"})
    number = view["daily"]["number"]
    # the day ends, and its two hours of grace, while the player thinks (the next day at noon):
    # the next action is refused, and said
    page.set_extra_http_headers({"X-Magdagdon-Test-Date": NEXT})
    die = next(d for d in view["dice"] if d["legal_cells"])
    page.click(f"[data-die='{die['index']}']")
    page.click(f"[data-square='{die['legal_cells'][0]}']")
    notice = page.locator("#sheet .daily-notice")
    expect(notice).to_have_text(
        f"Daily #{number} was not finished by 02:00 UTC the day after: it can no longer be "
        "played. Here are today's."
    )
    expect(page.locator("#sheet .daily-day")).to_contain_text(f"Daily #{number + 1}")
    stored = api(page, live_server, "GET", f"/api/games/{view['id']}")
    assert stored["version"] == view["version"]  # nothing was applied
    # the next visit (the next day) says it too, over the regular game
    page.reload()
    expect(page.locator("#sheet .daily-notice")).to_be_visible()
    expect(page.locator("#difficulty-chip")).not_to_contain_text("Daily")
    page.keyboard.press("Escape")
    assert not page.errors, page.errors
    context.close()


def test_the_keyboard_stays_on_the_control_a_sheet_draws_again(
    browser: Any, live_server: str
) -> None:
    context = day_context(browser, live_server, "2026-12-05")
    page = open_page(context, live_server)
    open_menu_item(page, "daily")
    page.locator("#sheet [data-intent='leaderboard']").last.click()  # All leaderboards
    expect(page.locator("#sheet .daily-day")).to_contain_text("Daily #5")
    previous = page.locator("#sheet [data-focus='previous-day']")
    previous.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#sheet .daily-day")).to_contain_text("Daily #4")
    expect(previous).to_be_focused()
    page.keyboard.press("Enter")  # again, without looking for it
    expect(page.locator("#sheet .daily-day")).to_contain_text("Daily #3")
    expect(previous).to_be_focused()
    survival = page.locator("#sheet [data-intent='leaderboard'][data-difficulty='survival']")
    survival.first.focus()
    page.keyboard.press("Enter")
    expect(survival.first).to_have_attribute("aria-pressed", "true")
    expect(survival.first).to_be_focused()
    # a screen that replaces the last: the focus on the sheet's content, not on <body>
    page.keyboard.press("Escape")
    page.click("#menu-button")
    page.locator("#sheet [data-screen='stats']").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#sheet-title")).to_have_text("Statistics")
    assert page.evaluate("document.activeElement.id") == "sheet-body"
    tab = page.locator("#sheet [data-intent='stats-difficulty'][data-difficulty='nightmare']")
    tab.focus()
    page.keyboard.press("Enter")
    expect(tab).to_have_attribute("aria-pressed", "true")
    expect(tab).to_be_focused()
    assert not page.errors, page.errors
    context.close()


def test_a_daily_replay_opened_the_same_day_offers_todays_dailies(
    browser: Any, live_server: str
) -> None:
    day = "2027-02-06"
    context = day_context(browser, live_server, day)
    page = open_page(context, live_server)
    mine = api(page, live_server, "POST", "/api/daily/nightmare")
    over = play_through_api(page, live_server, mine, to_the_end=True)
    context.close()
    friend = day_context(browser, live_server, day)
    page = friend.new_page()
    page.goto(f"{live_server}/replay/{over['id']}")
    expect(page.locator(".replay-error")).to_have_text(
        "This daily can be watched once its day is over (02:00 UTC the day after)."
    )
    expect(page.locator(".play-link")).to_have_count(0)  # one way on, not two
    page.click("a.button.primary")
    expect(page.locator("#sheet-title")).to_have_text("Daily challenge")
    expect(page.locator("#sheet [data-intent='daily-play']")).to_have_count(3)
    assert page.url == f"{live_server}/"  # the list opens once: a reload goes on with the game
    page.click("#sheet [data-intent='daily-play'][data-difficulty='peaceful']")
    expect(page.locator("#sheet")).to_be_hidden()
    # the keyboard goes on at the board (the sheet had opened by itself, with no opener)
    expect(page.locator("[data-intent='roll']")).to_be_focused()
    page.reload()
    page.wait_for_selector("[data-intent='roll']")
    expect(page.locator("#sheet")).to_be_hidden()
    friend.close()


def test_the_guided_tour_stays_out_of_a_daily(browser: Any, live_server: str) -> None:
    context = day_context(browser, live_server, "2027-02-07", tour=True)
    page = context.new_page()
    page.goto(live_server)
    page.wait_for_selector("#tour")
    page.evaluate("document.querySelector('#menu-button').click()")
    page.click("#sheet [data-intent='open'][data-screen='daily']")
    page.click("#sheet [data-intent='daily-play'][data-difficulty='peaceful']")
    expect(page.locator("#difficulty-chip")).to_contain_text("Daily")
    expect(page.locator("#tour")).to_have_count(0)
    # put off, not seen: a reload on the daily does not start it; the regular game does
    page.reload()
    page.wait_for_selector("#app[aria-busy='false']")
    expect(page.locator("#tour")).to_have_count(0)
    page.click("#menu-button")
    page.click("#sheet [data-intent='back-to-game']")
    expect(page.locator("#difficulty-chip")).not_to_contain_text("Daily")  # the game is back
    page.reload()
    expect(page.locator("#tour")).to_be_visible()
    context.close()


def on_the_leaderboard(
    browser: Any, live_server: str, day: str, locale: str
) -> tuple[Any, Any, Any]:
    """A new player's PEACEFUL daily of ``day`` played to its end, its leaderboard open: the
    context, the page and the player's own row."""
    context = day_context(browser, live_server, day, locale=locale)
    page = open_page(context, live_server)
    daily = api(page, live_server, "POST", "/api/daily/peaceful")
    play_through_api(page, live_server, daily, to_the_end=True)
    open_menu_item(page, "daily")
    page.click("#sheet [data-intent='leaderboard'][data-difficulty='peaceful'] >> nth=0")
    return context, page, page.locator("#sheet tr.mine")


def test_a_nameless_player_names_themselves_on_the_leaderboard(
    browser: Any, live_server: str
) -> None:
    context, page, mine = on_the_leaderboard(browser, live_server, "2027-02-08", "sv-SE")
    expect(mine).to_contain_text("Anonym (du)")
    page.fill("#name-input", "<b>x</b>")  # refused: said, and what was typed is kept
    page.keyboard.press("Enter")
    expect(page.locator("#sheet .error-text")).to_be_visible()
    expect(page.locator("#name-input")).to_have_value("<b>x</b>")
    # the table asked for after the refusal drawn (a form drawn again while Playwright types
    # into it lost the text, and the refused name was sent again: on a loaded machine)
    expect(page.locator("#sheet [aria-busy='true']")).to_have_count(0)
    page.fill("#name-input", "Saga")
    page.keyboard.press("Enter")
    expect(mine).to_contain_text("Saga (du)")
    expect(page.locator("#name-input")).to_have_count(0)  # named: the form has done its work
    assert page.evaluate("document.activeElement.id") == "sheet-body"
    assert api(page, live_server, "GET", "/api/players/me")["name"] == "Saga"
    assert not page.errors, page.errors
    context.close()


COUNT_TABLES_READ = """() => {
  window.tablesRead = 0;
  const json = Response.prototype.json;
  Response.prototype.json = function () {
    const read = json.call(this);
    if (new URL(this.url).pathname.endsWith("/leaderboard")) {
      read.finally(() => { window.tablesRead += 1; }).catch(() => {});
    }
    return read;
  };
}"""
"""Counts the leaderboards' answers the page has read (``window.tablesRead``) from now on.
What the page does with an answer follows its reading in the same turn of the page's event
loop (promises' reactions, none of them waiting for anything else), and this count's reaction
is the first: once a test sees the count, the page has drawn the table, or dropped it."""


def test_a_leaderboard_answered_late_does_not_hide_the_name_given_since(
    browser: Any, live_server: str
) -> None:
    """The table asked for after a refused name answers last (held back here): the table of the
    name given since stays (on a loaded machine the name above stayed 'Anonym (du)')."""
    context, page, mine = on_the_leaderboard(browser, live_server, "2027-02-09", "en-US")
    expect(mine).to_contain_text("Anonymous (you)")
    held: list[Any] = []

    def hold_the_first(route: Any) -> None:  # the next table, read now, is answered later
        if held:
            route.continue_()
        else:
            held.append((route, route.fetch()))

    page.route("**/leaderboard", hold_the_first)
    with page.expect_request("**/leaderboard") as late:
        page.fill("#name-input", "<b>x</b>")
        page.keyboard.press("Enter")
    expect(page.locator("#sheet .error-text")).to_be_visible()
    page.fill("#name-input", "Maret")  # (a name is one player's on a server)
    page.keyboard.press("Enter")
    expect(mine).to_contain_text("Maret (you)")
    assert [route.request for route, _ in held] == [late.value]
    route, before_the_name = held[0]
    page.evaluate(COUNT_TABLES_READ)
    route.fulfill(response=before_the_name)  # the table from before the name, now
    page.wait_for_function("() => window.tablesRead >= 1")  # (and so what the page did with it)
    expect(mine).to_contain_text("Maret (you)")
    context.close()


def test_a_name_selected_as_the_table_arrives_is_typed_over(browser: Any, live_server: str) -> None:
    """The player selects the refused name to type over it while the table asked for after
    the refusal is on its way; the table arrives and the form is drawn again: the selection
    is kept, so what is typed next replaces the name (it went after it, or before it)."""
    context, page, mine = on_the_leaderboard(browser, live_server, "2027-02-12", "en-US")
    expect(mine).to_contain_text("Anonymous (you)")
    held = Held(page, "**/leaderboard")
    with page.expect_request("**/leaderboard"):
        page.fill("#name-input", "<b>x</b>")
        page.keyboard.press("Enter")
    expect(page.locator("#sheet .error-text")).to_be_visible()
    expect(page.locator("#sheet [aria-busy='true']")).to_have_count(1)  # (the table: held)
    field = page.locator("#name-input")
    field.select_text()
    selection = "e => [document.activeElement === e, e.selectionStart, e.selectionEnd]"
    assert field.evaluate(selection) == [True, 0, len("<b>x</b>")]
    assert len(held.routes) == 1
    held.release()
    expect(page.locator("#sheet [aria-busy='true']")).to_have_count(0)  # drawn again
    assert field.evaluate(selection) == [True, 0, len("<b>x</b>")]
    page.keyboard.type("Vilja")
    expect(field).to_have_value("Vilja")
    page.keyboard.press("Enter")
    expect(mine).to_contain_text("Vilja (you)")
    assert not page.errors, page.errors
    context.close()


def test_back_to_a_game_finished_meanwhile_shows_how_it_ended(
    browser: Any, live_server: str
) -> None:
    """The regular game left for a daily is finished elsewhere (another tab): BACK TO MY GAME
    shows its result, not a new game over it; NEW GAME from there starts the next."""
    context = day_context(browser, live_server, "2027-02-09")
    page = open_page(context, live_server)
    regular = UiPlayer(page, live_server).perform({"type": "roll"})
    open_menu_item(page, "daily")
    page.click("#sheet [data-intent='daily-play'][data-difficulty='nightmare']")
    expect(page.locator("#difficulty-chip")).to_contain_text("Daily")
    over = play_through_api(page, live_server, regular, to_the_end=True)  # the other tab
    page.click("#menu-button")
    page.click("#sheet [data-intent='back-to-game']")
    expect(page.locator("#sheet-title")).to_have_text("Game over")
    expect(page.locator(".final-score")).to_have_text(
        str(over["final_score"]["total"]).replace("-", "−")
    )
    expect(page.locator("#difficulty-chip")).to_have_text("PEACEFUL")
    page.click("#sheet [data-intent='new-game']")
    expect(page.locator("[data-intent='roll']")).to_be_visible()
    assert api(page, live_server, "GET", "/api/games/current")["id"] != regular["id"]
    assert not page.errors, page.errors
    context.close()
