"""Playing through the browser: whole games in every difficulty, powers, keys, double taps,
the result's breakdown."""

from __future__ import annotations

from typing import Any

import pytest

from ..utils.api import ViewPlayer
from ..utils.ui import UiPlayer, screenshot

SEEDS = {"peaceful": 0, "survival": 0, "nightmare": 5}  # each has MAGDAGDON; the first two a rescue


def open_game(page: Any, base: str, difficulty: str, seed: int) -> UiPlayer:
    """Open the game with a test seed and choose the difficulty in SETTINGS."""
    page.goto(f"{base}/?seed={seed}")
    page.wait_for_selector("[data-intent='roll']")
    if difficulty != "peaceful":
        page.click("#difficulty-chip")
        page.click(f"[data-intent='set-difficulty'][data-difficulty='{difficulty}']")
        page.wait_for_selector(f"#difficulty-chip:has-text('{difficulty.upper()}')")
    ui = UiPlayer(page, base)
    assert ui.view()["difficulty"] == difficulty
    return ui


@pytest.mark.parametrize("difficulty", ["peaceful", "survival", "nightmare"])
def test_complete_game(page: Any, live_server: str, difficulty: str) -> None:
    ui = open_game(page, live_server, difficulty, SEEDS[difficulty])
    final, kinds = ui.play_to_end(use_power=True)
    assert "accept_magdagdon" in kinds  # a MAGDAGDON accepted with a ruin
    assert "X" in final["board"]
    if difficulty != "nightmare":
        assert "adjust" in kinds and final["powers_used"] >= 1  # a power used
    else:
        assert page.locator("#powers").is_hidden()
    sheet = page.locator("#sheet")
    sheet.wait_for(state="visible")
    assert page.locator(".final-score").inner_text() == str(final["final_score"]["total"])
    assert (
        page.locator("#sheet").get_by_text("Place 1 on this server").is_visible() or final["places"]
    )
    screenshot(page, f"over-{difficulty}-390x844")


def test_reroll_and_adjust_show_their_cost_first(page: Any, live_server: str) -> None:
    ui = open_game(page, live_server, "peaceful", 21)
    ui.perform({"type": "roll"})
    page.click("[data-intent='reroll-start']")
    page.click("[data-die='0']")
    page.click("[data-die='1']")
    page.click("[data-intent='reroll-go']")
    assert "10 points" in page.locator("#confirm-text").inner_text()
    page.click("#confirm-yes")
    view = ui.wait_for_version(2)
    assert view["powers_used"] == 1 and view["power_penalty"] == 10
    assert page.locator("#status-powers").inner_text() == "2 Majda Powers left · next\u00a0−20"
    die = next(d for d in view["dice"] if d["can_increase"])
    page.click(f"[data-die='{die['index']}']")
    page.click("[data-intent='adjust'][data-delta='1']")
    assert "20 points" in page.locator("#confirm-text").inner_text()
    page.click("[data-intent='confirm-no']")  # cancelled: nothing is spent
    page.locator("#confirm-text").wait_for(state="hidden")
    page.wait_for_load_state("networkidle")  # no action on its way
    assert ui.view()["powers_used"] == 1


def key_stage(page: Any, ui: UiPlayer, die: int, cell: int) -> Any:
    """Stage with keys: the die's number, arrows from its first legal square, Enter."""
    view = ui.view()
    start = view["dice"][die]["legal_cells"][0]
    page.keyboard.press(str(die + 1))
    dr, dc = cell // 4 - start // 4, cell % 4 - start % 4
    for _ in range(abs(dr)):
        page.keyboard.press("ArrowDown" if dr > 0 else "ArrowUp")
    for _ in range(abs(dc)):
        page.keyboard.press("ArrowRight" if dc > 0 else "ArrowLeft")
    page.keyboard.press("Enter")
    return ui.wait_for_version(view["version"] + 1)


def test_keyboard_play(page: Any, live_server: str) -> None:
    ui = open_game(page, live_server, "peaceful", 33)
    page.keyboard.press("r")
    view = ui.wait_for_version(1)
    assert view["phase"] == "place"
    die = next(d for d in view["dice"] if d["legal_cells"])
    view = key_stage(page, ui, die["index"], die["legal_cells"][-1])
    assert view["dice"][die["index"]]["cell"] == die["legal_cells"][-1]
    page.keyboard.press("Backspace")  # takes the last staged die back
    view = ui.wait_for_version(view["version"] + 1)
    assert view["dice"][die["index"]]["cell"] is None
    bot = ViewPlayer()
    while not view["can_confirm"]:
        action = bot.next_action(view)
        if action["type"] == "stage":
            view = key_stage(page, ui, action["die"], action["cell"])
        else:
            page.keyboard.press("Backspace")
            view = ui.wait_for_version(view["version"] + 1)
    page.locator("#status").click()  # focus off the board: C is a page shortcut
    page.keyboard.press("c")
    assert ui.wait_for_version(view["version"] + 1)["turns"] == 1


def test_a_double_tap_sends_one_action(page: Any, live_server: str) -> None:
    ui = open_game(page, live_server, "peaceful", 44)
    page.locator("[data-intent='roll']").dblclick()
    ui.wait_for_version(1)
    page.wait_for_load_state("networkidle")  # a second action would be on its way now
    assert ui.view()["version"] == 1


def test_tap_a_staged_die_to_take_it_back(page: Any, live_server: str) -> None:
    ui = open_game(page, live_server, "peaceful", 45)
    ui.perform({"type": "roll"})
    view = ui.view()
    die = next(d for d in view["dice"] if d["legal_cells"])
    ui.perform({"type": "stage", "die": die["index"], "cell": die["legal_cells"][0]})
    page.click(f"[data-die='{die['index']}']")  # the staged die, in the tray row
    assert ui.wait_for_version(view["version"] + 2)["dice"][die["index"]]["cell"] is None


BREAKDOWN = """async ([game]) => {
  const { loadCatalog } = await import('/js/i18n.js');
  const { gameOver } = await import('/js/sheets.js');
  const t = await loadCatalog('en');
  const table = gameOver(t, game).find((part) => part && part.tagName === 'TABLE');
  return [...table.querySelectorAll('tr')].map((tr) => [...tr.cells].map((td) => td.textContent));
}"""


def test_the_result_sheet_writes_a_penalty_of_nothing_as_0(page: Any, live_server: str) -> None:
    from .test_browser_screens import finish_game_quickly  # (which imports open_game from here)

    page.goto(live_server)
    page.wait_for_selector("[data-intent='roll']")
    final = finish_game_quickly(page, live_server, "peaceful", 0)  # no Majda Power used
    assert final["powers_used"] == 0 and final["final_score"]["power_penalty"] == 0
    rows = page.evaluate(BREAKDOWN, [final])
    assert ["0 Majda Powers", "0"] in rows, rows
    ruins = final["final_score"]["ruins"]
    said = f"{ruins} RUIN" if ruins == 1 else f"{ruins} RUINS"
    assert [said, f"−{15 * ruins}" if ruins else "0"] in rows, rows
