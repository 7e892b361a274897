"""The daily challenge in the browser: from the menu to a daily on the board and back to the
player's own game, a reload in the middle, the result with the coach's score, rank, SHARE (the
clipboard's text checked) and WATCH REPLAY, the leaderboard before and after the day ended, two
players meeting the same dice, and a daily already played opening its leaderboard.

Each test lives on a day of its own (the test server reads ``X-Magdagdon-Test-Date``), so their
leaderboards do not meet. Most of a daily is played through the API in the page's own session
(same player), the last action through the page."""

from __future__ import annotations

import re
import time
from functools import partial
from typing import Any

from playwright.sync_api import expect

from ..utils.api import COACH_WAIT, COACH_WAIT_MS, ViewPlayer, ends_the_game, play_through
from ..utils.ui import UiPlayer, screenshot
from .test_browser_a11y import serious_violations

NO_WEB_SHARE = "Object.defineProperty(navigator, 'share', { value: undefined })"


def day_context(
    browser: Any,
    base: str,
    day: str,
    *,
    locale: str = "en-US",
    viewport: dict[str, int] | None = None,
    scheme: str = "light",
    **options: Any,
) -> Any:
    """A new player's context living on ``day``; its clipboard readable, no Web Share."""
    context = browser.new_context(
        viewport=viewport or {"width": 390, "height": 844},
        locale=locale,
        color_scheme=scheme,
        reduced_motion="reduce",
        extra_http_headers={"X-Magdagdon-Test-Date": day},
        **options,
    )
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    context.add_init_script(NO_WEB_SHARE)
    return context


def open_page(context: Any, base: str) -> Any:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    page.goto(base)
    page.wait_for_selector("#app[aria-busy='false'] [data-intent='roll']")
    return page


def api(page: Any, base: str, method: str, path: str, body: Any = None) -> Any:
    """A request in the page's own session (its cookies and test date); the JSON answer."""
    r = page.request.fetch(base + path, method=method, data=body)
    assert r.status < 300, (path, r.status, r.text())
    return r.json()


def today(page: Any, base: str) -> Any:
    return api(page, base, "GET", "/api/daily")


def daily_game(page: Any, base: str, difficulty: str) -> Any:
    """This player's daily of that difficulty today (from GET /api/daily and the game)."""
    entry = next(g for g in today(page, base)["games"] if g["difficulty"] == difficulty)
    return api(page, base, "GET", f"/api/games/{entry['game_id']}")


def play_through_api(page: Any, base: str, view: Any, *, to_the_end: bool = False) -> Any:
    """Play a game through the API up to its last action (or to its end); the view."""
    post = partial(api, page, base, "POST")
    return play_through(post, view, to_the_end=to_the_end)


def finish_in_page(page: Any, base: str, view: Any) -> Any:
    """The last action of a game through the page (reloaded to show where the game stands)."""
    page.reload()
    page.wait_for_selector("#app[aria-busy='false']")
    ui = UiPlayer(page, base)
    ui.game_id = view["id"]
    action = ViewPlayer().next_action(view)
    assert ends_the_game(view, action)
    return ui.perform(action)


def open_menu_item(page: Any, screen: str) -> None:
    page.click("#menu-button")
    page.click(f"#sheet [data-intent='open'][data-screen='{screen}']")


def test_a_daily_beside_the_regular_game(browser: Any, live_server: str) -> None:
    """PLAY, back to my game, CONTINUE, a reload, the result with the coach and SHARE, the
    leaderboard with the player's own row, and the regular game where it was."""
    context = day_context(browser, live_server, "2026-12-02")
    page = open_page(context, live_server)
    regular = UiPlayer(page, live_server).perform({"type": "roll"})  # the regular game, begun

    open_menu_item(page, "daily")
    sheet = page.locator("#sheet")
    expect(sheet.locator(".daily-day")).to_have_text("Daily #2 · December 2, 2026")
    expect(sheet.locator(".daily-item")).to_have_count(3)
    expect(sheet.locator("[data-intent='daily-play']")).to_have_text(["PLAY"] * 3)
    screenshot(page, "daily-list-en-390x844")
    assert serious_violations(page) == []
    sheet.locator("[data-intent='daily-play'][data-difficulty='peaceful']").click()
    chip = page.locator("#difficulty-chip")
    expect(chip).to_have_text(re.compile(r"Daily #2\s*PEACEFUL"))
    assert chip.get_attribute("aria-label") == "Daily #2, PEACEFUL: today's games"
    daily = daily_game(page, live_server, "peaceful")
    finish_by = "2026-12-03T02:00:00Z"  # (two hours after its day)
    assert daily["daily"] == {"date": "2026-12-02", "number": 2, "finish_by": finish_by}
    assert daily["version"] == 0

    # back to the regular game, untouched; then CONTINUE the daily
    page.click("#menu-button")
    page.click("#sheet [data-intent='back-to-game']")
    expect(chip).to_have_text("PEACEFUL")
    assert api(page, live_server, "GET", "/api/games/current")["id"] == regular["id"]
    assert page.locator(".square.number").count() == 0 and page.locator(".die").count() == 4
    open_menu_item(page, "daily")
    continuing = page.locator("#sheet [data-intent='daily-play'][data-difficulty='peaceful']")
    expect(continuing).to_have_text("CONTINUE")
    continuing.click()
    expect(chip).to_have_text(re.compile(r"Daily #2"))

    # most of the daily through the API, a reload (the daily is shown again), the last action
    view = play_through_api(page, live_server, daily)
    final = finish_in_page(page, live_server, view)
    assert final["phase"] == "over" and final["daily"]["number"] == 2
    total = final["final_score"]["total"]
    shown = str(total).replace("-", "−")  # a daily's dice (and so its score) differ by server
    expect(page.locator(".final-score")).to_have_text(shown)
    coach = page.locator("#sheet .daily-coach")
    said = re.compile(r"^The coach scored −?\d+ on these dice\.$")
    expect(coach).to_have_text(said, timeout=COACH_WAIT_MS)
    par = int((coach.inner_text().split("scored ")[1].split(" ")[0]).replace("−", "-"))
    expect(page.locator("#sheet .daily-me")).to_have_text(
        "Place 1 of 1 · as good as or better than 100% of players"
    )
    watch = page.locator("#sheet a.button", has_text="WATCH REPLAY")
    assert watch.get_attribute("href") == f"/replay/{final['id']}"
    screenshot(page, "daily-over-en-390x844")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert serious_violations(page) == []

    page.click("#sheet [data-intent='share']")
    expect(page.locator(".share-note")).to_have_text("Copied to the clipboard.")
    text = page.evaluate("navigator.clipboard.readText()")
    lines = text.split("\n")
    result = f"Score {total} · Coach {par}".replace("-", "−")
    assert lines[:2] == ["MAGDAGDON Daily #2 · PEACEFUL", result]
    assert len(lines) == 7 and all(len(row) == 4 for row in lines[2:6])
    assert lines[6] == f"{live_server}/replay/{final['id']}"

    page.click("#sheet [data-intent='leaderboard']")
    expect(page.locator("#sheet-title")).to_have_text("Leaderboard")
    mine = page.locator("#sheet tr.mine")
    expect(mine).to_contain_text("Anonymous (you)")
    expect(mine.locator("a.watch")).to_have_attribute("href", f"/replay/{final['id']}")
    expect(page.locator("#sheet .daily-facts")).to_have_text(f"1 player finished · Coach: {par}")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "daily-leaderboard-en-390x844")
    assert serious_violations(page) == []

    # the day's list says it is done; BACK TO MY GAME from the board's buttons
    page.keyboard.press("Escape")
    page.click("[data-intent='back-to-game']")
    expect(chip).to_have_text("PEACEFUL")
    current = api(page, live_server, "GET", "/api/games/current")
    assert current["id"] == regular["id"] and current["version"] == regular["version"]
    open_menu_item(page, "daily")
    expect(page.locator("#sheet .daily-item").first).to_contain_text(f"Finished: {shown}")
    assert not page.errors
    context.close()


def test_two_players_meet_the_same_dice_and_watch_after_the_day(
    browser: Any, live_server: str
) -> None:
    """Two players (Swedish and Estonian phones) roll the same dice; before the day ends only
    one's own game can be watched, the day after every game; PLAY on a daily finished
    meanwhile (another tab) opens its leaderboard."""
    day = "2026-12-03"
    first = day_context(browser, live_server, day, locale="sv-SE", scheme="dark")
    second = day_context(
        browser, live_server, day, locale="et-EE", viewport={"width": 360, "height": 740}
    )
    pages = [open_page(first, live_server), open_page(second, live_server)]
    dice = []
    for page in pages:
        open_menu_item(page, "daily")
        page.click("#sheet [data-intent='daily-play'][data-difficulty='nightmare']")
        page.wait_for_selector("#difficulty-chip.daily-chip")
        ui = UiPlayer(page, live_server)
        ui.game_id = daily_game(page, live_server, "nightmare")["id"]
        view = ui.perform({"type": "roll"})
        dice.append([d["value"] for d in view["dice"]])
        labels = [page.locator(f"[data-die='{i}']").get_attribute("aria-label") for i in range(4)]
        assert all(str(v) in (label or "") for v, label in zip(dice[-1], labels, strict=True))
    assert dice[0] == dice[1]
    expect(pages[0].locator("#difficulty-chip")).to_have_text(re.compile(r"Dag nr 3"))
    expect(pages[1].locator("#difficulty-chip")).to_have_text(re.compile(r"Päev nr 3"))

    # the first player finishes in the page; the second meanwhile in "another tab" (the API)
    # while this page still offers CONTINUE, which then opens the leaderboard
    sv, et = pages
    view = play_through_api(sv, live_server, daily_game(sv, live_server, "nightmare"))
    finish_in_page(sv, live_server, view)
    expect(sv.locator("#sheet .daily-coach")).to_contain_text("Tränaren", timeout=COACH_WAIT_MS)
    screenshot(sv, "daily-over-sv-dark-390x844")
    assert sv.evaluate("document.documentElement.scrollWidth") <= 390  # BACK TO MY GAME fits
    assert serious_violations(sv) == []

    open_menu_item(et, "daily")
    resume = et.locator("#sheet [data-intent='daily-play'][data-difficulty='nightmare']")
    expect(resume).to_have_text("JÄTKA")
    mine = play_through_api(
        et, live_server, daily_game(et, live_server, "nightmare"), to_the_end=True
    )
    resume.click()  # 409 daily_played: its leaderboard instead of an error
    expect(et.locator("#sheet-title")).to_have_text("Edetabel")
    expect(et.locator("#sheet .daily-facts")).to_contain_text("2 mängijat on lõpetanud")
    rows = et.locator("#sheet tbody tr")
    expect(rows).to_have_count(2)
    own = et.locator("#sheet tr.mine")
    expect(own).to_contain_text("(sina)")
    expect(own.locator("a.watch")).to_have_attribute("href", f"/replay/{mine['id']}")
    expect(et.locator("#sheet a.watch")).to_have_count(1)  # the other's only once the day ended
    expect(et.locator("#sheet .note")).to_have_text(
        "Teiste mängijate mänge saab vaadata, kui päev on läbi."
    )
    assert et.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(et, "daily-leaderboard-et-360x740")
    assert serious_violations(et) == []

    # the same player the day after: yesterday's leaderboard has every game watchable
    later = day_context(
        browser,
        live_server,
        "2026-12-04",
        locale="et-EE",
        viewport={"width": 360, "height": 740},
        storage_state=second.storage_state(),
    )
    page = open_page(later, live_server)
    expect(page.locator("#difficulty-chip")).not_to_have_class(re.compile("daily-chip"))
    open_menu_item(page, "daily")
    expect(page.locator("#sheet .daily-day")).to_have_text("Päeva mäng nr 4 · 4. detsember 2026")
    page.click("#sheet [data-intent='leaderboard']:has-text('KÕIK EDETABELID')")
    page.click("#sheet [data-intent='leaderboard'][data-difficulty='nightmare']")
    page.click("#sheet [data-intent='leaderboard']:has-text('EELMINE PÄEV')")
    expect(page.locator("#sheet .daily-day")).to_have_text("Päeva mäng nr 3 · 3. detsember 2026")
    expect(page.locator("#sheet a.watch")).to_have_count(2)
    hrefs = page.locator("#sheet a.watch").evaluate_all("links => links.map(a => a.pathname)")
    assert f"/replay/{mine['id']}" in hrefs
    expect(page.locator("#sheet .note:not(.daily-seed)")).to_have_count(0)
    # the day is over: its seed is public, here as on the API
    board = api(page, live_server, "GET", "/api/daily/2026-12-03/nightmare/leaderboard")
    assert board["seed"] and len(board["seed"]) == 64
    expect(page.locator("#sheet .daily-seed")).to_contain_text(board["seed"])
    after = page.locator("#sheet [data-intent='leaderboard']:has-text('JÄRGMINE PÄEV')")
    expect(after).to_be_enabled()
    for p in (sv, et, page):
        assert not p.errors, p.errors
    for context in (first, second, later):
        context.close()


def test_the_coach_score_shows_however_late_it_comes(browser: Any, live_server: str) -> None:
    """On a busy server the coach's game on the daily's dice may end minutes after the
    player's: the result sheet goes on saying the coach is playing, and shows the score once
    the server has it (it asked a few times in the first 19 s and then gave up)."""
    context = day_context(browser, live_server, "2027-04-22")
    context.clock.install()  # the page's timers run on a clock the test moves
    page = open_page(context, live_server)
    daily = api(page, live_server, "POST", "/api/daily/peaceful")
    view = play_through_api(page, live_server, daily)
    # the page shows the daily after a reload (today's, the last game it showed)
    page.evaluate("id => localStorage.setItem('magdagdon.lastGame', id)", daily["id"])

    late = {"par": True, "asked": 0}

    def leaderboard(route: Any) -> None:
        response = route.fetch()
        board = response.json()
        late["asked"] += 1
        route.fulfill(response=response, json={**board, "par": None} if late["par"] else board)

    def game(route: Any) -> None:
        response = route.fetch()
        route.fulfill(response=response, json={**response.json(), "par": None})

    page.route("**/leaderboard", leaderboard)
    page.route(f"**/api/games/{daily['id']}", game)
    page.route(f"**/api/games/{daily['id']}/actions", game)
    final = finish_in_page(page, live_server, view)
    assert final["phase"] == "over"
    coach = page.locator("#sheet .daily-coach")
    expect(coach).to_have_text("The coach is playing these dice…")

    def a_little_later() -> None:
        asked = late["asked"]
        page.clock.run_for(10_000)
        for _ in range(600):  # the request that the timer sent, answered (30 s at most)
            if late["asked"] > asked:
                return
            page.wait_for_timeout(50)
        raise AssertionError("the page did not ask for the coach's score again")

    for _ in range(9):  # 90 s
        a_little_later()
    expect(coach).to_have_text("The coach is playing these dice…")
    board = f"/api/daily/{final['daily']['date']}/peaceful/leaderboard"
    deadline = time.monotonic() + COACH_WAIT  # the server's own par, computed meanwhile
    while api(page, live_server, "GET", board)["par"] is None:
        assert time.monotonic() < deadline, "the par was not computed"
        page.wait_for_timeout(100)
    late["par"] = False
    a_little_later()
    expect(coach).to_have_text(re.compile(r"^The coach scored −?\d+ on these dice\.$"))
    assert not page.errors, page.errors
    context.close()
