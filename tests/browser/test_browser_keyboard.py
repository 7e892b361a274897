"""Keyboard and screen-reader play beyond the game board's own keys (test_browser_play has
those): a puzzle solved with keys alone, its MAGDAGDON's RUIN chosen with keys, the keyboard
on NEXT PUZZLE once the verdict is out; which squares take the selected die said in words on
both boards, and a die that fits nowhere said so."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from ..api.test_api_puzzles import best_of
from ..utils.ui import screenshot
from .test_browser_a11y import magdagdon_screen
from .test_browser_play import open_game
from .test_browser_puzzles import given_puzzle, open_puzzle, ruin_puzzle

ON_BOARD = re.compile(r"\bon-board\b")


def arrows(page: Any, start: int, cell: int) -> None:
    """The arrow keys from square ``start`` to square ``cell``."""
    dr, dc = cell // 4 - start // 4, cell % 4 - start % 4
    for _ in range(abs(dr)):
        page.keyboard.press("ArrowDown" if dr > 0 else "ArrowUp")
    for _ in range(abs(dc)):
        page.keyboard.press("ArrowRight" if dc > 0 else "ArrowLeft")


def focused(page: Any) -> str:
    """What has the keyboard: its tag and data attributes, or its id."""
    return str(
        page.evaluate(
            "(() => { const a = document.activeElement;"
            " return a.id || a.tagName + JSON.stringify({...a.dataset}); })()"
        )
    )


def test_a_puzzle_is_played_with_the_keyboard_alone(page: Any, live_server: str) -> None:
    """1–4 lifts a die and takes the keyboard to the first square it fits, the arrows move it,
    Enter places, Backspace takes the last die back, C confirms; the board is one stop of Tab
    (it took 14–27 presses of Tab to place one die)."""
    puzzle = given_puzzle(page, live_server)
    open_puzzle(page, live_server, puzzle)
    board = page.locator(".puzzle-board")
    expect(board.locator(".square[tabindex='0']")).to_have_count(1)
    plan = best_of(puzzle)
    dice = {d["index"]: d for d in puzzle["view"]["dice"]}
    staged = 0
    for action in plan:
        if action["type"] != "stage":
            continue
        die = action["die"]
        page.keyboard.press(str(die + 1))
        tray_die = page.locator(f".puzzle-tray .die[data-die='{die}']")
        expect(tray_die).to_have_attribute("aria-pressed", "true")
        # (the die's first square is worked out from the view after the dice placed so far)
        start = int(page.evaluate("document.activeElement.dataset.square"))
        assert start in dice[die]["legal_cells"] or staged, start
        arrows(page, start, action["cell"])
        assert focused(page) == f'BUTTON{{"intent":"puzzle-square","square":"{action["cell"]}"}}'
        page.keyboard.press("Enter")
        expect(tray_die).to_have_class(ON_BOARD)
        staged += 1
        if staged == 1:  # Backspace takes it back, and it is placed again
            page.keyboard.press("Backspace")
            expect(tray_die).not_to_have_class(ON_BOARD)
            page.keyboard.press(str(die + 1))
            arrows(
                page, int(page.evaluate("document.activeElement.dataset.square")), action["cell"]
            )
            page.keyboard.press("Enter")
            expect(tray_die).to_have_class(ON_BOARD)
    page.keyboard.press("c")
    expect(page.locator(".puzzle-verdict.good")).to_be_visible()
    # the verdict is said (a status); the keyboard is on the way on, not the sheet's body
    expect(page.locator("#puzzle-next")).to_be_focused()
    screenshot(page, "keyboard-puzzle-solved-390x844")


def test_a_puzzles_ruin_is_chosen_with_the_keyboard(page: Any, live_server: str) -> None:
    puzzle = ruin_puzzle(page, live_server)
    cell = best_of(puzzle)[0]["cell"]
    open_puzzle(page, live_server, puzzle)
    square = page.locator(f".puzzle-board [data-square='{cell}']")
    expect(square).to_have_attribute("aria-label", re.compile(", can become the RUIN$"))
    page.locator(".puzzle-board .square[tabindex='0']").focus()
    arrows(page, int(page.evaluate("document.activeElement.dataset.square")), cell)
    page.keyboard.press("Enter")
    expect(square).to_have_class(re.compile(r"\bruin\b"))
    assert "RUIN" in (square.get_attribute("aria-label") or "")
    page.keyboard.press("c")
    expect(page.locator(".puzzle-verdict.good")).to_be_visible()
    expect(page.locator("#puzzle-next")).to_be_focused()


def test_the_squares_that_take_the_die_are_said(page: Any, live_server: str) -> None:
    """A legal square was announced "row 1, column 2, empty" exactly like one that cannot
    take the die: on the game board and the puzzle's it says "can take the 4"."""
    ui = open_game(page, live_server, "peaceful", 3)
    view = ui.perform({"type": "roll"})
    die = next(d for d in view["dice"] if d["legal_cells"])
    page.click(f".tray [data-die='{die['index']}']")
    for sq in range(16):
        label = page.locator(f"#board [data-square='{sq}']").get_attribute("aria-label") or ""
        assert ("can take the " in label) == (sq in die["legal_cells"]), (sq, label)
        if sq in die["legal_cells"]:
            assert label.endswith(f", can take the {die['value']}"), label

    puzzle = given_puzzle(page, live_server)
    open_puzzle(page, live_server, puzzle)
    die = next(d for d in puzzle["view"]["dice"] if d["legal_cells"])
    page.click(f".puzzle-tray [data-die='{die['index']}']")
    expect(page.locator(".puzzle-board .square.legal")).to_have_count(len(die["legal_cells"]))
    for sq in range(16):
        node = page.locator(f".puzzle-board [data-square='{sq}']")
        label = node.get_attribute("aria-label") or ""
        assert label.startswith("Row "), label
        assert ("can take the " in label) == (sq in die["legal_cells"]), (sq, label)


def test_a_die_that_fits_nowhere_says_so(page: Any, live_server: str) -> None:
    magdagdon_screen(page, live_server)  # (no die of a MAGDAGDON roll fits anywhere)
    for node in page.locator(".tray .die").all():
        label = node.get_attribute("aria-label") or ""
        assert label.endswith(", in the tray, fits nowhere"), label
