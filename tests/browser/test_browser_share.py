"""SHARE: the exact text of a finished game in English, Estonian and Swedish (js/share.js run
in the page on fixed game views), and the SHARE button of a regular game's result, which copies
that text to the clipboard where the browser has no Web Share."""

from __future__ import annotations

from typing import Any

import pytest

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
        f"MAGDAGDON Utmaning nr 1 · PEACEFUL\nPoäng 342 · Tränaren 365\n{DAILY_GRID}\n{REPLAY}",
        f"MAGDAGDON Utmaning nr 1 · PEACEFUL\nPoäng 342\n{DAILY_GRID}\n{REPLAY}",
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
    context.set_default_timeout(10_000)
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
