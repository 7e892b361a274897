"""Accounts in a real browser: a passkey made on one device (Chromium's virtual authenticator,
the DevTools WebAuthn domain) signs in on a second, whose games, statistics and streak are
then the account's; a transfer code typed on a third; the account screen in every language at
phone size, light and dark."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from ..utils.ui import screenshot
from .test_browser_a11y import serious_violations
from .test_browser_daily import api, day_context, open_menu_item, open_page, play_through_api
from .test_browser_stats import finish_regular_game

DAY = "2026-12-12"


def authenticator(context: Any, page: Any) -> tuple[Any, str]:
    """A platform authenticator for the page (it says yes by itself); its CDP session and id."""
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    made = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    return cdp, made["authenticatorId"]


def synced_device(
    browser: Any, base: str, cdp: Any, key: str, viewport: dict[str, int]
) -> tuple[Any, Any, tuple[Any, str, dict[str, Any]]]:
    """A second device (its context and page) whose authenticator holds the first one's
    passkey (as a password manager would sync it); its CDP session, authenticator id and
    that credential."""
    (credential,) = cdp.send("WebAuthn.getCredentials", {"authenticatorId": key})["credentials"]
    context = day_context(browser, base, DAY, viewport=viewport)
    page = open_page(context, base)
    its_cdp, its_key = authenticator(context, page)
    its_cdp.send("WebAuthn.addCredential", {"authenticatorId": its_key, "credential": credential})
    return context, page, (its_cdp, its_key, credential)


def localhost(base: str) -> str:
    """The server under the name ``localhost``: a passkey's site must be a domain, not an
    address (and localhost is a secure context over plain HTTP)."""
    return base.replace("127.0.0.1", "localhost")


def test_a_passkey_moves_the_games_to_another_device(browser: Any, live_server: str) -> None:
    base = localhost(live_server)
    phone_size = {"width": 375, "height": 667}
    phone = day_context(browser, base, DAY, viewport=phone_size)
    page = open_page(phone, base)
    cdp, phone_key = authenticator(phone, page)
    finish_regular_game(page, base, "peaceful")
    api(page, base, "PUT", "/api/players/me", {"name": "Tiina"})

    open_menu_item(page, "account")
    sheet = page.locator("#sheet")
    expect(page.locator("#sheet-title")).to_have_text("Account")
    screenshot(page, "account-anonymous-en-375x667")
    assert serious_violations(page) == []
    sheet.locator("[data-intent='passkey-register']").click()
    expect(sheet.locator(".account-notice")).to_have_text("Passkey saved.")
    expect(sheet.locator(".account-list").first.locator("li")).to_have_count(1)
    expect(sheet.locator("[data-intent='sign-out']")).to_be_visible()
    screenshot(page, "account-saved-en-375x667")
    assert serious_violations(page) == []

    # the same passkey on the laptop (as a password manager would sync it)
    laptop, other, _ = synced_device(browser, base, cdp, phone_key, {"width": 1280, "height": 800})
    # the laptop played on its own: a game and today's daily (a streak of one)
    own = finish_regular_game(other, base, "survival")
    view = api(other, base, "POST", "/api/daily/nightmare")
    daily = play_through_api(other, base, view, to_the_end=True)
    # (the game the page began on its first visit, given up for the finished one, comes too,
    # but is not counted as joined: nobody played it)
    games = len(api(other, base, "GET", "/api/players/me/export")["games"])
    assert games == 3
    open_menu_item(other, "account")
    other.locator("#sheet [data-intent='passkey-sign-in']").click()
    expect(other.locator("#sheet .account-notice")).to_have_text(
        "Signed in. 2 games from this browser joined your account."
    )
    expect(other.locator("#sheet .account-list").nth(1).locator("li")).to_have_count(2)

    mine = api(page, base, "GET", "/api/players/me/stats")
    theirs = api(other, base, "GET", "/api/players/me/stats")
    assert mine == theirs
    assert mine["difficulties"]["survival"]["finished"] == 1
    assert mine["daily"]["streak"] == 1 and mine["daily"]["played"] == 1
    exported = {g["id"] for g in api(page, base, "GET", "/api/players/me/export")["games"]}
    assert {own["id"], daily["id"]} <= exported
    assert api(other, base, "GET", "/api/players/me")["name"] == "Tiina"
    assert not page.errors and not other.errors
    phone.close()
    laptop.close()


def test_a_transfer_code_signs_in_where_there_is_no_passkey(browser: Any, live_server: str) -> None:
    phone = day_context(browser, live_server, DAY, viewport={"width": 360, "height": 640})
    page = open_page(phone, live_server)
    finish_regular_game(page, live_server, "nightmare")
    open_menu_item(page, "account")
    page.locator("#sheet [data-intent='transfer-code']").click()
    code = page.locator("#sheet .transfer-code .code [aria-hidden='true']")
    expect(code).to_have_text(re.compile(r"^[2-9A-Z]{4}(-[2-9A-Z]{4})+$"))  # (12 letters)
    expect(page.locator("#sheet svg.qr")).to_have_attribute("role", "img")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    # never broken: the code's line is less than two of its letters high (asked of the element
    # in the page when it is asked: the sheet is drawn again as the account's lists arrive, and
    # an element read a moment before may be gone, 0 px high)
    page.wait_for_function(
        """() => {
            const el = document.querySelector("#sheet .transfer-code p.code");
            const height = el ? el.getBoundingClientRect().height : 0;
            return height > 0 && height < 2 * parseFloat(getComputedStyle(el).fontSize);
        }"""
    )
    screenshot(page, "account-code-en-360x640")

    # the QR code's address opens the game with the code filled in
    tablet = day_context(browser, live_server, DAY, viewport={"width": 390, "height": 844})
    other = tablet.new_page()
    other.goto(f"{live_server}/#transfer={code.inner_text()}")
    expect(other.locator("#transfer-input")).to_have_value(code.inner_text())
    assert "#transfer" not in other.url  # the code leaves the address (and its history)
    expect(other.locator("#sheet .note.warning")).to_contain_text("Use only a code you made")
    expect(other.locator("#transfer-submit")).to_be_focused()  # SIGN IN, not SAVE, comes first
    other.locator("#sheet [data-form='transfer'] button[type='submit']").click()
    expect(other.locator("#sheet .account-notice")).to_have_text(
        "Signed in."  # (the game its page began, never played, is not counted)
    )
    assert (
        api(other, live_server, "GET", "/api/players/me/stats")["difficulties"]["nightmare"][
            "finished"
        ]
        == 1
    )
    # once used, the code signs nobody in
    third = day_context(browser, live_server, DAY)
    late = open_page(third, live_server)
    open_menu_item(late, "account")
    late.fill("#transfer-input", code.inner_text().lower().replace("-", " "))  # as typed
    late.keyboard.press("Enter")
    expect(late.locator("#transfer-error")).to_have_text(
        "That code is wrong, used or expired: make a new one."
    )  # under its field, which keeps the focus
    expect(late.locator("#transfer-input")).to_be_focused()
    assert late.locator("#transfer-input").get_attribute("aria-invalid") == "true"
    for context in (phone, tablet, third):
        context.close()


def test_a_second_passkey_is_added_after_one_of_the_accounts_says_it_is_you(
    browser: Any, live_server: str
) -> None:
    """A device signed in with a transfer code, of an account that has a passkey, adds a
    passkey of its own only after signing in with one of the account's passkeys: the page
    asks, the passkey answers, the new one is listed beside the first."""
    base = localhost(live_server)
    phone = day_context(browser, base, DAY, viewport={"width": 375, "height": 667})
    page = open_page(phone, base)
    cdp, phone_key = authenticator(phone, page)
    open_menu_item(page, "account")
    page.locator("#sheet [data-intent='passkey-register']").click()
    expect(page.locator("#sheet .account-notice")).to_have_text("Passkey saved.")
    code = api(page, base, "POST", "/api/account/transfer-codes")["code"]
    laptop, other, (laptop_cdp, laptop_key, credential) = synced_device(
        browser, base, cdp, phone_key, {"width": 375, "height": 667}
    )
    signed = api(other, base, "POST", "/api/account/sign-in/transfer", {"code": code})
    assert signed["account"] is True
    # the account's passkey answers the proof (as the phone's would through its QR code), and
    # is gone from the laptop before the new one is made (an authenticator that holds one of
    # an account's passkeys makes no second: the options exclude it)
    proved: list[bool] = []

    def options_after_the_proof(route: Any) -> None:
        if proved:
            laptop_cdp.send(
                "WebAuthn.removeCredential",
                {"authenticatorId": laptop_key, "credentialId": credential["credentialId"]},
            )
        proved.append(True)
        route.continue_()

    other.route("**/api/account/passkeys/registration/options", options_after_the_proof)
    open_menu_item(other, "account")
    other.locator("#sheet [data-intent='passkey-register']").click()
    dialog = other.locator("#confirm")
    expect(dialog).to_contain_text("confirm it is you with one of its passkeys")
    dialog.get_by_role("button", name="CONFIRM WITH A PASSKEY").click()
    expect(other.locator("#sheet .account-notice")).to_have_text("Passkey saved.")
    assert len(api(other, base, "GET", "/api/account/passkeys")) == 2
    assert not page.errors and not other.errors
    phone.close()
    laptop.close()


def test_an_anonymous_daily_is_shown_apart_from_the_ranked(browser: Any, tmp_path: Any) -> None:
    """With the default ranking (accounts only), a player who has not saved their games sees
    where they would stand, why, and the way to be ranked."""
    from ..utils.server import running_server

    with running_server(
        f"sqlite:///{tmp_path / 'ranked.db'}", env={"MAGDAGDON_DAILY_RANKS": "accounts"}
    ) as base:
        context = day_context(browser, base, DAY, viewport={"width": 375, "height": 667})
        page = open_page(context, base)
        view = api(page, base, "POST", "/api/daily/peaceful")
        play_through_api(page, base, view, to_the_end=True)
        page.reload()
        page.wait_for_selector("#app[aria-busy='false']")
        page.click("#menu-button")
        page.click("#sheet [data-intent='open'][data-screen='daily']")
        page.click("#sheet [data-intent='leaderboard'][data-difficulty='peaceful']")
        sheet = page.locator("#sheet")
        expect(sheet.locator(".daily-me")).to_have_text(
            re.compile(r"Not ranked: your score would be in place 1")
        )
        expect(sheet.locator(".unranked .note")).to_have_text(
            "Only saved games are ranked. Save yours before your next daily to be on the "
            "leaderboard."
        )
        screenshot(page, "leaderboard-unranked-en-375x667")
        sheet.locator(".unranked [data-screen='account']").click()
        expect(page.locator("#sheet-title")).to_have_text("Account")
        assert not page.errors
        context.close()


def no_words_spill(page: Any, width: int) -> None:
    """Every button of the sheet 44 px or more, on the screen, its words inside it."""
    for node in page.locator("#sheet .button").all():
        box = node.bounding_box()
        assert box is None or (box["width"] >= 44 and box["height"] >= 44), node.inner_text()
        if box is not None:
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, node.inner_text()
        spill = node.evaluate("n => n.scrollWidth > n.clientWidth + 1")
        assert not spill, node.inner_text()


CASES = {
    "en-small": ("en-US", {"width": 360, "height": 640}, "light"),
    "et-phone-dark": ("et-EE", {"width": 375, "height": 667}, "dark"),
    "sv-phone": ("sv-SE", {"width": 375, "height": 667}, "light"),
    "sv-small-dark": ("sv-SE", {"width": 360, "height": 640}, "dark"),
    "et-small": ("et-EE", {"width": 360, "height": 640}, "light"),
}
TITLE = {"en": "Account", "et": "Konto", "sv": "Konto"}


@pytest.mark.parametrize("case", list(CASES))
def test_the_account_screen_in_every_language(browser: Any, live_server: str, case: str) -> None:
    locale, viewport, scheme = CASES[case]
    context = day_context(
        browser, live_server, DAY, locale=locale, viewport=viewport, scheme=scheme
    )
    page = open_page(context, live_server)
    open_menu_item(page, "account")
    expect(page.locator("#sheet-title")).to_have_text(TITLE[locale[:2]])
    widths = page.evaluate("document.documentElement.scrollWidth")
    assert widths <= viewport["width"]
    no_words_spill(page, viewport["width"])
    screenshot(page, f"account-anonymous-{case}")
    page.locator("#sheet [data-intent='transfer-code']").click()
    expect(page.locator("#sheet .transfer-code .code [aria-hidden='true']")).to_be_visible()
    expect(page.locator("#sheet [data-intent='sign-out']")).to_be_visible()
    # the device's name in the screen's language ("Chrome on Linux" in Estonian before)
    device = page.locator("#sheet .devices li.current strong").inner_text()
    assert {"en": " on Linux", "et": " (Linux)", "sv": " på Linux"}[locale[:2]] in device, device
    no_words_spill(page, viewport["width"])
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    screenshot(page, f"account-saved-{case}")
    assert serious_violations(page) == []
    page.locator("#sheet [data-intent='account-delete']").scroll_into_view_if_needed()
    screenshot(page, f"account-saved-end-{case}")
    assert not page.errors
    context.close()


@pytest.mark.parametrize("language", ["en", "et", "sv"])
def test_a_passkey_at_a_loopback_address_names_the_address_that_works(
    browser: Any, live_server: str, language: str
) -> None:
    """At http://127.0.0.1:PORT/ the browser refuses a passkey (an IP address is no passkey's
    site): the page said "The passkey did not work here" without the address where it works."""
    from .test_browser_replay import words

    assert "//127.0.0.1:" in live_server
    context = day_context(
        browser, live_server, DAY, locale=language, viewport={"width": 375, "height": 667}
    )
    page = open_page(context, live_server)
    open_menu_item(page, "account")
    page.locator("#sheet [data-intent='passkey-register']").first.click()
    home = live_server.replace("127.0.0.1", "localhost").rstrip("/") + "/"
    said = words(language, "account_passkey_at", url=home)
    expect(page.locator("#sheet .account-message")).to_contain_text(said)
    screenshot(page, f"account-passkey-at-{language}-375x667")
    assert not page.errors
    context.close()
