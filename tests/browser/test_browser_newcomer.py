"""What a new player met (issue 33): the replay's controls and an open hint on a short phone,
the board that changed size with the words above the tray, a tap on an empty square that said
nothing, a transfer link pasted into an open tab, the last scores' list, a row's badge wider
than its column, the account's devices all alike and its errors out of view, a passkey that
cannot work here said to be cancelled, and a session ended on another device said only after a
reload. The layout is measured at 360×640 and 375×667 in English, Estonian and Swedish
(MEASURE, test_browser_fit.py), kept as screenshots at 375×667 in Estonian and Swedish, light
and dark."""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Any

import pytest
from playwright.sync_api import expect

from ..utils.api import COACH_WAIT_MS, ViewPlayer
from ..utils.ui import screenshot
from .test_browser_account import authenticator, localhost
from .test_browser_daily import api, day_context, open_menu_item, open_page
from .test_browser_fit import MEASURE, SETTLED
from .test_browser_replay import words
from .test_browser_stats import finish_regular_game

LOCALES = {"en": "en-US", "et": "et-EE", "sv": "sv-SE"}
SHORT = [(360, 640), (375, 667)]
SHOWN = {"et", "sv"}  # the languages kept as screenshots at 375×667, light and dark
DAY = "2026-12-14"


def context_for(browser: Any, base: str, language: str, scheme: str = "light") -> Any:
    return day_context(
        browser,
        base,
        DAY,
        locale=LOCALES[language],
        viewport={"width": 375, "height": 667},
        scheme=scheme,
    )


def play(page: Any, base: str, view: Any, done: Any, power: bool = False) -> Any:
    """The game played through the API (the page's session) until ``done(view)``."""
    bot = ViewPlayer(power)
    while not done(view):
        body = {"version": view["version"], "action": bot.next_action(view)}
        view = api(page, base, "POST", f"/api/games/{view['id']}/actions", body)
    return view


def seeded(page: Any, base: str, difficulty: str, seed: int, done: Any) -> Any:
    """A new game of these dice played until ``done``, the page reloaded to show it."""
    view = api(
        page, base, "POST", "/api/games", {"difficulty": difficulty, "seed": seed, "abandon": True}
    )
    view = play(page, base, view, done)
    page.reload()
    page.wait_for_selector("#app[aria-busy='false'] #board .square")
    return view


def out_of_view(page: Any, selectors: list[str], where: str) -> list[str]:
    """What of ``selectors`` is not wholly on screen at each short size (MEASURE's words)."""
    failures = []
    for width, height in SHORT:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("window.scrollTo(0, 0)")
        page.evaluate(SETTLED)
        failures += [f"{where} {width}x{height}: {p}" for p in page.evaluate(MEASURE, selectors)]
    return failures


def shots(browser: Any, base: str, language: str, name: str, reach: Any) -> None:
    """Screenshots at 375×667 in light and dark of the state ``reach(page)`` leads to."""
    if language not in SHOWN:
        return
    for scheme in ("light", "dark"):
        context = context_for(browser, base, language, scheme)
        page = open_page(context, base)
        reach(page)
        page.evaluate(SETTLED)
        screenshot(page, f"newcomer-{name}-{language}-375x667-{scheme}")
        context.close()


# --- 5. the replay viewer's controls on screen ---------------------------------------------

REPLAY_MUST_SEE = [".replay-board", "#replay-caption", "#replay-slider", ".replay-controls .button"]


@pytest.mark.parametrize("language", list(LOCALES))
def test_the_replays_controls_are_on_a_short_phones_screen(
    browser: Any, live_server: str, language: str
) -> None:
    """The controls sat at y 650–708 of a 708–718 px page, 100 px of blank below the board."""
    context = context_for(browser, live_server, language)
    page = open_page(context, live_server)
    view = api(
        page,
        live_server,
        "POST",
        "/api/games",
        {"difficulty": "peaceful", "seed": 0, "abandon": True},
    )
    view = play(page, live_server, view, lambda v: v["phase"] == "over", power=True)
    address = f"{live_server}/replay/{view['id']}"

    def watch(p: Any) -> None:
        p.goto(address)
        p.wait_for_selector(".replay-board .square")
        p.click("[data-replay='last']")  # the final board: its badges and all its dice
        expect(p.locator("#replay-caption")).to_have_text(re.compile(r"\d"))

    watch(page)
    failures = out_of_view(page, REPLAY_MUST_SEE, "replay, last frame")
    page.click("[data-replay='first']")
    failures += out_of_view(page, REPLAY_MUST_SEE, "replay, first frame")
    cell = page.locator(".replay-board .square").first.bounding_box()
    assert cell and cell["width"] >= 35, cell  # the squares no smaller than the game's least
    assert not page.errors, page.errors
    context.close()
    shots(browser, live_server, language, "replay", watch)
    assert not failures, "\n".join(failures)


# --- 6. the hint's panel on a short phone ----------------------------------------------------

HINT_MUST_SEE = [
    "#board",
    "#tray .die",
    "#powers .button",
    ".hint-plan",
    "[data-intent='hint-close']",
    "[data-intent='hint-more']",
    "[data-intent='confirm']",
]


def hinted(page: Any, base: str) -> None:
    """PEACEFUL (the powers' row too), its first roll, a hint shown."""
    seeded(page, base, "peaceful", 3, lambda v: v["phase"] == "place")
    page.click("#hint-button")
    page.wait_for_selector(".square.hinted", timeout=COACH_WAIT_MS)


@pytest.mark.parametrize("language", list(LOCALES))
def test_a_hint_and_its_other_plans_fit_a_short_phone(
    browser: Any, live_server: str, language: str
) -> None:
    """In Estonian and Swedish the plan and HIDE HINT sat at y 644–693 of a 667 px screen, the
    squares at 35 px; the other plans unfolded made the page 944 px tall."""
    context = context_for(browser, live_server, language)
    page = open_page(context, live_server)
    hinted(page, live_server)
    failures = out_of_view(page, HINT_MUST_SEE, "hint")
    cells = page.evaluate("document.querySelector('#board .square').getBoundingClientRect().width")
    assert cells >= 35, cells  # 360×640 last: the squares at their least, 2.2rem, or larger
    # a square's place, in the plan's sentence, in lower case ("4 → row 2, column 3")
    plan = page.locator(".hint-plan").inner_text()
    square = words(language, "square_at", row=1, col=1).split(" ")[0]  # "row", "rida", "rad"
    assert square in plan and square.capitalize() not in plan, plan
    page.click("[data-intent='hint-more']")
    expect(page.locator("#hint-alternatives li").first).to_be_visible()
    failures += out_of_view(page, [*HINT_MUST_SEE, "#hint-alternatives"], "hint, other plans")
    page.click("[data-intent='hint-close']")
    expect(page.locator("#hint-panel")).to_be_hidden()
    assert not page.errors, page.errors
    context.close()

    def unfolded(p: Any) -> None:
        hinted(p, live_server)
        p.click("[data-intent='hint-more']")

    shots(browser, live_server, language, "hint", hinted_at(live_server))
    shots(browser, live_server, language, "hint-plans", unfolded)
    assert not failures, "\n".join(failures)


def hinted_at(base: str) -> Any:
    return lambda p: hinted(p, base)


# --- 12, 13. the words above the tray --------------------------------------------------------


@pytest.mark.parametrize("language", list(LOCALES))
def test_a_tap_that_cannot_place_says_why_and_the_board_keeps_its_size(
    browser: Any, live_server: str, language: str
) -> None:
    """An empty square tapped with no die selected said nothing on screen; a why-not of two
    lines made the board smaller."""
    context = context_for(browser, live_server, language)
    page = open_page(context, live_server)

    def blocked(view: Any) -> bool:  # a die of the roll that some empty square refuses
        return (
            view["phase"] == "place"
            and not view["staged"]
            and any(d["blocked"] for d in view["dice"])
        )

    view = seeded(page, live_server, "peaceful", 3, lambda v: v["phase"] == "over" or blocked(v))
    assert blocked(view)
    board = "document.querySelector('#board .square').getBoundingClientRect().width"
    for width, height in SHORT:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate(SETTLED)
        size = page.evaluate(board)
        empty = next(i for i, ch in enumerate(view["staged_board"].replace("/", "")) if ch == ".")
        page.click(f"[data-square='{empty}']", force=True)  # (aria-disabled: a tap all the same)
        expect(page.locator("#message")).to_have_text(words(language, "select_die_first"))
        assert page.evaluate(board) == size
        die = next(d for d in view["dice"] if d["blocked"])
        page.click(f"[data-die='{die['index']}']")
        reason = die["blocked"][0]
        page.click(f"[data-square='{reason['cell']}']", force=True)
        expect(page.locator("#message.why-not")).to_be_visible()
        assert page.evaluate(board) == size, (width, page.locator("#message").inner_text())
        page.click(f"[data-die='{die['index']}']")  # deselected: the turn's words again
        expect(page.locator("#message.why-not")).to_have_count(0)
        assert page.evaluate(board) == size
    assert not page.errors, page.errors
    context.close()


# --- 18. a row's badge within its column -----------------------------------------------------


def test_a_rows_badge_stays_in_its_column(browser: Any, live_server: str) -> None:
    """At 390 px each row's "STRAIGHT +60?" was 68 px wide in a column of 58, at the edge."""
    context = day_context(browser, live_server, DAY, viewport={"width": 390, "height": 844})
    page = open_page(context, live_server)

    def straight_ahead(view: Any) -> bool:
        return any(p and p["bonus"] == "straight" for p in view["prospects"][:4])

    seeded(page, live_server, "peaceful", 3, lambda v: v["phase"] == "over" or straight_ahead(v))
    assert page.locator(".sum.row .badge").count(), "no row with a bonus in sight"
    spills = page.evaluate(
        """() => [...document.querySelectorAll('.sum.row .badge')].map((b) => {
            const r = b.getBoundingClientRect(), s = b.parentElement.getBoundingClientRect();
            const out = r.right > s.right + 0.5 || r.right > innerWidth - 4;
            return out ? `${b.textContent}: ${r.width}` : null;
        }).filter(Boolean)"""
    )
    assert not spills, spills
    context.close()


# --- 9. the last scores as a list -------------------------------------------------------------


def test_the_last_scores_read_as_a_list(browser: Any, live_server: str) -> None:
    """ "1. 422. 1573. 225": each number's place stood outside its item, against the one before."""
    context = day_context(browser, live_server, DAY, viewport={"width": 375, "height": 667})
    page = open_page(context, live_server)
    for _ in range(3):
        finish_regular_game(page, live_server, "nightmare")
    open_menu_item(page, "stats")
    page.click("[data-intent='stats-difficulty'][data-difficulty='nightmare']")
    page.locator(".chart-table summary", has_text="list").click()
    items = page.locator(".recent-list li")
    expect(items).to_have_count(3)
    look = items.evaluate_all(
        """(items) => items.map((li) => ({
            inside: getComputedStyle(li).listStylePosition === 'inside',
            left: li.getBoundingClientRect().left, right: li.getBoundingClientRect().right,
            top: li.getBoundingClientRect().top }))"""
    )
    for before, after in pairwise(look):
        assert after["top"] > before["top"] or after["left"] - before["right"] >= 12, look
    assert all(item["inside"] for item in look), look  # "1." within its item, before its score
    screenshot(page, "newcomer-stats-list-en-375x667")
    context.close()


# --- 8. a transfer link into an open tab ------------------------------------------------------


def test_a_transfer_link_pasted_into_an_open_tab_opens_the_account(
    browser: Any, live_server: str
) -> None:
    context = day_context(browser, live_server, DAY, viewport={"width": 375, "height": 667})
    page = open_page(context, live_server)
    page.evaluate("location.hash = '#transfer=ABCD-EFGH'")  # as the address bar does
    expect(page.locator("#transfer-input")).to_have_value("ABCD-EFGH")
    expect(page.locator("#sheet .note.warning")).to_be_visible()
    assert "#transfer" not in page.url
    assert not page.errors, page.errors
    context.close()


# --- 7, 18. a passkey that cannot work here; what a step says, in view ------------------------

NO_AUTHENTICATOR = """
PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable = async () => %s;
navigator.credentials.create = async () => {
  throw new DOMException("The operation either timed out or was not allowed.", "NotAllowedError");
};
"""


@pytest.mark.parametrize("platform", [False, True])
def test_a_passkey_that_cannot_work_here_says_so_where_it_was_pressed(
    browser: Any, live_server: str, platform: bool
) -> None:
    """Firefox with no authenticator said "No passkey was used." (the words for a person who
    closed the window), at y −192 of the scrolled sheet, under a stale message of the code's
    field. With no authenticator of the browser's own the passkey did not work here; with one,
    the person closed its window. Either way the message is in view and the old one is gone."""
    base = localhost(live_server)
    context = day_context(browser, base, DAY, viewport={"width": 375, "height": 667})
    context.add_init_script(NO_AUTHENTICATOR % ("true" if platform else "false"))
    page = open_page(context, base)
    open_menu_item(page, "account")
    page.fill("#transfer-input", "WRONG-CODE")
    page.keyboard.press("Enter")
    expect(page.locator("#transfer-error")).to_be_visible()
    page.locator("#sheet [data-intent='passkey-register']").click()
    said = words("en", "account_passkey_cancelled" if platform else "account_passkey_failed")
    error = page.locator("#sheet .account-message .error-text")
    expect(error).to_have_text(said)
    expect(page.locator("#transfer-error")).to_have_count(0)  # the code's old message is gone
    inside = page.evaluate(
        """() => {
            const e = document.querySelector('#sheet .account-message').getBoundingClientRect();
            const b = document.getElementById('sheet-body').getBoundingClientRect();
            return e.top >= b.top - 0.5 && e.bottom <= b.bottom + 0.5;
        }"""
    )
    assert inside
    assert not page.errors, page.errors
    context.close()


# --- 14. the account's devices and passkeys told apart ---------------------------------------


def test_the_devices_and_passkeys_are_told_apart(browser: Any, live_server: str) -> None:
    """Every device read "Chrome on Linux": each says when it was first and last seen, the one
    in hand is marked, alike names are numbered; a passkey names the device it came from."""
    base = localhost(live_server)
    phone = day_context(browser, base, DAY, viewport={"width": 375, "height": 667})
    page = open_page(phone, base)
    authenticator(phone, page)
    open_menu_item(page, "account")
    page.locator("#sheet [data-intent='passkey-register']").click()
    expect(page.locator("#sheet .account-notice")).to_have_text("Passkey saved.")
    code = api(page, base, "POST", "/api/account/transfer-codes")["code"]
    laptop = day_context(browser, base, DAY)
    other = open_page(laptop, base)
    api(other, base, "POST", "/api/account/sign-in/transfer", {"code": code})
    page.keyboard.press("Escape")
    open_menu_item(page, "account")
    devices = page.locator("#sheet .account-list.devices li")
    expect(devices).to_have_count(2)
    names = [n.inner_text() for n in devices.locator("strong").all()]
    assert len(set(names)) == 2, names
    expect(devices.first.locator(".tag")).to_have_text("This device")
    expect(devices.locator(".tag")).to_have_count(1)
    for device in devices.all():
        text = device.inner_text()
        assert "first seen" in text and "last seen" in text, text
    passkey = page.locator("#sheet .account-list").first.locator("li")
    expect(passkey.locator("strong")).to_have_text(re.compile(r"^Passkey from \w+"))
    expect(passkey).to_contain_text("added")
    screenshot(page, "newcomer-devices-en-375x667")
    assert not page.errors and not other.errors
    phone.close()
    laptop.close()


# --- 3. a session ended on another device, said at the next request ---------------------------


def test_signed_out_everywhere_is_said_at_the_next_request(browser: Any, live_server: str) -> None:
    """After SIGN OUT EVERYWHERE on another device, BACK TO MY GAME showed an empty new game and
    no word; the notice came after a reload. The server says X-Magdagdon-Session: ended on
    the next answer, and the page says so before anything else."""
    base = localhost(live_server)
    phone = day_context(browser, base, DAY, viewport={"width": 375, "height": 667})
    page = open_page(phone, base)
    authenticator(phone, page)  # (a way back in once every device is signed out)
    open_menu_item(page, "account")
    page.locator("#sheet [data-intent='passkey-register']").click()
    expect(page.locator("#sheet .account-notice")).to_have_text("Passkey saved.")
    page.locator("#sheet [data-intent='transfer-code']").click()
    code = page.locator("#sheet .transfer-code .code [aria-hidden='true']").inner_text()
    laptop = day_context(browser, base, DAY)
    other = open_page(laptop, base)
    open_menu_item(other, "account")  # signed in as a person does, with the code
    other.fill("#transfer-input", code)
    other.keyboard.press("Enter")
    expect(other.locator("#sheet [data-intent='sign-out-everywhere']")).to_be_visible()
    other.keyboard.press("Escape")
    open_menu_item(other, "daily")
    other.click("#sheet [data-intent='daily-play'][data-difficulty='peaceful']")
    other.wait_for_selector("#difficulty-chip.daily-chip")
    # the phone signs out everywhere
    page.keyboard.press("Escape")
    open_menu_item(page, "account")
    page.locator("#sheet [data-intent='sign-out-everywhere']").click()
    page.click("#confirm-yes")
    expect(page.locator("#sheet .account-notice")).to_have_text(
        words("en", "account_signed_out_everywhere")
    )
    # the laptop's next request: BACK TO MY GAME
    other.click("#menu-button")
    other.click("#sheet [data-intent='back-to-game']")
    expect(other.locator("#sheet-title")).to_have_text("Account")
    expect(other.locator("#sheet .account-notice")).to_have_text(
        words("en", "account_was_signed_out")
    )
    expect(other.locator("#sheet [data-intent='transfer-code']")).to_be_visible()  # anonymous
    other.keyboard.press("Escape")
    expect(other.locator("#difficulty-chip")).not_to_have_class(re.compile("daily-chip"))
    expect(other.locator("[data-intent='roll']")).to_be_visible()
    assert not page.errors and not other.errors
    phone.close()
    laptop.close()


def test_an_ended_session_is_said_whatever_the_request(browser: Any, live_server: str) -> None:
    """The page's contract with the server: any /api/ answer that says X-Magdagdon-Session:
    ended (here: the high scores' table) opens the account with the notice, once."""
    context = day_context(browser, live_server, DAY, viewport={"width": 375, "height": 667})
    page = open_page(context, live_server)
    page.evaluate("localStorage.setItem('magdagdon.signedIn', '1')")  # (as an account's page)

    def ended(route: Any) -> None:
        response = route.fetch()
        route.fulfill(
            response=response, headers={**response.headers, "x-magdagdon-session": "ended"}
        )

    page.route(re.compile(r".*/api/highscores/.*"), ended)
    open_menu_item(page, "scores")
    expect(page.locator("#sheet-title")).to_have_text("Account")
    expect(page.locator("#sheet .account-notice")).to_have_text(
        words("en", "account_was_signed_out")
    )
    # signing back in comes first, on screen; saving (a second, empty account) after it
    back_in = page.locator("#sheet [data-intent='passkey-sign-in']")
    expect(back_in).to_have_class(re.compile(r"\bprimary\b"))
    box = back_in.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 667, box
    screenshot(page, "account-signed-out-375x667")
    expect(page.locator("#sheet [data-intent='passkey-register']")).not_to_have_class(
        re.compile(r"\bprimary\b")
    )
    page.unroute(re.compile(r".*/api/highscores/.*"))
    page.keyboard.press("Escape")
    expect(page.locator("[data-intent='roll']")).to_be_visible()
    assert not page.errors, page.errors
    context.close()
