"""Helpers for driving ``magdagdon play`` with Textual's pilot: what the screen says, and a
simple player pressing keys."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

pytest.importorskip("textual")

from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets import Static

from magdagdon.engine import Phase, find_placement, seed_bytes
from magdagdon.engine import dice as dice_module
from magdagdon.tui.app import MagdagdonApp, Question
from magdagdon.tui.widgets import BoardView


def random_dice_of(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Games with random dice draw those of ``seed`` (to play a known game that is recorded:
    games whose seed is chosen are not)."""
    drawn = SimpleNamespace(token_bytes=lambda n: seed_bytes(seed))
    monkeypatch.setattr(dice_module, "secrets", drawn)


def text_of(app: MagdagdonApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).content)


def status(app: MagdagdonApp) -> str:
    return str(app.game_screen.query_one("#status", Static).content)


def message(app: MagdagdonApp) -> str:
    return str(app.game_screen.query_one("#message", Static).content)


def board_lines(app: MagdagdonApp) -> list[str]:
    """The board as the screen draws it, line by line."""
    board = app.game_screen.query_one(BoardView)
    width, height = board.size
    return [strip.text.rstrip() for strip in board.render_lines(Region(0, 0, width, height))]


async def move_to(pilot: Pilot[None], app: MagdagdonApp, square: int) -> None:
    """Move the board's cursor with the arrow keys."""
    screen = app.game_screen
    while screen.cursor != square:
        row, col = divmod(screen.cursor, 4)
        to_row, to_col = divmod(square, 4)
        if to_row != row:
            await pilot.press("down" if to_row > row else "up")
        else:
            await pilot.press("right" if to_col > col else "left")


async def play_turn(pilot: Pilot[None], app: MagdagdonApp) -> None:
    """One step of a simple player pressing keys: ROLL; place a legal order of the required
    dice and CONFIRM; in MAGDAGDON a certain rescue by a power while one is left, else a
    RUIN on the first square offered."""
    game = app.game
    if game.phase is Phase.ROLL:
        await pilot.press("r")
    elif game.phase is Phase.MAGDAGDON:
        rescues = game.rescuing_adjustments()
        if rescues:
            die, delta = rescues[0]
            await pilot.press(str(die + 1), "plus" if delta > 0 else "minus")
            assert isinstance(app.screen, Question)
            assert f"costs {game.next_power_cost} points" in text_of(app, "#question")
            await pilot.press("y")
        else:
            await move_to(pilot, app, game.ruin_choices[0])
            await pilot.press("m")
            assert isinstance(app.screen, Question)
            await pilot.press("y")
    else:
        order = find_placement(game.board, [d.value for d in game.dice], game.required)
        assert order is not None
        for value, square in order:
            index = next(d.index for d in app.game.dice if d.in_tray and d.value == value)
            await pilot.press(str(index + 1))
            await move_to(pilot, app, square)
            await pilot.press("enter")
            assert f"Score {app.game.score(include_staged=True).total}" in status(app)
        await pilot.press("c")


async def play_to_the_end(pilot: Pilot[None], app: MagdagdonApp) -> None:
    steps = 0
    while not app.game.is_over:
        await play_turn(pilot, app)
        steps += 1
        assert steps < 200
    await pilot.pause()
