"""The client's words: one capitalisation rule in every language (buttons in capitals, sheet
titles in sentence case), a bonus named once in the breakdown, MAGDAGDON's rescues as
buttons, what each difficulty means in SETTINGS, spent powers not drawn as dead buttons, and
no powers count in a NIGHTMARE replay."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from ..utils.ui import UiPlayer, screenshot
from .test_browser_a11y import magdagdon_screen
from .test_browser_replay import words
from .test_browser_screens import finish_game_quickly

LOCALES = {"en": "en-US", "et": "et-EE", "sv": "sv-SE"}
# the sizes every screen is looked at in, light and dark
LOOKS = [(375, 667), (390, 844)]
# written as the glossary writes them, in a title too (with an Estonian or Swedish ending)
GAME_TERMS = re.compile(r"MAGDAGDON\w*|PEACEFUL\w*|SURVIVAL\w*|NIGHTMARE\w*|Majda Power\w*")


def sentence_case(text: str) -> bool:
    plain = GAME_TERMS.sub("x", text)
    return text[:1].isupper() and plain[1:] == plain[1:].lower()


def look(page: Any, name: str) -> None:
    """Screenshots of the page as it is, at each size of LOOKS, light and dark."""
    size = page.viewport_size
    for width, height in LOOKS:
        page.set_viewport_size({"width": width, "height": height})
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            screenshot(page, f"{name}-{scheme}-{width}x{height}")
    page.emulate_media(color_scheme="light")
    page.set_viewport_size(size)


def check_words(page: Any, where: str, dialog: str = "#sheet") -> None:
    """The open sheet's title is in sentence case and every button's words in capitals."""
    if dialog == "#sheet":
        title = page.locator("#sheet-title").inner_text()
        assert sentence_case(title), (where, title)
    for node in page.locator(f"{dialog} .button").all():
        text = " ".join(node.evaluate("n => n.textContent").split())
        if text:  # (the high scores' review and replay buttons are icons)
            assert text == text.upper(), (where, text)


def new_page(browser: Any, locale: str) -> Any:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, locale=locale, reduced_motion="reduce"
    )
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    return page


def open_from_menu(page: Any, screen: str) -> None:
    page.click("#menu-button")
    page.click(f"#sheet [data-intent='open'][data-screen='{screen}']")
    page.wait_for_selector("#app[aria-busy='false']", state="attached")


@pytest.mark.parametrize("language", ["en", "et", "sv"])
def test_buttons_in_capitals_and_titles_in_sentence_case(
    browser: Any, live_server: str, language: str
) -> None:
    """The sheets mixed "SETTINGS" and "High scores", "NEW GAME" and "Review": every button
    (and link drawn as one) says its words in capitals, every sheet's title is in sentence
    case. SETTINGS says what each difficulty means."""
    page = new_page(browser, LOCALES[language])
    page.goto(live_server)
    page.wait_for_selector("#app[aria-busy='false'] [data-intent='roll']")
    page.click("[data-intent='roll']")
    page.wait_for_selector("#app[aria-busy='false'] [data-intent='confirm']")
    page.click("#menu-button")
    check_words(page, "menu")
    page.click("#sheet [data-intent='new-game']")  # the question: NEW GAME or CANCEL
    page.wait_for_selector("#confirm[open]")
    check_words(page, "the question", dialog="#confirm")
    page.click("#confirm [data-intent='confirm-no']")
    for screen, ready in (
        ("scores", "#sheet-body p, #sheet-body table"),
        ("rules", "#sheet-body h3"),
        ("about", "#sheet-body .heart"),
        ("stats", "#sheet-body .stats-numbers"),
        ("daily", "#sheet-body .daily-item"),
    ):
        page.keyboard.press("Escape")
        open_from_menu(page, screen)
        page.locator(ready).first.wait_for()
        check_words(page, screen)
    page.click("#sheet [data-intent='leaderboard']")  # ALL LEADERBOARDS
    page.locator(
        "#sheet-body .daily-facts, #sheet-body .daily-nobody, #sheet-body .error-text"
    ).first.wait_for()
    check_words(page, "leaderboard")
    look(page, f"words-daily-leaderboard-{language}")

    # SETTINGS: what each difficulty means, in the catalog's words
    page.keyboard.press("Escape")
    open_from_menu(page, "settings")
    meanings = page.locator("#sheet .difficulties div")
    expect(meanings).to_have_count(3)
    for n, name in enumerate(("peaceful", "survival", "nightmare")):
        entry = meanings.nth(n)
        assert entry.locator("dt").inner_text() == name.upper()
        assert entry.locator("dd").inner_text() == words(language, f"difficulty_{name}")
    assert meanings.nth(0).get_attribute("class") == "current"  # the game's, marked
    check_words(page, "settings")
    look(page, f"words-settings-{language}")

    # a finished game's result, shown again after a reload
    page.keyboard.press("Escape")
    final = finish_game_quickly(page, live_server, "peaceful", 23)
    page.evaluate("id => localStorage.setItem('magdagdon.lastGame', id)", final["id"])
    page.reload()
    page.wait_for_selector("#sheet[open] .final-score")
    check_words(page, "game over")
    look(page, f"words-over-{language}")
    assert not page.errors, page.errors
    page.context.close()


BREAKDOWN = """async (game) => {
  const { loadCatalog } = await import('/js/i18n.js');
  const { gameOver } = await import('/js/sheets.js');
  const t = await loadCatalog('en');
  const [, ...content] = gameOver(t, game);
  const table = content.find((node) => node && node.matches && node.matches('table.breakdown'));
  return [...table.querySelectorAll('tr')].map((tr) => [...tr.cells].map((td) => td.textContent));
}"""


def line(total: int, bonus: str | None = None, points: int = 0) -> dict[str, Any]:
    return {"sum": total, "bonus": bonus, "bonus_points": points}


def test_the_breakdown_names_each_bonus_once(page: Any, live_server: str) -> None:
    """The result said "Row 2: STRAIGHT +60 … +60": the points are in their column only."""
    page.goto(live_server)
    page.wait_for_selector("#app[aria-busy='false']")
    score = {
        "rows": [line(10), line(18, "straight", 60), line(12), line(8)],
        "columns": [line(20, "four", 40), line(10), line(10), line(10)],
        "base": 96,
        "ruins": 1,
        "ruin_penalty": 15,
        "power_penalty": 10,
        "total": 171,
    }
    game = {
        "id": "0123456789abcdef01234567",
        "difficulty": "peaceful",
        "final_score": score,
        "powers_total": 3,
        "powers_used": 1,
        "places": None,
        "hints_used": 0,
        "daily": None,
    }
    rows = page.evaluate(BREAKDOWN, game)
    assert rows == [
        ["Rows and columns", "96"],
        ["Row 2: STRAIGHT", "+60"],
        ["Column 1: FOUR", "+40"],
        ["1 RUIN", "−15"],
        ["1 Majda Power", "−10"],
        ["Total", "171"],
    ]


@pytest.mark.parametrize("language", ["en", "et", "sv"])
def test_a_rescue_is_a_button_for_its_power(browser: Any, live_server: str, language: str) -> None:
    """MAGDAGDON's rescue line named "die 2 −1" while −1 and +1 stayed grey until die 2 was
    tapped, unexplained: each rescue is a button (the die's face and the change) that asks for
    that power on that die, its cost said first, and applies it."""
    page = new_page(browser, LOCALES[language])
    magdagdon_screen(page, live_server)  # PEACEFUL, seed 0: a MAGDAGDON a power rescues
    ui = UiPlayer(page, live_server)
    view = ui.view()
    cost = view["next_power_cost"]
    rescues = page.locator("#powers [data-intent='rescue']")
    # dice of the same value are alike: one button for each value and change, on the first die
    alike: dict[tuple[int, int], Any] = {}
    for r in view["rescues"]:
        alike.setdefault((view["dice"][r["die"]]["value"], r["delta"]), r)
    expect(rescues).to_have_count(len(alike))
    expect(page.locator("#powers [data-intent='adjust']")).to_have_count(0)  # they stand for ±1
    lead = page.locator("#message")  # above the tray
    assert lead.inner_text() == words(language, "rescue_lead", cost=cost)
    for node, rescue in zip(rescues.all(), alike.values(), strict=True):
        change = "+1" if rescue["delta"] > 0 else "−1"
        assert node.inner_text() == change  # and the die's face
        assert node.locator("svg.die-face circle").count() == view["dice"][rescue["die"]]["value"]
        what = words(
            language,
            "hint_increase" if rescue["delta"] > 0 else "hint_decrease",
            n=rescue["die"] + 1,
        )
        assert node.get_attribute("aria-label") == what  # (it holds the "+1" it shows)
        expect(node).to_have_accessible_description(words(language, "power_cost", cost=cost))
    look(page, f"words-rescue-{language}")
    rescue = view["rescues"][0]
    rescues.first.click()
    question = page.locator("#confirm-text")
    expect(question).to_be_visible()
    what = words(
        language, "hint_increase" if rescue["delta"] > 0 else "hint_decrease", n=rescue["die"] + 1
    )
    assert question.inner_text() == words(language, "power_confirm", what=what, cost=cost)
    assert page.locator(f".die[data-die='{rescue['die']}']").get_attribute("aria-pressed") == "true"
    page.click("#confirm-yes")
    after = ui.wait_for_version(view["version"] + 1)
    assert after["powers_used"] == view["powers_used"] + 1
    before_value = view["dice"][rescue["die"]]["value"]
    assert after["dice"][rescue["die"]]["value"] == before_value + rescue["delta"]
    assert after["phase"] == "place"  # rescued
    assert not page.errors, page.errors
    page.context.close()


def test_in_magdagdon_a_tapped_die_offers_its_plus_and_minus_one(
    page: Any, live_server: str
) -> None:
    """In MAGDAGDON the powers' row holds the certain rescues and REROLL stands beside ACCEPT;
    a rescue in several steps (+1 twice, say) stays possible: a die tapped in the tray offers
    its −1 and +1 in place of the rescues, tapped again it gives the rescues back."""
    magdagdon_screen(page, live_server)  # PEACEFUL, seed 0
    powers, actions = page.locator("#powers"), page.locator("#actions")
    expect(actions.locator("[data-intent='reroll-start']")).to_be_visible()
    expect(actions.locator("[data-intent='accept']")).to_be_visible()
    expect(powers.locator("[data-intent='adjust']")).to_have_count(0)
    rescues = powers.locator("[data-intent='rescue']").count()
    assert rescues > 0
    page.click("[data-die='1']")
    expect(powers.locator("[data-intent='adjust']")).to_have_count(2)
    expect(powers.locator("[data-intent='rescue']")).to_have_count(0)
    cost = UiPlayer(page, live_server).view()["next_power_cost"]
    # said in words too, after what the button shows (voice control finds "minus one"); its
    # cost is its description
    for delta, shown, key in (("-1", "−1", "power_decrease"), ("1", "+1", "power_increase")):
        node = powers.locator(f"[data-delta='{delta}']")
        expect(node).to_have_accessible_name(f"{shown}, {words('en', key)}")
        expect(node).to_have_accessible_description(words("en", "power_cost", cost=cost))
    page.click("[data-die='1']")
    expect(powers.locator("[data-intent='rescue']")).to_have_count(rescues)
    expect(powers.locator("[data-intent='adjust']")).to_have_count(0)


def test_spent_powers_are_not_dead_buttons(page: Any, live_server: str) -> None:
    """Spent powers stayed as grey buttons: once none is left the row of powers is gone and
    the status line says so."""
    page.goto(f"{live_server}/?seed=31")
    page.wait_for_selector("#app[aria-busy='false'] [data-intent='roll']")
    page.click("#difficulty-chip")
    page.click("[data-intent='set-difficulty'][data-difficulty='survival']")
    page.wait_for_selector("#difficulty-chip:has-text('SURVIVAL')")
    ui = UiPlayer(page, live_server)
    view = ui.perform({"type": "roll"})
    powers = page.locator("#powers")
    expect(powers.locator("[data-intent='reroll-start']")).to_be_enabled()
    view = ui.perform({"type": "reroll", "dice": [0]})  # SURVIVAL's one Majda Power
    assert view["powers_left"] == 0 and view["phase"] in ("place", "magdagdon")
    expect(powers).to_be_hidden()
    assert page.locator("#powers button").count() == 0
    expect(page.locator("#status-powers")).to_have_text("No Majda Powers left")
    look(page, "words-powers-spent-en")


def test_a_nightmare_replay_shows_no_powers(page: Any, live_server: str) -> None:
    """The replay said "Powers 0" in NIGHTMARE, which has none."""
    page.goto(live_server)
    page.wait_for_selector("#app[aria-busy='false']")
    for difficulty, shown in (("nightmare", False), ("survival", True)):
        final = finish_game_quickly(page, live_server, difficulty, 5)
        page.goto(f"{live_server}/replay/{final['id']}")
        page.wait_for_selector("#replay-slider")
        status = page.locator(".replay .status")
        assert words("en", "score") in status.inner_text()
        assert page.locator("#replay-powers").count() == (1 if shown else 0), difficulty
        assert (words("en", "powers") in status.inner_text()) == shown
        if not shown:
            look(page, "words-replay-nightmare-en")
