"""An account's first passkey, added on another device, is said on this one (it could be a
cookie thief's), marked in the list, and named when signing out would leave it the only way
back (hardening V, item 3): at phone size in the three languages, light and dark."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from ..utils.ui import screenshot
from .test_browser_a11y import serious_violations
from .test_browser_account import authenticator, localhost
from .test_browser_daily import api, day_context, open_menu_item, open_page

DAY = "2026-12-14"
LOCALES = {"en": "en-US", "et": "et-EE", "sv": "sv-SE"}


@pytest.mark.parametrize(("language", "scheme"), [("en", "light"), ("et", "dark"), ("sv", "light")])
def test_a_passkey_added_elsewhere_is_said_and_named_before_signing_out(
    browser: Any, live_server: str, language: str, scheme: str
) -> None:
    base = localhost(live_server)
    size = {"width": 375, "height": 667}
    phone = day_context(browser, base, DAY, locale=LOCALES[language], viewport=size, scheme=scheme)
    page = open_page(phone, base)
    open_menu_item(page, "account")  # saved with a transfer code: an account, no passkey
    page.locator("#sheet [data-intent='transfer-code']").click()
    code = page.locator("#sheet .transfer-code .code [aria-hidden='true']").inner_text()
    laptop = day_context(browser, base, DAY, locale=LOCALES[language], scheme=scheme)
    other = open_page(laptop, base)
    authenticator(laptop, other)
    api(other, base, "POST", "/api/account/sign-in/transfer", {"code": code})
    other.reload()
    open_menu_item(other, "account")
    other.locator("#sheet [data-intent='passkey-register']").click()
    expect(other.locator("#sheet .account-list").first.locator("li")).to_have_count(1)
    label = api(other, base, "GET", "/api/account/passkeys")[0]["label"]
    # (the device's name in the screen's language: "Chrome on Linux" is "Chrome på Linux")
    browser_name, _, system = label.partition(" on ")
    joined = {"en": "{b} on {s}", "et": "{b} ({s})", "sv": "{b} på {s}"}[language]
    label = joined.format(b=browser_name, s=system)
    # the phone's next visit says so, on the account screen
    page.reload()
    notice = page.locator("#sheet .account-notice")
    expect(notice).to_contain_text(label)
    warning = page.locator("#sheet .account-list").first.locator(".error-text")
    expect(warning).to_be_visible()
    screenshot(page, f"account-new-passkey-{language}-{scheme}-375x667")
    assert serious_violations(page) == []
    box = page.locator("#sheet [data-intent='passkey-remove']").bounding_box()
    assert box is not None and box["x"] + box["width"] <= size["width"]
    # signing out everywhere names it first; NO changes nothing
    page.locator("#sheet [data-intent='sign-out-everywhere']").click()
    expect(page.locator("#confirm-text")).to_contain_text(label)
    screenshot(page, f"account-new-passkey-sign-out-{language}-{scheme}-375x667")
    page.keyboard.press("Escape")
    assert api(page, base, "GET", "/api/players/me")["account"] is True
    # not the owner's: removed (the laptop signed in with a code, so it stays signed in)
    page.locator("#sheet [data-intent='passkey-remove']").click()
    page.click("#confirm-yes")
    expect(page.locator("#sheet [data-intent='passkey-remove']")).to_have_count(0)
    assert api(page, base, "GET", "/api/account/passkeys") == []
    phone.close()
    laptop.close()
