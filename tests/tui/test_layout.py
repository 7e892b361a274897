"""The game screen at each terminal size: the side panel of buttons beside the board from
79×22, one line of keys (``?`` for all of them) down to 60×20, below that a message saying the
size needed, with q quitting. Whole games are played at the least sizes with nothing cut."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("textual")

from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.errors import NoWidget
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from magdagdon.engine import Difficulty, Phase
from magdagdon.tui.app import (
    KEY_HELP,
    SMALLEST,
    WIDE,
    GameOver,
    GameScreen,
    KeysSheet,
    MagdagdonApp,
    Question,
    layout_for,
)
from magdagdon.tui.scores import Entry, ScoreStore

from .pilot import play_turn, text_of

pytestmark = pytest.mark.anyio


def scrolls(widget: Widget) -> bool:
    """Whether the widget is a scrolling area (the screen aside)."""
    return not isinstance(widget, Screen) and widget.styles.overflow_y in ("auto", "scroll")


def cut(screen: Screen[Any]) -> list[str]:
    """What the screen shows in part or not at all: widgets outside their container or the
    screen, text taller than its widget, a screen that scrolls. Scrolling areas (the
    messages, a sheet's text) may hold more than they show."""
    problems = ["the screen scrolls"] if screen.max_scroll_y or screen.max_scroll_x else []
    for widget in screen.walk_children(Widget):
        above = [a for a in widget.ancestors if isinstance(a, Widget)]
        if not widget.display or not all(a.display for a in above) or any(map(scrolls, above)):
            continue
        try:
            geometry = screen.find_widget(widget)
        except NoWidget:
            problems.append(f"{widget!r} is not shown")
            continue
        if not geometry.clip.contains_region(geometry.region):
            problems.append(f"{widget!r} at {geometry.region} is cut by {geometry.clip}")
        if isinstance(widget, Static) and widget.size.width:
            size = widget.content_region.size
            lines = widget.get_content_height(widget.container_size, screen.size, size.width)
            if lines > size.height:
                problems.append(f"{widget!r} has {lines} lines in {size.height}")
    return problems


def keys_line(app: MagdagdonApp) -> str:
    return str(app.game_screen.query_one("#keys", Static).content)


def shown(widget: Widget) -> bool:
    """Whether the widget and all its containers are displayed."""
    return widget.display and all(a.display for a in widget.ancestors if isinstance(a, Widget))


async def play_watching(pilot: Pilot[None], app: MagdagdonApp) -> None:
    """Play the game to its end, nothing cut at any step (nor on the game-over sheet)."""
    steps = 0
    while not app.game.is_over:
        await pilot.pause()
        assert cut(app.game_screen) == [], (steps, app.game.phase)
        assert app.game_screen.query_one("#notes").size.height >= 2
        await play_turn(pilot, app)
        steps += 1
    await pilot.pause()
    assert isinstance(app.screen, GameOver) and cut(app.screen) == []


@pytest.mark.parametrize(
    ("size", "layout"),
    [
        ((60, 20), "compact"),
        ((78, 40), "compact"),
        ((120, 21), "compact"),
        ((79, 22), "wide"),
        ((80, 24), "wide"),
        ((59, 40), "too-small"),
        ((120, 19), "too-small"),
    ],
)
async def test_each_size_has_its_layout(size: tuple[int, int], layout: str) -> None:
    app = MagdagdonApp("survival", seed=4)
    async with app.run_test(size=size) as pilot:
        await pilot.press("r")
        screen = app.game_screen
        assert layout_for(app.size) == screen.layout_name == layout
        assert shown(screen.query_one("#side")) == (layout == "wide")
        assert shown(screen.query_one("#too-small")) == (layout == "too-small")
        if layout != "too-small":
            assert cut(screen) == []
            assert keys_line(app).endswith("? keys" if layout == "wide" else "q QUIT")


@pytest.mark.slow  # (make check leaves it out)
async def test_a_whole_game_in_the_smallest_terminal() -> None:
    """60×20 has no room for the side panel: one line of keys instead, and nothing cut."""
    app = MagdagdonApp("nightmare", seed=1)  # seven turns, MAGDAGDONs
    async with app.run_test(size=(SMALLEST.width, SMALLEST.height)) as pilot:
        assert keys_line(app) == "? keys · r ROLL · c CONFIRM · h HINT · n NEW GAME · q QUIT"
        await play_watching(pilot, app)
    assert app.game.score().ruins > 0


@pytest.mark.slow
@pytest.mark.parametrize("difficulty", [Difficulty.SURVIVAL, Difficulty.PEACEFUL])
@pytest.mark.parametrize("size", [SMALLEST, WIDE], ids=["smallest", "wide"])
async def test_whole_games_with_powers_at_the_least_sizes(
    difficulty: Difficulty, size: Any
) -> None:
    app = MagdagdonApp(difficulty, seed=4)  # a MAGDAGDON a power rescues, RUINS
    async with app.run_test(size=(size.width, size.height)) as pilot:
        await play_watching(pilot, app)
    assert app.game.powers_used == 1


@pytest.mark.slow  # (make check leaves it out)
async def test_the_hint_is_scrolled_into_view_when_the_messages_leave_it_no_room() -> None:
    app = MagdagdonApp("nightmare", seed=1)
    async with app.run_test(size=(60, 20)) as pilot:
        for _ in range(9):  # to the turn-5 MAGDAGDON, below a board with a full column
            await play_turn(pilot, app)
        assert app.game.phase is Phase.MAGDAGDON
        await pilot.press("h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.game_screen
        notes, hint = screen.query_one("#notes"), screen.query_one("#hint")
        assert notes.max_scroll_y > 0  # the message and the hint take more than the room
        assert screen.find_widget(hint).visible_region == hint.region  # all of the hint shown
        await pilot.press("m", "y")  # the RUIN: the hint is gone
        assert app.game.phase is Phase.ROLL and notes.scroll_y == 0  # the message's first line


async def test_too_small_a_terminal_says_the_size_needed_and_q_quits() -> None:
    app = MagdagdonApp("peaceful", seed=3)
    async with app.run_test(size=(59, 30)) as pilot:
        assert text_of(app, "#too-small") == (
            "This terminal is 59×30: MAGDAGDON needs at least 60×20 (79×22 with the side "
            "panel of buttons). Make the terminal larger, or press q to quit."
        )
        for name in ("#status", "#main", "#notes", "#keys"):
            assert not app.game_screen.query_one(name).display
        await pilot.press("r", "n", "h", "question_mark")  # nothing happens unseen
        assert app.game.phase is Phase.ROLL and app.screen is app.game_screen
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        assert app.game_screen.layout_name == "compact" and cut(app.game_screen) == []
        await pilot.press("r")
        assert app.game.phase is Phase.PLACE
        await pilot.resize_terminal(100, 12)
        await pilot.pause()
        assert "This terminal is 100×12" in text_of(app, "#too-small")
        await pilot.press("q")  # a game in progress: asked first
        assert isinstance(app.screen, Question)
        await pilot.press("y")
    assert app.return_code == 0 and not app.is_running


async def test_q_quits_at_once_in_too_small_a_terminal_without_a_game() -> None:
    app = MagdagdonApp("peaceful", seed=3)
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.press("q")
        assert not app.is_running


async def test_question_mark_shows_every_key() -> None:
    app = MagdagdonApp("survival", seed=4)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, KeysSheet) and cut(app.screen) == []
        sheet = text_of(app, "#text")
        actions = {b.action.split("(")[0] for b in GameScreen.BINDINGS if isinstance(b, Binding)}
        assert len(KEY_HELP) == len(actions) + 1  # and y, in a question
        for key, meaning in KEY_HELP:
            assert f"{key:<10} {meaning}" in sheet
        await pilot.press("r")  # the sheet is over the game: keys do not reach it
        assert app.game.phase is Phase.ROLL
        await pilot.press("question_mark")  # ? again closes it
        assert app.screen is app.game_screen
        await pilot.press("question_mark", "escape")
        assert app.screen is app.game_screen


@pytest.mark.slow  # (make check leaves it out)
async def test_a_long_game_over_sheet_scrolls_above_its_buttons() -> None:
    store = ScoreStore()
    for score in range(300, 310):
        store.add(Entry("2026-12-01T09:30", "nightmare", score, 7, 0, 0))
    app = MagdagdonApp("nightmare", seed=1)
    async with app.run_test(size=(60, 20)) as pilot:
        while not app.game.is_over:
            await play_turn(pilot, app)
        await pilot.pause()
        sheet = app.screen
        assert isinstance(sheet, GameOver) and cut(sheet) == []  # the buttons among them
        assert "309" in text_of(app, "#text")
        assert sheet.query_one(VerticalScroll).max_scroll_y > 0
