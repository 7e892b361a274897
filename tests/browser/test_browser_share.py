"""SHARE: the exact text of a finished game in English, Estonian and Swedish (js/share.js run
in the page on fixed game views), and the SHARE button of a regular game's result, which copies
that text to the clipboard where the browser has no Web Share."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright.sync_api import expect

from ..utils.api import COACH_WAIT, COACH_WAIT_MS
from ..utils.ui import screenshot
from .test_browser_screens import finish_game_quickly

ORIGIN = "https://magdagdon.example"


def line(total: int, bonus: str | None = None) -> dict[str, Any]:
    return {"sum": total, "bonus": bonus, "bonus_points": 60 if bonus else 0}


def view(
    board: str,
    total: int,
    *,
    difficulty: str = "peaceful",
    rows: tuple[str | None, ...] = (None,) * 4,
    columns: tuple[str | None, ...] = (None,) * 4,
    daily: dict[str, Any] | None = None,
    par: int | None = None,
) -> dict[str, Any]:
    """The parts of a finished game's view that SHARE reads."""
    score = {
        "rows": [line(10, b) for b in rows],
        "columns": [line(10, b) for b in columns],
        "total": total,
    }
    return {
        "id": "0123456789abcdef01234567",
        "difficulty": difficulty,
        "phase": "over",
        "board": board,
        "score": score,
        "final_score": score,
        "daily": daily,
        "par": par,
    }


# a daily with a STRAIGHT in row 1 and column 1 and a RUIN; the coach's score known
DAILY = view(
    "1234/2345/3X56/4566",
    342,
    rows=("straight", None, None, None),
    columns=("straight", None, None, None),
    daily={"date": "2026-12-01", "number": 1},
    par=365,
)
DAILY_GRID = "🟩🟩🟩🟩\n🟩🟨🟨🟨\n🟩💥🟨🟨\n🟩🟨🟨🟨"
# the same before the coach's score is known
DAILY_WITHOUT_PAR = {**DAILY, "par": None}
# a regular NIGHTMARE game below zero: no combo, two RUINS, a TWO PAIRS in column 4
REGULAR = view(
    "X123/2X34/3456/4566",
    -5,
    difficulty="nightmare",
    columns=(None, None, None, "two_pairs"),
)
REGULAR_GRID = "💥🟨🟨🟩\n🟨💥🟨🟩\n🟨🟨🟨🟩\n🟨🟨🟨🟩"
REPLAY = f"{ORIGIN}/replay/0123456789abcdef01234567"

EXPECTED = {
    "en": (
        f"MAGDAGDON Daily #1 · PEACEFUL\nScore 342 · Coach 365\n{DAILY_GRID}\n{REPLAY}",
        f"MAGDAGDON Daily #1 · PEACEFUL\nScore 342\n{DAILY_GRID}\n{REPLAY}",
        f"MAGDAGDON · NIGHTMARE\nScore −5\n{REGULAR_GRID}\n{REPLAY}",
    ),
    "et": (
        f"MAGDAGDON Päeva mäng nr 1 · PEACEFUL\nSkoor 342 · Treener 365\n{DAILY_GRID}\n{REPLAY}",
        f"MAGDAGDON Päeva mäng nr 1 · PEACEFUL\nSkoor 342\n{DAILY_GRID}\n{REPLAY}",
        f"MAGDAGDON · NIGHTMARE\nSkoor −5\n{REGULAR_GRID}\n{REPLAY}",
    ),
    "sv": (
        f"MAGDAGDON Dagsspel nr 1 · PEACEFUL\nPoäng 342 · Tränaren 365\n{DAILY_GRID}\n{REPLAY}",
        f"MAGDAGDON Dagsspel nr 1 · PEACEFUL\nPoäng 342\n{DAILY_GRID}\n{REPLAY}",
        f"MAGDAGDON · NIGHTMARE\nPoäng −5\n{REGULAR_GRID}\n{REPLAY}",
    ),
}

SHARE_TEXTS = """async ([language, games, origin]) => {
  const { loadCatalog } = await import('/js/i18n.js');
  const { shareText } = await import('/js/share.js');
  const t = await loadCatalog(language);
  return games.map((game) => shareText(t, game, { origin }));
}"""


def test_share_text_in_every_language(page: Any, live_server: str) -> None:
    page.goto(live_server)
    page.wait_for_selector("#app[aria-busy='false']")
    for language, expected in EXPECTED.items():
        texts = page.evaluate(SHARE_TEXTS, [language, [DAILY, DAILY_WITHOUT_PAR, REGULAR], ORIGIN])
        assert tuple(texts) == expected, language


@pytest.fixture
def clipboard_page(browser: Any, live_server: str) -> Any:
    """A phone page whose clipboard the test may read (and no Web Share, as on a desktop)."""
    context = browser.new_context(
        viewport={"width": 360, "height": 740}, locale="en-US", reduced_motion="reduce"
    )
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server)
    context.add_init_script("Object.defineProperty(navigator, 'share', { value: undefined })")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, errors


def clipboard(page: Any) -> str:
    text: str = page.evaluate("navigator.clipboard.readText()")
    return text


def test_share_a_regular_game_copies_its_text(clipboard_page: Any, live_server: str) -> None:
    page = clipboard_page
    page.goto(live_server)
    page.wait_for_selector("#app[aria-busy='false']")
    final = finish_game_quickly(page, live_server, "survival", 12)
    # the page shows the last game it remembers again, when it is finished
    page.evaluate("id => localStorage.setItem('magdagdon.lastGame', id)", final["id"])
    page.reload()
    page.locator("#sheet [data-intent='share']").click()
    page.wait_for_selector(".share-note")
    text = clipboard(page)
    lines = text.split("\n")
    assert lines[0] == "MAGDAGDON · SURVIVAL"
    assert lines[1] == f"Score {final['final_score']['total']}".replace("-", "−")
    assert len(lines) == 7 and all(len(row) == 4 for row in lines[2:6])
    assert set("".join(lines[2:6])) <= set("🟩🟨💥⬜")
    assert lines[6] == f"{live_server}/replay/{final['id']}"
    assert page.locator(".share-note").inner_text() == "Copied to the clipboard."
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    screenshot(page, "share-regular-360x740")


# WebKit's rule (and so every iPhone browser's), which Chromium does not keep: the clipboard
# only within the tap itself. A write after the tap's handler awaited a request is refused
# (NotAllowedError); a ClipboardItem whose text is a promise, written within the tap, is not.
WITHIN_THE_TAP = """(() => {
  let tapping = false;
  window.clipboardCalls = [];
  addEventListener("click", () => {
    tapping = true;
    setTimeout(() => { tapping = false; });
  }, true);
  const clipboard = navigator.clipboard;
  for (const name of ["writeText", "write"]) {
    const real = clipboard[name].bind(clipboard);
    clipboard[name] = (...args) => {
      window.clipboardCalls.push({ name, tapping });
      if (tapping) return real(...args);
      return Promise.reject(new DOMException("not in a tap", "NotAllowedError"));
    };
  }
})()"""


def webkit_daily_page(browser: Any, base: str, day: str) -> Any:
    """A new player's page living on ``day``, no Web Share, its clipboard readable and kept
    to WebKit's rule."""
    from .test_browser_daily import day_context, open_page

    context = day_context(browser, base, day)
    context.add_init_script(WITHIN_THE_TAP)
    return open_page(context, base)


class Held:
    """Requests held back (the page waits for them) until ``release``."""

    def __init__(self, page: Any, pattern: str) -> None:
        self.page, self.pattern = page, pattern
        self.routes: list[Any] = []
        page.route(pattern, self.hold)

    def hold(self, route: Any) -> None:
        self.routes.append(route)

    def release(self) -> None:
        for route in self.routes:
            route.continue_()
        self.page.unroute(self.pattern)


def without_par(route: Any) -> None:
    """Answer with the server's game view, its par (if computed already) left out."""
    response = route.fetch()
    view = response.json()
    route.fulfill(response=response, json={**view, "par": None})


def expected_text(page: Any, base: str, game: Any) -> str:
    """SHARE's text of a game view (shareText, whose exact words are checked above)."""
    texts: list[str] = page.evaluate(SHARE_TEXTS, ["en", [game], base])
    return texts[0]


def test_share_from_the_daily_list_copies_within_the_tap(browser: Any, live_server: str) -> None:
    """SHARE in the daily list awaited two requests before writing the clipboard, which WebKit
    refuses ("Copy this text" instead): the list fetches what SHARE needs when it is drawn,
    and a tap before that arrived gives the clipboard a promise of the text."""
    from .test_browser_daily import api, open_menu_item, play_through_api

    page = webkit_daily_page(browser, live_server, "2027-04-20")
    daily = api(page, live_server, "POST", "/api/daily/survival")
    final = play_through_api(page, live_server, daily, to_the_end=True)
    board = f"/api/daily/{final['daily']['date']}/survival/leaderboard"
    deadline = time.monotonic() + COACH_WAIT  # (the par is niced background work)
    while (par := api(page, live_server, "GET", board)["par"]) is None:  # the coach's score
        assert time.monotonic() < deadline, f"no par within {COACH_WAIT} s"
        page.wait_for_timeout(200)
    expected = expected_text(page, live_server, {**final, "par": par})
    assert f"· Coach {par}".replace("-", "−") in expected

    held = Held(page, f"**/api/games/{final['id']}")  # the list's fetch of the game, held
    open_menu_item(page, "daily")
    share = page.locator(f"#sheet [data-intent='share'][data-game='{final['id']}']")
    share.click()  # before the game arrived
    held.release()
    expect(page.locator("#sheet .share-note")).to_have_text("Copied to the clipboard.")
    assert clipboard(page) == expected
    share.click()  # and once it is here
    expect(page.locator("#sheet .share-note")).to_have_text("Copied to the clipboard.")
    assert clipboard(page) == expected
    calls = page.evaluate("window.clipboardCalls")
    assert [c["name"] for c in calls] == ["write", "writeText"] and all(c["tapping"] for c in calls)
    assert page.locator("#share-text").count() == 0  # never "Copy this text"
    screenshot(page, "share-daily-list-390x844")
    assert not page.errors, page.errors
    page.context.close()


def test_share_while_the_coach_plays_copies_within_the_tap(browser: Any, live_server: str) -> None:
    """SHARE on a daily's result while "The coach is playing these dice…" awaited the
    leaderboard before writing the clipboard: it copies what the sheet shows at once."""
    from .test_browser_daily import api, finish_in_page, play_through_api

    page = webkit_daily_page(browser, live_server, "2027-04-21")
    daily = api(page, live_server, "POST", "/api/daily/peaceful")
    view = play_through_api(page, live_server, daily)
    # the page shows the daily after a reload (today's, the last game it showed)
    page.evaluate("id => localStorage.setItem('magdagdon.lastGame', id)", daily["id"])
    held = Held(page, "**/leaderboard")  # the par and standing, held
    # the coach still playing: the par computed meanwhile (it takes well under a second) is
    # left out of the finished game's view, as when it is not computed yet
    page.route(f"**/api/games/{daily['id']}/actions", without_par)
    final = finish_in_page(page, live_server, view)
    page.unroute(f"**/api/games/{daily['id']}/actions")
    expect(page.locator("#sheet .daily-coach")).to_have_text("The coach is playing these dice…")
    page.click("#sheet [data-intent='share']")
    expect(page.locator("#sheet .share-note")).to_have_text("Copied to the clipboard.")
    assert clipboard(page) == expected_text(page, live_server, {**final, "par": None})
    assert page.evaluate("window.clipboardCalls") == [{"name": "writeText", "tapping": True}]
    held.release()
    expect(page.locator("#sheet .daily-coach")).to_have_text(
        re.compile(r"^The coach scored −?\d+ on these dice\.$"), timeout=COACH_WAIT_MS
    )
    assert not page.errors, page.errors
    page.context.close()
