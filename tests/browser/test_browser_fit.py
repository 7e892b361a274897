"""The next move is always on screen: for every state of a turn, in each language, at each
size of phone and on a desktop, the control that moves the game on lies wholly inside the
viewport without scrolling, and nothing scrolls sideways.

On a 390×844 phone a MAGDAGDON with a rescue put ACCEPT MAGDAGDON below the fold (in
Estonian out of sight); at 375×667 it sat at 851–899 px in English too, and an open hint
pushed its plan and HIDE HINT down. Each state is reached once per language (through the
API in the page's own session, then the page reloaded or clicked), then measured at every
size; the failures are gathered and reported together."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from ..utils.api import COACH_WAIT_MS, ViewPlayer
from ..utils.ui import screenshot
from .conftest import player_page

LOCALES = {"en": "en-US", "et": "et-EE", "sv": "sv-SE"}
SIZES = [(360, 640), (375, 667), (390, 844), (412, 915), (1280, 800)]
SHOWN = [(360, 640), (1280, 800)]  # the sizes each state is kept as a screenshot at
DAY = "2026-12-09"  # the daily's own day (the test server reads X-Magdagdon-Test-Date)

# What must be wholly on screen in each state: the controls that move the game on, and what
# the player needs to choose them (the board where a square is the move, the dice in the tray).
MUST_SEE: dict[str, list[str]] = {
    "roll": ["#board", "[data-intent='roll']"],
    "place": ["#board", "#tray .die", ".square.legal", "[data-intent='confirm']"],
    "confirm": ["#board", "#tray .die", "[data-intent='confirm']:not([disabled])"],
    "magdagdon": ["#board", "#banner", "[data-intent='accept']"],
    "rescue": [
        "#board",
        "#banner",
        "#message",
        "[data-intent='rescue']",
        "[data-intent='reroll-start']",
        "[data-intent='accept']",
    ],
    "rescue-reroll": ["#tray .die", "[data-intent='reroll-go']", "[data-intent='reroll-cancel']"],
    "ruin": [".square.ruin-choice", "#banner", "[data-intent='ruin-cancel']"],
    "reroll": ["#tray .die", "[data-intent='reroll-go']", "[data-intent='reroll-cancel']"],
    "hint": ["#board", ".hint-plan", "[data-intent='hint-close']", "[data-intent='confirm']"],
    "over": ["#sheet-title", ".final-score", "#sheet [data-intent='new-game']"],
    "over-closed": ["#board", "[data-intent='new-game']"],
    "daily": [
        "#sheet-title",
        ".final-score",
        ".daily-coach",
        "#sheet [data-intent='back-to-game']",
    ],
}

# Finds the nodes of each selector that are drawn, and says where one reaches out of the
# viewport or out of a box that scrolls (a sheet's body), or is covered at its centre, or
# that none is drawn; and whether the page scrolls sideways or was scrolled.
MEASURE = """(selectors) => {
  const out = [];
  const w = window.innerWidth, h = window.innerHeight;
  const root = document.scrollingElement;
  if (root.scrollWidth > w) out.push(`scrolls sideways: ${root.scrollWidth} > ${w}`);
  if (root.scrollTop !== 0) out.push(`scrolled to ${root.scrollTop}`);
  const at = (r) => [r.left, r.top, r.right, r.bottom].map(Math.round).join(",");
  const outside = (r, box) => r.top < box.top - 0.5 || r.left < box.left - 0.5
    || r.bottom > box.bottom + 0.5 || r.right > box.right + 0.5;
  for (const selector of selectors) {
    const nodes = [...document.querySelectorAll(selector)].filter((n) => n.getClientRects().length);
    if (!nodes.length) { out.push(`${selector}: not drawn`); continue; }
    for (const n of nodes) {
      const r = n.getBoundingClientRect();
      if (outside(r, { top: 0, left: 0, bottom: h, right: w })) {
        out.push(`${selector} at ${at(r)}`);
        continue;
      }
      for (let box = n.parentElement; box; box = box.parentElement) {
        const style = getComputedStyle(box);
        if (style.overflowY === "visible" && style.overflowX === "visible") continue;
        const b = box.getBoundingClientRect();
        const inner = { top: b.top + box.clientTop, left: b.left + box.clientLeft };
        inner.bottom = inner.top + box.clientHeight;
        inner.right = inner.left + box.clientWidth;
        const name = box.id || box.className;
        if (outside(r, inner)) out.push(`${selector} at ${at(r)}, hidden by ${name} ${at(inner)}`);
      }
      const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
      const over = hit && hit !== n && !n.contains(hit);
      if (over) out.push(`${selector} covered by ${hit.id || hit.className}`);
      const spills = n.scrollWidth > n.clientWidth + 1 || n.scrollHeight > n.clientHeight + 1;
      if (n.matches(".button") && spills) out.push(`${selector}: its words spill out`);
    }
  }
  return out;
}"""
SETTLED = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


def post(page: Any, base: str, path: str, body: Any) -> Any:
    r = page.request.post(base + path, data=body)
    assert r.ok, (path, r.status, r.text())
    return r.json()


def get(page: Any, base: str, path: str) -> Any:
    r = page.request.get(base + path)
    assert r.ok, (path, r.status, r.text())
    return r.json()


def play_until(page: Any, base: str, view: Any, done: Callable[[Any], bool], power: bool) -> Any:
    """Play the game through the API (the page's own session) until ``done(view)``."""
    bot = ViewPlayer(power)
    while not done(view):
        body = {"version": view["version"], "action": bot.next_action(view)}
        view = post(page, base, f"/api/games/{view['id']}/actions", body)
    return view


def game_at(page: Any, base: str, difficulty: str, seed: int, done: Callable[[Any], bool]) -> Any:
    """A new game of this seed, played until ``done``; the page reloaded to show it."""
    view = post(page, base, "/api/games", {"difficulty": difficulty, "seed": seed, "abandon": True})
    if done(dict(view, phase="over")):  # a finished game is shown again once the page showed it
        page.reload()
        page.wait_for_selector("#app[aria-busy='false']")
    view = play_until(page, base, view, done, power=False)
    page.reload()
    page.wait_for_selector("#app[aria-busy='false']")
    return view


def phase(name: str) -> Callable[[Any], bool]:
    return lambda view: view["phase"] == name


def to_roll(page: Any, base: str) -> None:
    game_at(page, base, "peaceful", 3, phase("roll"))


def to_place(page: Any, base: str) -> None:
    view = game_at(page, base, "peaceful", 3, phase("place"))
    die = next(d for d in view["dice"] if d["legal_cells"])
    page.click(f"[data-die='{die['index']}']")
    page.wait_for_selector(".square.legal")


def to_confirm(page: Any, base: str) -> None:
    game_at(page, base, "peaceful", 3, lambda view: view["can_confirm"])
    page.wait_for_selector("[data-intent='confirm']:not([disabled])")


def to_magdagdon(page: Any, base: str) -> None:
    game_at(page, base, "nightmare", 5, phase("magdagdon"))  # NIGHTMARE: no powers, no rescue


def to_rescue(page: Any, base: str) -> None:
    game_at(page, base, "peaceful", 0, phase("magdagdon"))  # seed 0 meets one a power rescues
    page.wait_for_selector("[data-intent='rescue']")


def to_rescue_reroll(page: Any, base: str) -> None:  # from the rescue's screen
    page.click("[data-intent='reroll-start']")
    page.click("[data-die='0']")
    page.wait_for_selector("[data-intent='reroll-go']:not([disabled])")


def to_ruin(page: Any, base: str) -> None:  # from the rescue's REROLL
    page.click("[data-intent='reroll-cancel']")
    page.click("[data-intent='accept']")
    page.click("#confirm-yes")
    page.wait_for_selector(".square.ruin-choice")


def to_reroll(page: Any, base: str) -> None:
    game_at(page, base, "peaceful", 3, phase("place"))
    page.click("[data-intent='reroll-start']")
    page.click("[data-die='0']")
    page.wait_for_selector("[data-intent='reroll-go']:not([disabled])")


def to_hint(page: Any, base: str) -> None:
    game_at(page, base, "nightmare", 5, phase("place"))
    page.click("#hint-button")
    page.wait_for_selector(".square.hinted", timeout=COACH_WAIT_MS)


def to_over(page: Any, base: str) -> None:
    game_at(page, base, "nightmare", 5, phase("over"))
    page.wait_for_selector("#sheet[open] .final-score")


def to_over_closed(page: Any, base: str) -> None:  # from the result's screen
    page.keyboard.press("Escape")
    page.wait_for_selector("#sheet:not([open])", state="attached")


def to_daily(page: Any, base: str) -> None:
    if page.locator("#sheet[open]").count():
        page.keyboard.press("Escape")
    page.click("#menu-button")
    page.click("#sheet [data-intent='open'][data-screen='daily']")
    page.click("#sheet [data-intent='daily-play'][data-difficulty='nightmare']")
    page.wait_for_selector("#difficulty-chip.daily-chip")
    listing = get(page, base, "/api/daily")
    entry = next(g for g in listing["games"] if g["difficulty"] == "nightmare")
    play_until(page, base, get(page, base, f"/api/games/{entry['game_id']}"), phase("over"), False)
    page.reload()
    page.wait_for_selector("#sheet[open] .final-score")
    # the coach's score on these dice, not the line saying it is being computed
    page.wait_for_selector("#sheet .daily-coach >> text=/\\d/", timeout=COACH_WAIT_MS)


# (in this order: REROLL's choice in a MAGDAGDON and then the RUIN's come from the rescue's
# screen, the closed result from the open one)
STATES: dict[str, Callable[[Any, str], None]] = {
    "roll": to_roll,
    "place": to_place,
    "confirm": to_confirm,
    "magdagdon": to_magdagdon,
    "rescue": to_rescue,
    "rescue-reroll": to_rescue_reroll,
    "ruin": to_ruin,
    "reroll": to_reroll,
    "hint": to_hint,
    "over": to_over,
    "over-closed": to_over_closed,
    "daily": to_daily,
}


def measure(page: Any, state: str, language: str) -> list[str]:
    """What is out of view in ``state``, at every size (a screenshot at those SHOWN)."""
    failures = []
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("window.scrollTo(0, 0)")
        page.evaluate(SETTLED)
        for problem in page.evaluate(MEASURE, MUST_SEE[state]):
            failures.append(f"{width}x{height} {state}: {problem}")
        if (width, height) in SHOWN:
            screenshot(page, f"fit-{state}-{language}-{width}x{height}")
    return failures


@pytest.mark.parametrize("language", list(LOCALES))
def test_the_next_move_is_on_screen(browser: Any, live_server: str, language: str) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        locale=LOCALES[language],
        reduced_motion="reduce",
        extra_http_headers={"X-Magdagdon-Test-Date": DAY},
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(live_server)
    page.wait_for_selector("#app[aria-busy='false'] [data-intent='roll']")
    failures: list[str] = []
    for state, reach in STATES.items():
        page.set_viewport_size({"width": 390, "height": 844})
        reach(page, live_server)
        failures += measure(page, state, language)
    context.close()
    assert not errors, errors
    assert not failures, "\n".join(failures)


SQUARE = """() => {
  const square = document.querySelector(".square");
  const cell = getComputedStyle(square).getPropertyValue("--cell").trim();
  return [cell, square.getBoundingClientRect().width];
}"""


@pytest.mark.parametrize("size", [(375, 667), (1280, 800)])
def test_a_squares_size_is_a_length_worked_out_once(
    browser: Any, live_server: str, size: tuple[int, int]
) -> None:
    """The squares' size (``--cell``) is a length by the time a square uses it, worked out where
    it is set: on a phone in the board's box (cqw, cqh), which the board, each square and each
    badge measured again at every layout of that box when it was a plain custom property (a
    fifth of the browser's work at each move, BENCHMARKS.md); the squares are as wide as it
    says. (At 1280×800 it is the page's own, in svh: the desktop's length all the same.)"""
    width, height = size
    with player_page(browser, width, height) as page:
        page.goto(live_server)
        page.wait_for_selector("[data-intent='roll']")
        cell, square = page.evaluate(SQUARE)
        assert re.fullmatch(r"\d+(\.\d+)?px", cell), cell
        assert abs(float(cell.removesuffix("px")) - square) < 0.5, (cell, square)
