"""The coach in the browser: HINT shows the plan on the board, the review after GAME OVER."""

from __future__ import annotations

from typing import Any

from ..utils.api import COACH_WAIT_MS
from ..utils.ui import screenshot
from .test_browser_play import open_game


def test_hint_shows_the_plan_on_the_board(page: Any, live_server: str) -> None:
    ui = open_game(page, live_server, "nightmare", 5)
    view = ui.perform({"type": "roll"})
    if view["phase"] != "place":  # pragma: no cover - seed 5 rolls a placeable first turn
        raise AssertionError("seed 5 should roll a placeable first turn")
    page.click("[data-intent='hint']")
    panel = page.locator("#hint-panel")
    panel.wait_for(state="visible", timeout=COACH_WAIT_MS)
    ui.idle()
    hint = page.request.get(f"{live_server}/api/games/{view['id']}/hint").json()
    ghosts = page.locator(".square.hinted")
    board = hint["board"].replace("/", "")
    assert ghosts.count() == sum(1 for ch in board if ch != ".")
    first = ghosts.first
    assert "the hint places" in (first.get_attribute("aria-label") or "")
    assert "expected final score" in panel.inner_text()
    # the other plans wait behind a button so the panel fits a phone; opened, they are all there
    assert panel.locator(".hint-alternatives li").count() == 0
    panel.locator("[data-intent='hint-more']").click()
    panel.locator(".hint-alternatives li").first.wait_for(state="visible")
    assert panel.locator(".hint-alternatives li").count() == len(hint["alternatives"])
    screenshot(page, "hint-390x844")
    # playing the plan ends the turn and the hint goes away
    for action in hint["plan"]:
        ui.perform(action)
    assert page.locator("#hint-panel").is_hidden()
    assert page.locator(".square.hinted").count() == 0
    assert ui.view()["hints_used"] >= 1


def test_review_after_game_over_and_from_the_high_scores(page: Any, live_server: str) -> None:
    ui = open_game(page, live_server, "nightmare", 5)
    final, _ = ui.play_to_end(use_power=False)
    sheet = page.locator("#sheet")
    sheet.wait_for(state="visible")
    page.click("#sheet [data-intent='review']")
    page.locator(".review-turn").first.wait_for(state="visible", timeout=COACH_WAIT_MS)
    assert page.locator(".review-turn").count() == final["turns"]
    assert page.locator(".mini-board").count() >= final["turns"]
    assert str(final["final_score"]["total"]) in page.locator("#sheet-body p").first.inner_text()
    screenshot(page, "review-390x844")
    # from the high-score table: the same review
    page.click("[data-intent='close']")
    page.click("#menu-button")
    page.click("[data-intent='open'][data-screen='scores']")
    # this player's table: the server's top ten may be full of other tests' games by now
    page.click("[data-intent='scores-difficulty'][data-difficulty='nightmare']")
    page.click("[data-intent='scores-scope'][data-scope='me']")
    row_button = page.locator(f"[data-intent='review'][data-game='{final['id']}']")
    row_button.wait_for(state="visible")
    row_button.click()
    page.locator(".review-turn").first.wait_for(state="visible", timeout=COACH_WAIT_MS)
    assert page.locator("#sheet-title").inner_text() == "Review"
