"""``magdagdon play`` under Textual's pilot: whole games in each difficulty played by pressing
keys, the score shown, the high-score file, refused moves, the hint, the mouse, and the
board's text compared with the screen as drawn (an SVG screenshot is saved too)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

pytest.importorskip("textual")

from textual.geometry import Region
from textual.widgets import Button

from magdagdon.engine import Board, Difficulty, Phase, score_board
from magdagdon.tui.app import GameOver, MagdagdonApp, Question
from magdagdon.tui.scores import FILE_NAME
from magdagdon.tui.widgets import BoardPicture, BoardView, DiceTray, board_text
from magdagdon.tui.words import wrap_phrases

from .pilot import (
    board_lines,
    message,
    play_to_the_end,
    play_turn,
    random_dice_of,
    status,
    text_of,
)

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(os.environ.get("MAGDAGDON_SCREENSHOTS", ROOT / "test-artifacts" / "screenshots"))


pytestmark = pytest.mark.anyio


@pytest.mark.slow
@pytest.mark.parametrize("difficulty", list(Difficulty))
async def test_a_whole_game_by_keys(
    difficulty: Difficulty, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    random_dice_of(monkeypatch, 4)
    app = MagdagdonApp(difficulty)
    async with app.run_test() as pilot:
        await play_to_the_end(pilot, app)
        game = app.game
        total = game.score().total
        assert f"Score {total}" in status(app)
        assert isinstance(app.screen, GameOver)
        sheet = text_of(app, "#text")
        assert f"Score {total}" in sheet and f"{'Total':<30}{total:>6}" in sheet
        assert "Place 1 among your" in sheet
        stored = json.loads((data_dir / FILE_NAME).read_text())["scores"][difficulty.value]
        assert len(stored) == 1
        assert stored[0]["score"] == total and stored[0]["turns"] == game.turns
        assert stored[0]["powers_used"] == game.powers_used and stored[0]["hints_used"] == 0
        assert stored[0]["seed"] is None
        # the seed meets a MAGDAGDON a power rescues (with a power left) and RUINS
        assert game.powers_used == min(1, difficulty.powers)
        assert game.score().ruins == sum(a["type"] == "accept_magdagdon" for a in game.actions) > 0
        await pilot.press("n")  # a new game from the sheet
        assert app.screen is app.game_screen
        assert app.game is not game and app.game.phase is Phase.ROLL and not app.game.actions


async def test_refused_keys_show_the_engines_message_and_change_nothing() -> None:
    app = MagdagdonApp("nightmare", seed=1)
    async with app.run_test() as pilot:
        before = app.game.state()
        await pilot.press("c")
        assert message(app) == (
            "Not possible now (the turn is waiting for ROLL); only while placing dice."
        )
        assert app.game.state() == before
        await pilot.press("r")
        assert message(app) == "Place at least 3 dice."
        assert [d.value for d in app.game.dice] == [4, 2, 4, 5]
        await pilot.press("enter")  # ROLL selected die 1 (a 4): on square 5, the cursor's
        assert "1/3 dice placed" in status(app) and app.game.dice[0].cell == 5
        before = app.game.state()
        for keys, said in [
            (["2", "right", "right", "right", "enter"], "would not touch any number"),
            (["2", "left", "left", "left", "enter"], "would touch 4"),
            (["1", "enter"], "Die 1 is on the board: take it back first."),
            (["c"], "Place at least 3 dice before confirming (1 placed)."),
            (["r"], "only before ROLL"),
            (["plus"], "NIGHTMARE has no Majda Powers."),
            (["x"], "NIGHTMARE has no Majda Powers."),
            (["m"], "only in MAGDAGDON"),
        ]:
            await pilot.press(*keys)
            assert said in message(app), keys
            assert app.game.state() == before, keys
        await pilot.press("backspace")  # the last staged die comes back
        assert app.game.staged == ()
        await pilot.press("backspace")
        assert message(app) == "No die is on the board to take back."


async def test_the_hint_shows_the_coachs_plan_without_playing_it() -> None:
    app = MagdagdonApp("nightmare", seed=1)
    async with app.run_test() as pilot:
        await pilot.press("h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert text_of(app, "#hint").startswith("HINT · expected final score ")
        assert text_of(app, "#hint").endswith(": ROLL")
        await pilot.press("r", "h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = text_of(app, "#hint")
        assert "place " in shown and "row " in shown and shown.endswith("CONFIRM")
        assert app.game.phase is Phase.PLACE and app.game.staged == ()  # nothing applied
        assert any("(" in line for line in board_lines(app))  # the plan's values on the board
        await pilot.press("h")  # the same position: counted once
        assert len(app.game_screen.hinted) == 2
        await pilot.press("1", "enter")
        assert text_of(app, "#hint") == ""  # the position changed


async def test_the_hint_never_breaks_a_line_inside_a_name() -> None:
    """ "…column⏎3 → CONFIRM" reads as "3 → CONFIRM": the hint wraps between phrases only,
    at any width."""
    app = MagdagdonApp("nightmare", seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("r", "h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = text_of(app, "#hint")
        names = re.findall(r"(?:place \d → )?row \d, column \d", shown)
        assert len(names) == 3 and shown.endswith("→ CONFIRM")  # three dice placed
        for width in range(60, 81):
            await pilot.resize_terminal(width, 24)
            await pilot.pause()
            hint = app.game_screen.query_one("#hint")
            lines = [s.text.strip() for s in hint.render_lines(Region(0, 0, *hint.outer_size))]
            assert " ".join(lines) == shown, width  # nothing cut
            for name in names:
                assert any(name in line for line in lines), (width, name, lines)
            assert not any(line.endswith("→") for line in lines), (width, lines)


def test_messages_and_questions_wrap_between_phrases_too() -> None:
    for text, names in [
        (
            "ACCEPT MAGDAGDON? Row 2, column 3 becomes a RUIN for the rest of the game "
            "(−15 points).",
            ["Row 2, column 3", "(−15 points)"],
        ),
        ("Use a Majda Power: REROLL dice 1, 3? It costs 70 points.", ["dice 1, 3?", "70 points"]),
        ("A Majda Power can rescue this roll: die 1 +1, die 3 −1.", ["die 1 +1,", "die 3 −1."]),
    ]:
        for width in range(20, 61):
            lines = wrap_phrases(text, width)
            assert " ".join(lines) == text and max(map(len, lines)) <= width
            for name in names:
                assert any(name in line for line in lines), (width, name, lines)


async def test_a_failing_coach_is_said_and_the_game_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from magdagdon.tui import app as module

    def broken(game: object) -> None:
        raise FileNotFoundError("weights.json")

    monkeypatch.setattr(module, "hint", broken)
    app = MagdagdonApp("peaceful", seed=3)
    async with app.run_test() as pilot:
        await pilot.press("h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert message(app) == "The coach could not give a hint (FileNotFoundError: weights.json)."
        assert app.is_running and text_of(app, "#hint") == ""
        await pilot.press("r")
        assert app.game.phase is not Phase.ROLL


async def test_the_mouse_selects_places_and_takes_back() -> None:
    app = MagdagdonApp("peaceful", seed=3)
    async with app.run_test() as pilot:
        await pilot.click("#roll")
        assert app.game.phase is Phase.PLACE
        await pilot.click(DiceTray, offset=(2 * 9 + 3, 1))  # the third die
        assert app.game_screen.selected == 2
        await pilot.click(BoardView, offset=(1 * 10 + 5, 3))  # square 5 (row 2, column 2)
        assert app.game.dice[2].cell == 5
        await pilot.click(BoardView, offset=(1 * 10 + 5, 3))  # a staged die: taken back
        assert app.game.staged == ()
        await pilot.click(BoardView, offset=(5, 1))
        await pilot.click(BoardView, offset=(15, 1))
        assert len(app.game.staged) == 2
        await pilot.click("#confirm")
        assert app.game.turns == 1


async def test_reroll_mode_chooses_dice_then_asks() -> None:
    app = MagdagdonApp("survival", seed=3)
    async with app.run_test() as pilot:
        await pilot.press("r", "x")
        assert "Choose the dice to reroll." in message(app)
        await pilot.press("enter")
        assert message(app) == "Choose at least one die to reroll."
        await pilot.press("1", "3", "enter")
        assert isinstance(app.screen, Question)
        assert "REROLL dice 1, 3? It costs 70 points." in text_of(app, "#question")
        await pilot.press("enter", "n")  # neither answers
        assert isinstance(app.screen, Question)
        await pilot.press("escape")
        assert app.game.powers_used == 0 and app.game_screen.chosen == {0, 2}
        await pilot.press("x")
        assert isinstance(app.screen, Question)
        await pilot.press("y")
        assert app.game.powers_used == 1 and app.game.actions[-1] == {
            "type": "reroll",
            "dice": [0, 2],
        }
        assert "Powers 0" in status(app)


async def test_a_new_game_in_progress_asks_first() -> None:
    """n is NEW GAME only: pressed twice it asks once and does not cancel; Escape cancels."""
    app = MagdagdonApp("peaceful", seed=3)
    async with app.run_test() as pilot:
        await pilot.press("r", "n")
        assert isinstance(app.screen, Question)
        assert "NEW GAME (y)" in str(app.screen.query_one("#yes", Button).label)
        assert "CANCEL (Esc)" in str(app.screen.query_one("#no", Button).label)
        await pilot.press("escape")
        assert app.game.phase is Phase.PLACE and app.screen is app.game_screen
        await pilot.press("n", "n")
        assert isinstance(app.screen, Question) and app.game.phase is Phase.PLACE
        await pilot.press("y")
        assert app.game.phase is Phase.ROLL and message(app) == "New PEACEFUL game."
        assert app.screen is app.game_screen


async def test_enter_twice_in_magdagdon_asks_and_waits_for_yes() -> None:
    """Enter asks for the RUIN under the cursor; pressed again it does not answer."""
    app = MagdagdonApp("survival", seed=4)  # MAGDAGDON on turn 2
    async with app.run_test() as pilot:
        while app.game.phase is not Phase.MAGDAGDON:
            await play_turn(pilot, app)
        await pilot.press("enter", "enter")
        assert isinstance(app.screen, Question)
        assert app.game.phase is Phase.MAGDAGDON and app.game.score().ruins == 0
        await pilot.press("y")
        assert app.game.phase is Phase.ROLL and app.game.score().ruins == 1


@pytest.mark.slow
async def test_an_unreadable_high_score_file_is_said_and_set_aside(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_dir.mkdir()
    (data_dir / FILE_NAME).write_text("{ not json")
    random_dice_of(monkeypatch, 1)  # a game of seven turns
    app = MagdagdonApp("nightmare")
    async with app.run_test() as pilot:
        assert "set aside" in message(app)
        await play_to_the_end(pilot, app)
        assert isinstance(app.screen, GameOver)
    assert len(json.loads((data_dir / FILE_NAME).read_text())["scores"]["nightmare"]) == 1


BOARD = """\
┌─────────┬─────────┬─────────┬─────────┐
│         │    ·    │         │         │   0
├─────────┼─────────┼─────────┼─────────┤
│    ·    │   [4]   │▶   ·   ◀│         │   4
├─────────┼─────────┼─────────┼─────────┤
│    ·    │   [4]   │    ·    │         │   4
├─────────┼─────────┼─────────┼─────────┤
│         │    ·    │         │         │   0
└─────────┴─────────┴─────────┴─────────┘
     0         8         0         0"""


async def test_the_screen(tmp_path: Path) -> None:
    """The board's text as drawn, at 80×24: two 4s staged (in brackets), die 4 (a 5)
    selected with its lit squares (·), the cursor (▶ ◀), the live line sums; the screenshots
    go to test-artifacts for people to look at."""
    app = MagdagdonApp("nightmare", seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("r", "1", "enter", "3", "down", "enter", "4", "up", "right")
        assert [d.value for d in app.game.dice] == [4, 2, 4, 5]
        assert "\n".join(board_lines(app)).rstrip() == BOARD
        assert status(app) == "NIGHTMARE · Turn 1 · 2/3 dice placed · Score 16"
        shots = os.environ.get("MAGDAGDON_SCREENSHOTS") != "off"  # (off: .ci/run)
        if shots:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            app.save_screenshot("tui-nightmare-80x24.svg", str(SCREENSHOTS))
        await pilot.resize_terminal(110, 40)
        await pilot.pause()
        assert len(board_lines(app)) == 4 * 4 + 1 + 1  # taller squares
        if shots:
            app.save_screenshot("tui-nightmare-110x40.svg", str(SCREENSHOTS))


def test_complete_lines_show_their_combinations() -> None:
    board = Board.parse("3456/3456/3456/3456")
    text = board_text(BoardPicture(board.cells, score_board(board))).plain.splitlines()
    assert all(line.endswith("18  STRAIGHT +60") for line in text[1:8:2])
    assert text[9].split() == ["12", "16", "20", "24"]
    assert text[10].split() == ["FOUR"] * 4 and text[11].split() == ["+40"] * 4
    board = Board.parse("2233/2233/3322/X...")
    text = board_text(BoardPicture(board.cells, score_board(board))).plain.splitlines()
    assert text[1].endswith("10  TWO PAIRS +20") and "RUIN" in text[7]
    assert len(text) == 10  # no column is complete: no combination lines below the sums


async def test_the_status_line_in_magdagdon_says_what_it_asks() -> None:
    """No die can be placed in MAGDAGDON: the line asks for the RUIN, not "0/2 dice placed"."""
    app = MagdagdonApp("survival", seed=4)  # MAGDAGDON on turn 2, no power rescues it
    async with app.run_test() as pilot:
        while app.game.phase is not Phase.MAGDAGDON:
            await play_turn(pilot, app)
        assert status(app) == (
            "SURVIVAL · Turn 2 · MAGDAGDON: choose a RUIN · Majda Powers 1 (next −70) · Score 16"
        )
        await play_turn(pilot, app)  # the RUIN
        assert app.game.phase is Phase.ROLL and "MAGDAGDON" not in status(app)


@pytest.mark.slow  # (make check leaves it out)
async def test_a_game_with_chosen_dice_is_not_recorded(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As on the server, where games of a chosen seed never enter the tables: said at the
    start and on the game-over sheet. The next game has random dice and is recorded."""
    app = MagdagdonApp("nightmare", seed=1)  # a game of seven turns
    async with app.run_test() as pilot:
        assert message(app) == "The dice of seed 1: this game will not enter the high scores."
        await play_to_the_end(pilot, app)
        assert isinstance(app.screen, GameOver)
        sheet = text_of(app, "#text")
        assert "Not recorded: this game's dice were chosen (--seed 1)." in sheet
        assert "Games with chosen dice never enter the high scores." in sheet
        assert "Place" not in sheet and "▶" not in sheet
        assert not (data_dir / FILE_NAME).exists()
        random_dice_of(monkeypatch, 1)
        await pilot.press("n")
        await play_to_the_end(pilot, app)
        assert "Place 1 among your NIGHTMARE games." in text_of(app, "#text")
    stored = json.loads((data_dir / FILE_NAME).read_text())["scores"]["nightmare"]
    assert [(e["score"], e["seed"]) for e in stored] == [(app.game.score().total, None)]


async def test_the_board_draws_a_rows_combination_on_the_rows_line() -> None:
    """The widest end of a row, " 18  TWO PAIRS +20", fits beside the board (its "+20" went
    onto a line of its own, which moved the squares below from under the mouse)."""
    board = Board.parse("4455/5544/..33/.22.")
    app = MagdagdonApp("nightmare", seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.game_screen.query_one(BoardView)
        view.show(BoardPicture(board.cells, score_board(board)))
        await pilot.pause()
        lines = board_lines(app)
        assert lines[1].endswith("│  18  TWO PAIRS +20") and lines[2].startswith("├")
        assert lines[3].endswith("│  18  TWO PAIRS +20") and lines[4].startswith("├")
