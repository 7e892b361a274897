"""The goal on the board: what each open line can still make, and why a square is not lit for
the selected die, in each language (issue #14; the server says both, the client shows them)."""

from __future__ import annotations

from typing import Any

import pytest

from ..utils.api import COACH_WAIT_MS
from ..utils.ui import screenshot
from .test_browser_play import open_game

EXPECTED = {
    "en": ("STRAIGHT", "must touch a number"),
    "et": ("SIRGE", "peab puudutama"),
    "sv": ("STEGE", "måste röra"),
}


@pytest.mark.parametrize("language", ["en", "et", "sv"])
def test_prospects_and_the_why_not_line(browser: Any, live_server: str, language: str) -> None:
    context = browser.new_context(
        viewport={"width": 360, "height": 740}, locale=language, reduced_motion="reduce"
    )
    page = context.new_page()
    ui = open_game(page, live_server, "peaceful", 61)
    page.click("[data-intent='roll']")
    view = ui.wait_for_version(1)
    die = next(d for d in view["dice"] if d["legal_cells"])
    page.click(f"[data-die='{die['index']}']")
    page.click(f"[data-square='{die['legal_cells'][0]}']")
    view = ui.wait_for_version(2)
    # the sums show each open line's best prospect, as the view says
    bonus, why = EXPECTED[language]
    sums = [*page.locator(".sum.row").all(), *page.locator(".sum.col").all()]
    for node, prospect in zip(sums, view["prospects"], strict=True):
        shown = node.locator(".badge.prospect")
        if prospect is None:
            assert shown.count() == 0
        else:
            assert f"+{prospect['points']}?" in shown.inner_text()
    assert any(bonus in s.inner_text() for s in sums)
    # a square the next die may not go on: the reason in one line, nothing sent
    other = next(d for d in view["dice"] if d["cell"] is None)
    blocked = next(b for b in other["blocked"] if b["code"] == "not_adjacent")
    page.click(f"[data-die='{other['index']}']")
    page.click(f"[data-square='{blocked['cell']}']", force=True)  # not lit: aria-disabled
    page.wait_for_selector("#message.why-not")
    assert why in page.locator("#message").inner_text()
    assert ui.view()["version"] == view["version"]
    screenshot(page, f"goal-{language}-360x740")
    context.close()


def test_the_prospect_is_read_out_and_gone_once_the_line_is_done(
    page: Any, live_server: str
) -> None:
    ui = open_game(page, live_server, "peaceful", 62)
    page.click("[data-intent='roll']")
    view = ui.wait_for_version(1)
    label = page.locator(".sum.row").first.get_attribute("aria-label") or ""
    prospect = view["prospects"][0]
    assert prospect and "can still make" in label and str(prospect["points"]) in label


def test_numbers_in_each_language(page: Any, live_server: str) -> None:
    """Decimals as each language writes them (Intl), a minus sign in negative scores."""
    page.goto(live_server)
    page.wait_for_selector("[data-intent='roll']")
    written = page.evaluate(
        """async () => {
            const i18n = await import("/js/i18n.js");
            const out = {};
            for (const language of ["en", "et", "sv"]) {
                const t = await i18n.loadCatalog(language);
                out[language] = [t.decimal(12.5), t.decimal(-0.25), t.number(-10), t.number(7)];
            }
            return out;
        }"""
    )
    assert written == {
        "en": ["12.5", "−0.3", "−10", "7"],
        "et": ["12,5", "−0,3", "−10", "7"],
        "sv": ["12,5", "−0,3", "−10", "7"],
    }


def test_every_button_is_a_touch_target_and_lit_squares_show_no_dot(
    browser: Any, live_server: str
) -> None:
    """Issue #14: HINT and the difficulty chip were under 44 px; the lit-square marker was a
    centred dot, like a die showing 1."""
    context = browser.new_context(viewport={"width": 360, "height": 740}, reduced_motion="reduce")
    page = context.new_page()
    ui = open_game(page, live_server, "peaceful", 63)
    page.click("[data-intent='roll']")
    view = ui.wait_for_version(1)
    page.click(f"[data-die='{next(d for d in view['dice'] if d['legal_cells'])['index']}']")
    for button in page.locator("button:visible").all():
        box = button.bounding_box()
        assert box and box["height"] >= 44 and box["width"] >= 44, (button.inner_text(), box)
    lit = page.locator(".square.legal").first
    mark = lit.evaluate("node => getComputedStyle(node, '::after').content")
    assert mark == '"+"'
    context.close()


def test_a_refused_name_is_explained_in_the_players_language_and_kept(
    browser: Any, live_server: str
) -> None:
    """The server's English message reached Estonian and Swedish players, and the field was
    emptied (issue #14)."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="et")
    page = context.new_page()
    page.goto(live_server)
    page.wait_for_selector("#app[aria-busy='false']")
    page.click("#menu-button")
    page.click("#sheet [data-intent='open'][data-screen='scores']")
    page.wait_for_selector("#name-input")
    page.wait_for_load_state("networkidle")  # the table and the name loaded (they repaint it)
    page.fill("#name-input", "Majdu<ška>")
    page.click("form[data-form='name'] button[type='submit']")
    page.wait_for_selector(".error-text")
    assert page.locator(".error-text").inner_text().startswith("Nimes on 1 kuni 24")
    assert page.locator("#name-input").input_value() == "Majdu<ška>"
    context.close()


def test_a_name_being_typed_survives_the_table_drawn_again(page: Any, live_server: str) -> None:
    """The high-score table arriving while a name is typed drew the form again with the name
    stored (none): what was typed was gone, and SAVE sent an empty name."""
    page.goto(live_server)
    page.wait_for_selector("#app[aria-busy='false']")
    page.click("#menu-button")
    page.click("#sheet [data-intent='open'][data-screen='scores']")
    page.wait_for_selector("#name-input")
    page.fill("#name-input", "Kärt")
    page.click("[data-intent='scores-scope'][data-scope='me']")  # the table drawn again
    page.wait_for_selector("[data-intent='scores-scope'][data-scope='me'][aria-pressed='true']")
    page.wait_for_load_state("networkidle")  # the table and the name loaded, and drawn
    assert page.locator("#name-input").input_value() == "Kärt"


def test_focus_returns_to_the_board_after_magdagdon_and_dialogs(
    page: Any, live_server: str
) -> None:
    """With the keyboard: after ACCEPT MAGDAGDON and its question (the button is gone), after
    the RUIN, and after a sheet closes, the focus is on the board or on what opened it, never
    on <body> (issue #14)."""
    from .test_browser_a11y import magdagdon_screen

    def focused() -> str:
        return str(page.evaluate("document.activeElement.className || document.activeElement.id"))

    magdagdon_screen(page, live_server)
    page.locator("[data-intent='accept']").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#confirm-yes")
    page.locator("#confirm-yes").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(".square.ruin-choice")
    assert "square" in focused(), focused()
    page.locator(".square.ruin-choice").first.focus()
    page.keyboard.press("Enter")  # the RUIN on that square
    page.wait_for_selector("#banner[hidden]", state="attached")
    assert "square" in focused(), focused()
    page.click("#menu-button")
    page.wait_for_selector("#sheet[open]")
    page.keyboard.press("Escape")
    page.wait_for_selector("#sheet:not([open])", state="attached")
    assert page.evaluate("document.activeElement.id") == "menu-button"


def test_the_high_scores_fit_a_360_px_phone(browser: Any, live_server: str) -> None:
    """The table was 479 px inside a 352 px sheet and scrolled sideways, hiding Powers, Hints
    and Review; on a phone each row is a card (issue #14)."""
    from .test_browser_screens import finish_game_quickly

    context = browser.new_context(viewport={"width": 360, "height": 740}, reduced_motion="reduce")
    page = context.new_page()
    page.goto(live_server)
    page.wait_for_selector("[data-intent='roll']")
    finish_game_quickly(page, live_server, "survival", 9)
    page.click("#menu-button")
    page.click("#sheet [data-intent='open'][data-screen='scores']")
    page.click("[data-intent='scores-difficulty'][data-difficulty='survival']")
    page.click(
        "[data-intent='scores-scope'][data-scope='me']"
    )  # other tests' games may fill the top ten
    page.locator("tr.mine").first.wait_for()
    sheet = page.locator("#sheet")
    widths = sheet.evaluate("node => [node.scrollWidth, node.clientWidth]")
    assert widths[0] <= widths[1], widths  # nothing to scroll sideways
    card = page.locator("tr.mine").first
    for label in ("Majda Powers", "Hints"):  # shown, and named (the label is drawn by CSS)
        cell = card.locator(f"td[data-label='{label}']")
        assert cell.is_visible()
        named = cell.evaluate("node => getComputedStyle(node, '::before').content")
        assert label in named
    review = card.locator("[data-intent='review']")
    box, sheet_box = review.bounding_box(), sheet.bounding_box()
    assert box and sheet_box and box["x"] + box["width"] <= sheet_box["x"] + sheet_box["width"]
    save = page.locator("form[data-form='name'] button[type='submit']").bounding_box()
    assert save and save["x"] + save["width"] <= sheet_box["x"] + sheet_box["width"] - 8
    screenshot(page, "scores-cards-360x740")
    context.close()


@pytest.mark.parametrize("width", [360, 390])
def test_the_game_over_sheet_and_the_menu_read_cleanly(
    browser: Any, live_server: str, width: int
) -> None:
    """Issue #14: NEW GAME wrapped (and overflowed) in the game-over sheet; the menu mixed
    capitals (NEW GAME, High scores, SETTINGS, Rules)."""
    context = browser.new_context(viewport={"width": width, "height": 800}, reduced_motion="reduce")
    page = context.new_page()
    ui = open_game(page, live_server, "nightmare", 5)
    ui.play_to_end(use_power=False)
    page.wait_for_selector("#sheet[open] [data-intent='new-game']")
    sheet = page.locator("#sheet").bounding_box()
    for button in page.locator("#sheet .actions .button").all():
        box = button.bounding_box()
        assert box and sheet and box["height"] < 52, (button.inner_text(), box)  # one line
        assert box["x"] + box["width"] <= sheet["x"] + sheet["width"]
    screenshot(page, f"over-actions-{width}")
    page.keyboard.press("Escape")
    page.click("#menu-button")
    entries = [b.inner_text() for b in page.locator("#sheet .menu-list .button").all()]
    assert entries and all(entry == entry.upper() for entry in entries), entries
    context.close()


@pytest.mark.parametrize("language", ["en", "et", "sv"])
def test_nothing_sticks_out_of_a_360_px_phone(
    browser: Any, live_server: str, language: str
) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 740}, locale=language)
    page = context.new_page()
    page.goto(live_server)
    page.wait_for_selector("[data-intent='roll']")
    page.click("[data-intent='roll']")
    page.wait_for_selector(".die")
    for node in page.locator("header button, #status > *, #actions button, #powers button").all():
        box = node.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 360, (node.inner_text(), box)
    context.close()


def test_row_sums_are_read_out_in_the_new_language(page: Any, live_server: str) -> None:
    """After a language switch the row sums' labels were left in the old language when their
    value had not changed (issue #14)."""
    open_game(page, live_server, "peaceful", 64)
    before = page.locator(".sum.row").first.get_attribute("aria-label") or ""
    assert before.startswith("Row 1")
    page.click("#menu-button")
    page.click("#sheet [data-intent='open'][data-screen='settings']")
    page.select_option("#language-select", "sv")
    page.wait_for_selector("html[lang='sv']", state="attached")
    page.keyboard.press("Escape")
    page.wait_for_selector("#sheet:not([open])", state="attached")
    label = page.locator(".sum.row").first.get_attribute("aria-label") or ""
    assert not label.startswith("Row 1") and label.startswith("Rad 1"), label


def test_the_hint_in_magdagdon_leaves_accept_and_the_powers_on_a_phone(
    browser: Any, live_server: str
) -> None:
    """During MAGDAGDON on a phone the hint panel pushed ACCEPT and the powers below the
    screen (issue #14)."""
    from ..utils.api import ViewPlayer
    from ..utils.ui import UiPlayer

    context = browser.new_context(viewport={"width": 390, "height": 844}, reduced_motion="reduce")
    page = context.new_page()
    ui: UiPlayer = open_game(page, live_server, "peaceful", 0)  # meets MAGDAGDON with a rescue
    bot = ViewPlayer(use_power=False)
    view = ui.view()
    while view["phase"] != "magdagdon":
        view = ui.perform(bot.next_action(view))
    page.wait_for_selector("#banner:not([hidden])")
    page.click("#hint-button")
    page.wait_for_selector("#hint-panel:not([hidden])", timeout=COACH_WAIT_MS)
    screenshot(page, "magdagdon-hint-390x844")
    for selector in ("[data-intent='accept']", "#powers button"):
        box = page.locator(selector).first.bounding_box()
        assert box and box["y"] + box["height"] <= 844, (selector, box)
    context.close()


def test_reroll_mode_says_what_to_do_in_magdagdon_too(page: Any, live_server: str) -> None:
    from .test_browser_a11y import magdagdon_screen

    magdagdon_screen(page, live_server)
    page.click("[data-intent='reroll-start']")
    assert page.locator("#message").inner_text() == "Choose the dice to reroll."
