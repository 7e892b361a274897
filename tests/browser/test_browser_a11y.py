"""Accessibility (axe-core) on every screen, light and dark, with screenshots at two sizes."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from ..api.test_api_puzzles import best_of, missing_plan
from ..utils.api import COACH_WAIT_MS, ViewPlayer
from ..utils.ui import UiPlayer, screenshot
from .test_browser_challenges import quick_challenge
from .test_browser_play import open_game
from .test_browser_puzzles import given_puzzle, open_puzzle, play

SIZES = {
    "small phone": {"width": 360, "height": 740},
    "short phone": {"width": 375, "height": 667},
    "phone": {"width": 390, "height": 844},
    "desktop": {"width": 1280, "height": 800},
}


# axe-core's rules that are off unless asked for ("experimental"), asked for: a button whose
# name does not hold the words it shows ("−1" named "DECREASE −1, costs 10 points") is not
# found by voice control ("click minus one").
AXE_OPTIONS = {
    "resultTypes": ["violations"],
    "rules": {"label-content-name-mismatch": {"enabled": True}},
}


_AXE_RUN = """options => axe.run(document, options).then(results => results.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map(n => n.target),
})))"""
"""axe-core's run in the page, answering only what a failure says (the whole of axe's answer,
every rule's nodes, took the most of a check's time to cross from the page)."""


def violations(
    page: Any, impacts: tuple[str, ...] = ("serious", "critical"), only: str | None = None
) -> list[str]:
    """axe-core's violations of these impacts on the page as it is now (of rule ``only``)."""
    if not page.evaluate("typeof window.axe === 'object'"):  # once a document
        from axe_playwright_python.sync_playwright import Axe

        page.evaluate(Axe().axe_script)
    options = {**AXE_OPTIONS, "runOnly": [only]} if only else AXE_OPTIONS
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — {v['targets']}"
        for v in page.evaluate(_AXE_RUN, options)
        if v["impact"] in impacts
    ]


def serious_violations(page: Any) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now."""
    return violations(page)


def roll_screen(page: Any, base: str) -> None:
    open_game(page, base, "peaceful", 3)


def place_screen(page: Any, base: str) -> None:
    ui = open_game(page, base, "peaceful", 3)
    view = ui.perform({"type": "roll"})
    die = next(d for d in view["dice"] if d["legal_cells"])
    ui.perform({"type": "stage", "die": die["index"], "cell": die["legal_cells"][0]})
    other = next(d for d in ui.view()["dice"] if d["cell"] is None)
    page.click(f"[data-die='{other['index']}']")


def play_until(page: Any, base: str, ui: UiPlayer, phase: str, use_power: bool = True) -> None:
    """Play the page's game through the API until `phase` (the UI's play is test_browser_play's),
    then reload the page to show it."""
    view, bot = ui.view(), ViewPlayer(use_power)
    while view["phase"] != phase:
        body = {"version": view["version"], "action": bot.next_action(view)}
        r = page.request.post(f"{base}/api/games/{view['id']}/actions", data=body)
        assert r.ok, r.text()
        view = r.json()
    page.reload()


def magdagdon_screen(page: Any, base: str) -> None:
    ui = open_game(page, base, "peaceful", 0)  # seed 0 meets MAGDAGDON with a rescue
    play_until(page, base, ui, "magdagdon", use_power=False)
    page.wait_for_selector("#banner:not([hidden])")


def ruin_choice_screen(page: Any, base: str) -> None:
    magdagdon_screen(page, base)
    page.click("[data-intent='accept']")
    page.click("#confirm-yes")
    page.wait_for_selector(".square.ruin-choice")


def confirm_dialog(page: Any, base: str) -> None:
    ui = open_game(page, base, "peaceful", 3)
    ui.perform({"type": "roll"})
    page.click("[data-intent='reroll-start']")
    page.click("[data-die='0']")
    page.click("[data-intent='reroll-go']")
    page.wait_for_selector("#confirm[open]")


def sheet(screen: str) -> Callable[[Any, str], None]:
    def open_sheet(page: Any, base: str) -> None:
        page.goto(base)
        page.wait_for_selector("#app[aria-busy='false']")
        page.click("#menu-button")
        if screen != "menu":
            page.click(f"#sheet [data-intent='open'][data-screen='{screen}']")
        page.wait_for_selector("#sheet[open]")
        page.wait_for_load_state("networkidle")  # lists and texts load

    return open_sheet


def game_over(page: Any, base: str) -> None:
    play_until(page, base, open_game(page, base, "nightmare", 5), "over")
    # (the finished game's result is shown again after a reload)
    page.wait_for_selector(".final-score")


def hint_screen(page: Any, base: str) -> None:
    ui = open_game(page, base, "nightmare", 5)
    ui.perform({"type": "roll"})
    page.click("#hint-button")
    page.wait_for_selector(".square.hinted", timeout=COACH_WAIT_MS)
    page.click(".hint-more")  # the other plans unfolded


def review_screen(page: Any, base: str) -> None:
    game_over(page, base)
    page.click("#sheet [data-intent='review']")
    page.wait_for_selector(".review-turn", timeout=COACH_WAIT_MS)


def puzzle_screen(page: Any, base: str) -> None:
    """A rated puzzle, a die of its best plan lifted (its −1 and +1 shown where powers are
    held)."""
    puzzle = given_puzzle(page, base)
    open_puzzle(page, base, puzzle)
    die = best_of(puzzle)[0]["die"]
    page.click(f".puzzle-tray .die[data-die='{die}']")
    page.wait_for_selector(f".puzzle-tray .die[data-die='{die}'][aria-pressed='true']")
    page.wait_for_load_state("networkidle")  # (the rating's line)


def puzzle_result_screen(page: Any, base: str) -> None:
    """A puzzle missed: the verdict, the rating's change, both plans' boards and why."""
    puzzle = given_puzzle(page, base)
    open_puzzle(page, base, puzzle)
    play(page, missing_plan(puzzle))
    page.wait_for_load_state("networkidle")


def with_a_challenge(screen: str) -> Callable[[Any, str], None]:
    """A sheet of a player who has finished a game and made a challenge of it."""

    def open_sheet(page: Any, base: str) -> None:
        page.goto(base)
        page.wait_for_selector("#app[aria-busy='false']")
        quick_challenge(page, base, seed=23)
        sheet(screen)(page, base)

    return open_sheet


def walkthrough_screen(page: Any, base: str) -> None:
    page.goto(base)  # a first visit (see the test): the guided first game, at its third step
    page.wait_for_selector("#tour")
    page.click("[data-intent='roll']")  # (its first step's way on)
    page.click("[data-intent='tour-next']")


SCREENS: dict[str, Callable[[Any, str], None]] = {
    "walkthrough": walkthrough_screen,
    "roll": roll_screen,
    "place": place_screen,
    "magdagdon": magdagdon_screen,
    "ruin-choice": ruin_choice_screen,
    "confirm": confirm_dialog,
    "menu": sheet("menu"),
    "scores": sheet("scores"),
    "settings": sheet("settings"),
    "rules": sheet("rules"),
    "about": sheet("about"),
    "over": game_over,
    "hint": hint_screen,
    "review": review_screen,
    "puzzle": puzzle_screen,
    "puzzle-result": puzzle_result_screen,
    "challenges": with_a_challenge("challenges"),
    "mygames": with_a_challenge("mygames"),
    "stats": with_a_challenge("stats"),
    "leagues": sheet("leagues"),
    "daily": sheet("daily"),
    "account": sheet("account"),
}


@pytest.mark.parametrize("name", list(SCREENS))
def test_no_serious_accessibility_violations(browser: Any, live_server: str, name: str) -> None:
    """Each screen, set out once (at the first size) and checked at each size in light and in
    dark."""
    first = next(iter(SIZES.values()))
    context = browser.new_context(
        tour=name == "walkthrough",
        viewport=first,
        color_scheme="light",
        locale="en-US",
        reduced_motion="reduce",
    )
    page = context.new_page()
    try:
        SCREENS[name](page, live_server)
        for viewport in SIZES.values():
            page.set_viewport_size(viewport)
            for scheme in ("light", "dark"):
                page.emulate_media(color_scheme=scheme)
                screenshot(page, f"{name}-{scheme}-{viewport['width']}x{viewport['height']}")
                assert serious_violations(page) == [], (scheme, viewport)
    finally:
        context.close()


@pytest.mark.parametrize("language", ["et", "sv"])
def test_every_screen_in_estonian_and_swedish_on_a_short_phone(
    browser: Any, live_server: str, language: str
) -> None:
    """Where the words run longest: each screen at 375×667, light and dark (English is
    checked at each size above)."""
    for name, set_out in SCREENS.items():
        context = browser.new_context(
            tour=name == "walkthrough",
            viewport=SIZES["short phone"],
            locale=language,
            reduced_motion="reduce",
        )
        page = context.new_page()
        try:
            set_out(page, live_server)
            for scheme in ("light", "dark"):
                page.emulate_media(color_scheme=scheme)
                screenshot(page, f"{name}-{language}-{scheme}-375x667")
                assert serious_violations(page) == [], (name, scheme)
        finally:
            context.close()


def test_the_whole_game_screen_is_in_landmarks(page: Any, live_server: str) -> None:
    """The score, turn and powers line sat outside any landmark (axe's "region")."""
    place_screen(page, live_server)
    assert violations(page, ("minor", "moderate", "serious", "critical"), only="region") == []


def test_every_square_and_die_has_a_name(page: Any, live_server: str) -> None:
    place_screen(page, live_server)
    for node in page.locator(".square, .die").all():
        assert node.get_attribute("aria-label"), node.evaluate("n => n.outerHTML")
    staged = page.locator(".square.staged").first.get_attribute("aria-label") or ""
    assert "placed this turn" in staged
    die = page.locator(".die").first.get_attribute("aria-label") or ""
    assert die.startswith("Die 1, value ")


def test_the_live_region_announces_what_happened(page: Any, live_server: str) -> None:
    ui = open_game(page, live_server, "peaceful", 3)
    ui.perform({"type": "roll"})
    expect(page.locator("#live")).to_have_text(re.compile(r"^Rolled \d"))  # CSP forbids eval


def test_phone_width_of_360_fits_without_scrolling_sideways(browser: Any, live_server: str) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 740})
    page = context.new_page()
    page.goto(live_server)
    page.wait_for_selector("[data-intent='roll']")
    UiPlayer(page, live_server).perform({"type": "roll"})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    for node in page.locator(".square, .die, .button").all():
        box = node.bounding_box()
        assert box is None or (box["width"] >= 44 and box["height"] >= 44), node.inner_text()
    context.close()
