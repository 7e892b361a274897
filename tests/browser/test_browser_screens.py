"""Screens: languages, settings, high scores and names, rules, about, reload, lost connection."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from ..utils.api import ViewPlayer
from ..utils.ui import UiPlayer, screenshot
from .conftest import player_page
from .test_browser_play import open_game
from .test_browser_replay import words


class PageClient:
    """The page's own HTTP session, for quick set-up through the API (same player cookie)."""

    def __init__(self, page: Any, base: str) -> None:
        self.page, self.base = page, base

    def post(self, url: str, *, json: Any = None) -> Any:
        return _Response(self.page.request.post(self.base + url, data=json))

    def get(self, url: str) -> Any:
        return _Response(self.page.request.get(self.base + url))


class _Response:
    def __init__(self, r: Any) -> None:
        self.status_code = r.status
        self._json = r.json()

    def json(self) -> Any:
        return self._json


def finish_game_quickly(page: Any, base: str, difficulty: str, seed: int) -> Any:
    """Finish a game through the API as this page's player."""
    client = PageClient(page, base)
    view = client.post(
        "/api/games", json={"difficulty": difficulty, "seed": seed, "abandon": True}
    ).json()
    assert "phase" in view, view
    bot = ViewPlayer()
    while view["phase"] != "over":
        body = {"version": view["version"], "action": bot.next_action(view)}
        view = client.post(f"/api/games/{view['id']}/actions", json=body).json()
        assert "phase" in view, (body, view)
    return view


def test_language_follows_the_browser_and_can_be_changed(browser: Any, live_server: str) -> None:
    context = browser.new_context(locale="sv-SE", viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(live_server)
    page.wait_for_selector("[data-intent='roll']")
    assert page.locator("[data-intent='roll']").inner_text() == "KASTA"
    assert page.locator("html").get_attribute("lang") == "sv"
    # not chosen yet: the same page's storage in a browser that now says Estonian follows it
    assert roll_in(browser, live_server, context.storage_state(), "et-EE") == "VEERETA"
    page.click("#menu-button")
    page.click("#sheet [data-intent='open'][data-screen='settings']")
    page.select_option("#language-select", "et")
    expect(page.locator("#sheet-title")).to_have_text("Seaded")
    page.click("[data-intent='close']")
    assert page.locator("[data-intent='roll']").inner_text() == "VEERETA"
    page.reload()
    page.wait_for_selector("[data-intent='roll']")
    assert page.locator("[data-intent='roll']").inner_text() == "VEERETA"  # remembered
    # chosen: kept whatever the browser says
    assert roll_in(browser, live_server, context.storage_state(), "en-US") == "VEERETA"
    context.close()


def roll_in(browser: Any, base: str, storage: Any, locale: str) -> str:
    """The ROLL button's words on a page with this storage (cookies, localStorage) in a
    browser whose language is `locale`."""
    context = browser.new_context(locale=locale, storage_state=storage)
    page = context.new_page()
    page.goto(base)
    page.wait_for_selector("[data-intent='roll']")
    words: str = page.locator("[data-intent='roll']").inner_text()
    context.close()
    return words


def test_changing_difficulty_asks_first_then_starts_a_new_game(page: Any, live_server: str) -> None:
    ui = open_game(page, live_server, "peaceful", 50)
    first = ui.perform({"type": "roll"})
    page.click("#difficulty-chip")
    page.click("[data-intent='set-difficulty'][data-difficulty='nightmare']")
    assert page.locator("#confirm").is_visible()
    page.click("[data-intent='confirm-no']")
    assert ui.view()["id"] == first["id"]
    assert page.locator("#sheet").is_visible()  # still in SETTINGS
    page.click("[data-intent='set-difficulty'][data-difficulty='nightmare']")
    page.click("#confirm-yes")
    page.wait_for_selector("#difficulty-chip:has-text('NIGHTMARE')")
    ui.game_id = None
    assert ui.view()["difficulty"] == "nightmare"
    assert (
        page.request.get(f"{live_server}/api/games/{first['id']}").json()["status"] == "abandoned"
    )


def test_high_scores_and_display_name(page: Any, live_server: str) -> None:
    page.goto(live_server)
    page.wait_for_selector("[data-intent='roll']")
    finished = finish_game_quickly(page, live_server, "survival", 9)
    page.click("#menu-button")
    page.click("#sheet [data-intent='open'][data-screen='scores']")
    page.click("[data-intent='scores-difficulty'][data-difficulty='survival']")
    page.click("[data-intent='scores-scope'][data-scope='me']")
    row = page.locator("tr.mine").first
    row.wait_for()
    assert str(finished["final_score"]["total"]) in row.inner_text()
    page.fill("#name-input", "<script>alert(1)</script>")
    page.click("form[data-form='name'] button[type='submit']")
    page.wait_for_selector(".error-text")
    # the table asked for after the refusal drawn (until then it says "loading"): the form
    # drawn again while Playwright typed into it lost the text, and the refused name was sent
    # again (on a loaded machine)
    row.wait_for()
    page.fill("#name-input", "Majduška")
    page.click("form[data-form='name'] button[type='submit']")
    page.wait_for_selector("tr.mine:has-text('Majduška')")
    screenshot(page, "highscores-390x844")


def test_reload_continues_the_game(page: Any, live_server: str) -> None:
    ui = open_game(page, live_server, "peaceful", 60)
    view = ui.perform({"type": "roll"})
    die = next(d for d in view["dice"] if d["legal_cells"])
    view = ui.perform({"type": "stage", "die": die["index"], "cell": die["legal_cells"][0]})
    page.reload()
    page.wait_for_selector("[data-intent='confirm']")
    square = page.locator(f"[data-square='{die['legal_cells'][0]}']")
    assert "staged" in (square.get_attribute("class") or "")
    assert ui.view() == view


def test_rules_in_each_language(page: Any, live_server: str) -> None:
    page.goto(live_server)
    page.wait_for_selector("[data-intent='roll']")
    languages = (
        ("et", "EESMÄRK", "Reeglid", "Seaded"),
        ("sv", "MÅL", "Regler", "Inställningar"),
        ("en", "GOAL", "Rules", "Settings"),
    )
    for language, heading, title, settings in languages:
        page.click("#menu-button")
        page.click("#sheet [data-intent='open'][data-screen='settings']")
        page.select_option("#language-select", language)
        expect(page.locator("#sheet-title")).to_have_text(settings)
        page.click("[data-intent='close']")
        page.keyboard.press("?")
        page.wait_for_selector(f"#sheet-body h3:has-text('{heading}')")
        assert page.locator("#sheet-title").inner_text() == title
        text = page.locator("#sheet-body").inner_text()
        assert "MAGDAGDON" in text and "Mängige numbrit" not in text
        assert page.locator("#sheet-body li").count() > 10
        page.click("[data-intent='close']")


def test_about_has_the_dedication(page: Any, live_server: str) -> None:
    page.goto(live_server)
    page.wait_for_selector("#app[aria-busy='false']")  # the page's scripts are running
    page.click("#menu-button")
    page.click("#sheet [data-intent='open'][data-screen='about']")
    assert "Majduška" in page.locator("#sheet-body").inner_text()
    assert page.locator("#sheet-body .heart").is_visible()


def test_lost_connection_shows_a_message_and_retries(page: Any, live_server: str) -> None:
    ui = open_game(page, live_server, "peaceful", 70)
    failures = {"left": 2}

    def flaky(route: Any) -> None:
        if failures["left"]:
            failures["left"] -= 1
            route.abort("connectionrefused")
        else:
            route.continue_()

    page.route("**/api/games/*/actions", flaky)
    page.click("[data-intent='roll']")
    page.wait_for_selector("#connection:not([hidden])")
    assert "Retrying" in page.locator("#connection").inner_text()
    view = ui.wait_for_version(1)
    page.wait_for_selector("#connection[hidden]", state="attached")
    assert view["phase"] in ("place", "magdagdon")


def test_new_player_page_plays_a_turn_from_scratch(page: Any, live_server: str) -> None:
    page.goto(live_server)
    page.wait_for_selector("[data-intent='roll']")
    ui = UiPlayer(page, live_server)
    assert ui.view()["phase"] == "roll"


def test_a_name_with_markup_is_shown_as_text(browser: Any, tmp_path: Any) -> None:
    """The API refuses such names; one in the database anyway (a tampered or older row) is
    still drawn as text, never as markup."""
    from sqlalchemy import create_engine, text

    from ..utils.server import running_server

    url = f"sqlite:///{tmp_path / 'names.db'}"
    evil = '<img src=x onerror="document.title=1"><script>document.title=2</script>'
    with running_server(url) as base:
        context = browser.new_context(viewport={"width": 390, "height": 844})
        page = context.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda d: dialogs.append(d.message))
        page.goto(base)
        page.wait_for_selector("[data-intent='roll']")
        finish_game_quickly(page, base, "nightmare", 5)
        engine = create_engine(url)
        with engine.begin() as conn:
            conn.execute(text("UPDATE players SET name = :n"), {"n": evil})
        engine.dispose()
        page.click("#menu-button")
        page.click("#sheet [data-intent='open'][data-screen='scores']")
        page.click("[data-intent='scores-difficulty'][data-difficulty='nightmare']")
        cell = page.locator("tr.mine td").nth(1)
        cell.wait_for()
        assert cell.inner_text() == evil
        assert page.locator("#sheet-body img, #sheet-body script").count() == 0
        assert page.title() == "MAGDAGDON" and not dialogs
        context.close()


def test_a_damaged_game_does_not_lock_the_player_out(browser: Any, tmp_path: Any) -> None:
    from sqlalchemy import create_engine, text

    from ..utils.server import running_server

    url = f"sqlite:///{tmp_path / 'damaged.db'}"
    with running_server(url) as base:
        context = browser.new_context(viewport={"width": 390, "height": 844})
        page = context.new_page()
        page.goto(base)
        page.wait_for_selector("[data-intent='roll']")
        page.click("[data-intent='roll']")
        page.wait_for_selector("#app[aria-busy='false']")
        engine = create_engine(url)
        with engine.begin() as conn:  # no snapshot, and a log that cannot replay
            conn.execute(text("UPDATE games SET state = NULL, version = version + 1"))
            conn.execute(
                text("UPDATE game_actions SET action = :a WHERE seq = 0"),
                {"a": '{"type": "confirm"}'},
            )
        engine.dispose()
        page.reload()
        page.wait_for_selector("[data-intent='roll']")  # a new game, ready to roll
        games = UiPlayer(page, base).view()
        assert games["version"] == 0 and games["phase"] == "roll"
        context.close()


CLOSED_REMEMBERED = """id => {
    try { return JSON.parse(localStorage.getItem('magdagdon.closedResults')).includes(id); }
    catch { return false; }
}"""
"""Whether the page has remembered that the game's result was closed."""


def test_a_closed_result_stays_closed_after_a_reload(page: Any, live_server: str) -> None:
    """A finished game's result sheet came back on every reload once closed, until NEW GAME:
    once closed (the close button or Escape) it stays closed, and RESULT on the board opens
    it."""
    page.goto(live_server)
    page.wait_for_selector("#app[aria-busy='false'] [data-intent='roll']")
    result = page.locator("#actions [data-intent='open'][data-screen='over']")
    for seed, close in ((12, "button"), (13, "Escape")):
        final = finish_game_quickly(page, live_server, "survival", seed)
        shown = str(final["final_score"]["total"]).replace("-", "−")
        # the page shows the last game it remembers again, when it is finished
        page.evaluate("id => localStorage.setItem('magdagdon.lastGame', id)", final["id"])
        page.reload()
        page.wait_for_selector("#sheet[open] .final-score")  # not closed yet: shown again
        assert page.locator(".final-score").inner_text() == shown
        if close == "Escape":
            page.keyboard.press("Escape")
        else:
            page.click("#sheet [data-intent='close']")
        page.wait_for_selector("#sheet:not([open])", state="attached")
        # remembered when the dialog's "close" event comes, a task after Escape closed it
        page.wait_for_function(CLOSED_REMEMBERED, arg=final["id"])
        page.reload()
        result.wait_for()  # the finished game on the board
        page.wait_for_selector("#app[aria-busy='false']")
        assert not page.locator("#sheet").evaluate("sheet => sheet.open"), close
        result.click()  # the result is a tap away
        page.wait_for_selector("#sheet[open] .final-score")
        assert page.locator(".final-score").inner_text() == shown
        page.keyboard.press("Escape")


PHONES = [(360, 740), (375, 667), (390, 844)]


def lines_of(page: Any, selector: str) -> int:
    """How many lines the element's text takes."""
    count: int = page.evaluate(
        """selector => {
            const range = document.createRange();
            range.selectNodeContents(document.querySelector(selector));
            return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
        }""",
        selector,
    )
    return count


@pytest.mark.parametrize("language", ["en", "et", "sv"])
def test_offline_the_header_and_the_note_read_cleanly(
    browser: Any, live_server: str, language: str
) -> None:
    """Offline (the API unreachable) the difficulty chip was an empty pill and the note that
    the game waits wrapped onto five lines: no chip before there is a game, and the note (the
    game's and the replay's) takes one or two lines on a phone."""
    for width, height in PHONES:
        context = browser.new_context(
            viewport={"width": width, "height": height}, locale=language, reduced_motion="reduce"
        )
        page = context.new_page()
        page.route("**/api/**", lambda route: route.abort("internetdisconnected"))
        for path, key in (
            ("/", "connection_lost"),
            ("/replay/0123456789abcdef01234567", "replay_offline"),
        ):
            page.goto(live_server + path)
            note = page.locator("#connection:not([hidden])")
            note.wait_for()
            assert note.inner_text() == words(language, key)
            assert lines_of(page, "#connection") <= 2, (path, width)
            box = note.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= width
            if path == "/":
                expect(page.locator("#difficulty-chip")).to_be_hidden()
                expect(page.locator("#menu-button")).to_be_visible()
            for scheme in ("light", "dark"):
                page.emulate_media(color_scheme=scheme)
                name = "offline" if path == "/" else "replay-offline"
                screenshot(page, f"{name}-{language}-{scheme}-{width}x{height}")
            page.emulate_media(color_scheme="light")
        context.close()


def test_rules_offline_say_so_and_load_once_back(browser: Any, live_server: str) -> None:
    """RULES offline stayed on "Loading…" (the rules texts are files of the page, which the
    service worker may not hold): it says the network is missing, and TRY AGAIN loads them.
    (No service worker here: one that had installed by then would answer the rules from its
    cache, which the test's routes do not see, and the test would pass or fail on its timing.)"""
    with player_page(browser, service_workers="block") as page:
        rules_offline_then_back(page, live_server)


def rules_offline_then_back(page: Any, live_server: str) -> None:
    """RULES with the rules files unreachable, then TRY AGAIN with them back."""
    page.goto(live_server)
    page.wait_for_selector("#app[aria-busy='false'] [data-intent='roll']")
    page.route("**/rules/*.txt", lambda route: route.abort("internetdisconnected"))
    page.keyboard.press("?")
    alert = page.locator("#sheet-body .error-text[role='alert']")
    expect(alert).to_have_text(words("en", "rules_offline"))
    assert "Loading" not in page.locator("#sheet-body").inner_text()
    screenshot(page, "rules-offline-390x844")
    page.unroute("**/rules/*.txt")
    page.click("#sheet [data-intent='open'][data-screen='rules']")  # TRY AGAIN
    page.wait_for_selector("#sheet-body h3:has-text('GOAL')")
    assert page.locator("#sheet-body .error-text").count() == 0
