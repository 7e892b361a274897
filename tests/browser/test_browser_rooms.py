"""Live rooms in the browser (issue 46): three players, each in a browser context of their
own at a phone's size, make a room, join it by its link and play it to the end at the same
moment: the room rolls for everyone, a player who has ended the turn waits and sees who else
has, each closed turn puts the others' boards in the room's bar, and the end shows the final
standings and every final board.

The rooms' dice are chosen (a test server's ``?seed=``), so the bots play the same game on
every run. The server's clock is the contexts' ``X-Magdagdon-Test-Now``, fixed in the future:
a turn's clock never runs out during a test, whatever the machine's load (a live connection
that does not send the header reads the real time, which is earlier still). Measured at
360×640 and 375×667 in English, Estonian and Swedish, light and dark: the board, the dice,
CONFIRM, the clock and the other players on screen without scrolling, no text cut, axe clean;
the screenshots go to test-artifacts/screenshots.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from functools import partial
from typing import Any

import pytest
from playwright.sync_api import expect

from ..utils.api import COACH_WAIT_MS, ViewPlayer
from ..utils.ui import UiPlayer
from .conftest import player_page
from .test_browser_challenges import fits, post_as
from .test_browser_daily_clock import SIZES, at
from .test_browser_daily_clock import measured as measure
from .test_browser_replay import LOCALES, number, words

NOW = "2031-03-14T12:00:00"
"""The server's moment for every request of these tests (a turn's clock never runs out)."""
TEXTS = (
    "#sheet .button, #sheet p, #sheet li, #difficulty-chip, .chip-daily, .room-status, "
    ".room-wait, #message"
)
"""The texts measured for a cut."""


@contextmanager
def person(
    browser: Any, language: str = "en", width: int = 375, height: int = 667
) -> Iterator[Any]:
    """A player's page (a context of their own: their own cookie) on the fixed clock, asked
    their name once (a room's members are)."""
    with player_page(browser, width, height, locale=LOCALES[language], ask_name=True) as page:
        at(page.context, NOW)
        yield page


def opened(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#app[aria-busy='false']")


def named(page: Any, name: str) -> None:
    """The question of a name, answered."""
    dialog = page.locator("#ask-name")
    expect(dialog).to_be_visible()
    dialog.locator("input").fill(name)
    dialog.locator("button[type='submit']").click()
    expect(dialog).to_have_count(0)


def make_room(page: Any, live_server: str, name: str, clock: str, seed: int) -> str:
    """PLAY TOGETHER → NIGHTMARE, ``clock`` (the button's data-clock) → MAKE A ROOM on the dice
    of ``seed`` (a test server's ``?seed=``); the room's code."""
    opened(page, f"{live_server}/?seed={seed}")
    page.click("#menu-button")
    page.click("#sheet [data-intent='open'][data-screen='room']")
    sheet = page.locator("#sheet")
    sheet.locator("[data-intent='room-difficulty'][data-difficulty='nightmare']").click()
    sheet.locator(f"[data-intent='room-clock'][data-clock='{clock}']").click()
    sheet.locator("[data-intent='room-create']").click()
    named(page, name)
    expect(sheet.locator("[data-intent='room-start']")).to_be_visible()
    expect(sheet.locator("svg.qr")).to_be_visible()
    link = sheet.locator("#link-text").input_value()
    found = re.search(r"#room=([A-Z0-9]+)$", link)
    assert found and link.startswith(live_server), link
    return found.group(1)


def join_room(page: Any, live_server: str, code: str, name: str) -> None:
    """The room's link opened, JOIN, a name: a member waiting for the start."""
    opened(page, f"{live_server}/#room={code}")
    sheet = page.locator("#sheet")
    sheet.locator("[data-intent='room-join']").click()
    named(page, name)
    expect(sheet.locator(".room-members li.mine")).to_contain_text(name)


def started(page: Any) -> None:
    """The room's game is on the board (the sheet closed): the first turn's dice to place."""
    expect(page.locator("#sheet")).to_be_hidden()
    expect(page.locator("#room-bar")).to_be_visible()
    expect(page.locator("#difficulty-chip .chip-daily")).to_be_visible()


def in_room(page: Any, live_server: str, code: str) -> UiPlayer:
    """The page's player, playing their game of the room."""
    player = UiPlayer(page, live_server)
    player.game_id = page.request.get(f"{live_server}/api/rooms/{code}").json()["game_id"]
    assert player.game_id
    return player


def turn_in_page(page: Any, turn: int) -> None:
    """The page shows turn ``turn`` to play (the room rolled it)."""
    expect(page.locator("#status-turn")).to_have_text(str(turn))
    expect(page.locator("[data-intent='confirm'], [data-intent='accept']").first).to_be_visible()


def play_turn(ui: UiPlayer) -> dict[str, Any]:
    """The open turn played in the page with the tests' bot, to its CONFIRM (or RUIN)."""
    bot, view = ViewPlayer(), ui.view()
    turns = view["turns"]
    while view["turns"] == turns and view["phase"] != "over":
        view = ui.perform(bot.next_action(view))
    return dict(view)


def api_turn(player: UiPlayer, bot: ViewPlayer, more: bool = False) -> bool:
    """The page's player ends their open turn through the API (the page's cookie), if their
    game is not over; whether it is over now. ``more``: a die more than the bot places, where
    one can go (another board than the bot's: the games part)."""
    page, live_server = player.page, player.base
    post = partial(post_as, page, live_server)
    view = player.view()
    turns = view["turns"]
    while view["phase"] != "over" and view["turns"] == turns:
        assert view["phase"] != "roll", "the room has not rolled this turn"
        action = bot.next_action(view)
        if more and action["type"] == "confirm":
            free = [d for d in view["dice"] if d["cell"] is None and d["legal_cells"]]
            if free:
                action, more = (
                    {"type": "stage", "die": free[0]["index"], "cell": free[0]["legal_cells"][0]},
                    False,
                )
        view = post(
            f"/api/games/{view['id']}/actions", {"version": view["version"], "action": action}
        )
    return bool(view["phase"] == "over")


def wholly_on(page: Any, node: Any, width: int, height: int) -> None:
    """``node`` wholly on the screen, no scroll (once the layout after a resize is done: its
    box is None while it is being laid out again)."""
    expect(node).to_be_in_viewport(ratio=1)
    fits(page, node, width, height)


def on_screen(page: Any, width: int, height: int) -> None:
    """The board, the dice, CONFIRM, the clock and the others' boards on screen, no scroll."""
    for selector in ("#board", "#tray", "[data-intent='confirm']", ".room-status", ".room-others"):
        wholly_on(page, page.locator(selector), width, height)


def test_three_players_play_a_room_to_its_end(browser: Any, live_server: str) -> None:
    with ExitStack() as stack:
        ann, ben, cy = (stack.enter_context(person(browser)) for _ in range(3))
        code = make_room(ann, live_server, "Ann", "", seed=2)
        for page, name in ((ben, "Ben"), (cy, "Cy")):
            join_room(page, live_server, code, name)
            expect(page.locator("#sheet")).to_contain_text(
                words("en", "room_wait_start", name="Ann")
            )
        sheet = ann.locator("#sheet")
        expect(sheet).to_contain_text(words("en", "room_members_count", n=3, size=8))
        expect(sheet.locator(".room-members li")).to_have_text(
            [re.compile(n) for n in ("Ann", "Ben", "Cy")]
        )
        sheet.locator("[data-intent='room-start']").click()
        pages = [ann, ben, cy]
        for page in pages:
            started(page)
        players = [in_room(page, live_server, code) for page in pages]
        # every game the room's, no ROLL anywhere: the room rolled the same dice for all
        views = [p.view() for p in players]
        assert {v["room"] for v in views} == {code}
        assert len({tuple(d["value"] for d in v["dice"]) for v in views}) == 1
        expect(ann.locator("[data-intent='roll']")).to_have_count(0)
        expect(ann.locator(".room-member")).to_have_count(2)  # Ben's and Cy's boards
        over = [False, False, False]  # (a game is over once its board is full)
        turn = 1
        while not all(over):
            playing = [i for i in range(3) if not over[i]]
            for i in playing:
                turn_in_page(pages[i], turn)
            for i in playing:
                ended = play_turn(players[i])
                over[i] = ended["phase"] == "over"
                if turn == 1 and i == 0:  # Ann waits; the others see that she has ended it
                    expect(ann.locator(".room-wait")).to_have_text(words("en", "room_waiting_turn"))
                    expect(ben.locator(".room-member.done")).to_have_count(1)
                    expect(ben.locator(".room-member.done")).to_contain_text("Ann")
                    score = number(ended["score"]["total"])
                    filled = sum(ch not in "./" for ch in ended["board"])
            if turn == 1:  # the closed turn's boards and scores, in everyone's bar
                theirs = ben.locator(".room-member", has_text="Ann")
                expect(theirs.locator(".room-score")).to_have_text(score)
                expect(theirs.locator(".room-mini span:not(:empty)")).to_have_count(filled)
            turn += 1
        # the end: final standings and every final board, on every page
        finals = sorted((p.view()["final_score"]["total"] for p in players), reverse=True)
        for page in pages:
            sheet = page.locator("#sheet")
            expect(sheet.locator(".room-standings li")).to_have_count(3)
            expect(sheet.locator("h3")).to_have_text(words("en", "room_final"))
            expect(sheet.locator(".room-standings li strong")).to_have_text(
                [number(f) for f in finals]
            )
            expect(sheet.locator(".room-finals .mini")).to_have_count(3)
        # the coach's score on the same dice, once the background has played them
        coach = ann.locator("#sheet .coach-line")
        expect(coach).to_have_text(re.compile(r"\d"), timeout=COACH_WAIT_MS)
        for width, height in SIZES:  # (three final boards are taller than a short phone)
            ann.set_viewport_size({"width": width, "height": height})
            wholly_on(ann, ann.locator("#sheet [data-intent='room-again']"), width, height)
        measure(ann, "room-final-three-en", TEXTS)
        # SAME DICE, DIFFERENT CHOICES for any two: Cy picks Ann and Ben (the same bot: alike)
        sheet = cy.locator("#sheet")
        sheet.locator("[data-intent='room-compare']").click()
        first, second = sheet.locator("#room-compare-a"), sheet.locator("#room-compare-b")
        expect(first.locator("option:checked")).to_contain_text("Cy")  # (his own first)
        expect(sheet.locator(".duel .mini")).to_have_count(2)
        first.select_option(label="Ann")
        expect(sheet.locator(".duel .mini")).to_have_count(2)
        second.select_option(label="Ben")
        never = words("en", "room_parted_never", a="Ann", b="Ben")
        expect(sheet.locator(".room-parted")).to_have_text(never)
        sheet.locator("[data-intent='open'][data-screen='room']").click()
        expect(sheet.locator(".room-finals .mini")).to_have_count(3)
        # PLAY AGAIN: Ben makes the next room; Ann is told, and joins it from her sheet
        ben.locator("#sheet [data-intent='room-again']").click()
        expect(ben.locator("#sheet .room-members li.mine")).to_contain_text("Ben")
        expect(ann.locator("#sheet")).to_contain_text(words("en", "room_again_note"))
        ann.locator("#sheet [data-intent='room-again']").click()
        expect(ann.locator("#sheet .room-members li")).to_have_count(2)
        expect(ben.locator("#sheet .room-members li")).to_have_count(2)  # (her joining, live)
        expect(ben.locator("#sheet [data-intent='room-start']")).to_be_visible()
        # the room's games stay out of the high scores
        table = ann.request.get(f"{live_server}/api/highscores/nightmare").json()
        assert not any(r["name"] in ("Ann", "Ben", "Cy") for r in table["rows"])


@pytest.mark.parametrize("language", ["en", "et", "sv"])
def test_a_room_with_a_clock_fits_a_phone_in_every_language(
    browser: Any, live_server: str, language: str
) -> None:
    """The lobby, the board with the room's bar and its clock, and a closed turn, measured;
    the rest of the game played through the API, the end measured."""
    names = {"en": "Annabel", "et": "Annemari", "sv": "Annelie"}
    with person(browser, language, 360, 640) as host, person(browser, language, 360, 640) as guest:
        code = make_room(host, live_server, names[language], "30", seed=1)  # (a roll to place)
        measure(host, f"room-lobby-{language}", TEXTS)
        join_room(guest, live_server, code, f"Kristjan-{language}")
        measure(guest, f"room-joined-{language}", TEXTS)
        host.locator("#sheet [data-intent='room-start']").click()
        for page in (host, guest):
            started(page)
        clock = host.locator("#room-clock")
        expect(clock).to_have_attribute("role", "timer")
        expect(clock).to_have_text(re.compile(r"^0:[0-3]\d$"))
        for width, height in SIZES:
            host.set_viewport_size({"width": width, "height": height})
            on_screen(host, width, height)
        measure(host, f"room-board-{language}", TEXTS)
        # the guest ends the turn through the API: the host's bar says so at once
        playing = [in_room(page, live_server, code) for page in (host, guest)]
        bots = [ViewPlayer(), ViewPlayer()]
        api_turn(playing[1], bots[1], more=True)  # a die more than the host where one can go
        expect(host.locator(".room-member.done")).to_have_count(1)
        measure(host, f"room-waiting-for-me-{language}", TEXTS)
        # the rest through the API, the host first (the pages follow the events)
        while not all(
            [api_turn(p, bot, more=p is playing[1]) for p, bot in zip(playing, bots, strict=True)]
        ):
            pass
        sheet = host.locator("#sheet")
        expect(sheet.locator(".room-finals .mini")).to_have_count(2)
        # the sheet as it stays: drawn again until the coach's score is in
        expect(sheet.locator(".coach-line")).to_have_text(re.compile(r"\d"), timeout=COACH_WAIT_MS)
        host.set_viewport_size({"width": 360, "height": 640})
        wholly_on(host, sheet.locator("[data-intent='room-again']"), 360, 640)
        measure(host, f"room-final-{language}", TEXTS)
        # SAME DICE, DIFFERENT CHOICES: the host's game and the guest's, from the first turn
        sheet.locator("[data-intent='room-compare']").click()
        # (seed 1: turn 1's fourth die has nowhere to go, turn 2's has: they part there)
        parted = words(
            language, "room_parted", a=words(language, "you"), b=f"Kristjan-{language}", n=2
        )
        expect(sheet.locator(".room-parted")).to_have_text(parted)
        expect(sheet.locator(".compare-turn")).to_have_text(re.compile(r"^\D*2\D"))
        expect(sheet.locator(".duel .mini")).to_have_count(2)
        for width, height in SIZES:
            host.set_viewport_size({"width": width, "height": height})
            wholly_on(host, sheet.locator(".duel"), width, height)
        measure(host, f"room-compare-{language}", TEXTS + ", #sheet label, #sheet select")
