"""A player's name, asked for the first time they do something others see: everyone was
"Anonymous" ("Anonym utmanar dig…", a league of Anonüümne rows) because the name form lived only
under the high scores. Asked once a device, skippable, changed later from the account; in EN,
ET and SV on a phone, light and dark."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from ..utils.ui import screenshot
from .conftest import player_page
from .test_browser_a11y import serious_violations
from .test_browser_play import open_game
from .test_browser_replay import words

SIZES = [(375, 667), (360, 640)]


def finished_game(page: Any, live_server: str, seed: int) -> Any:
    """A finished SURVIVAL game of the page's player, played on the page: its game-over sheet
    is open (with CHALLENGE A FRIEND)."""
    final, _ = open_game(page, live_server, "survival", seed).play_to_end(use_power=False)
    return final


@pytest.mark.parametrize("language", ["en", "et", "sv"])
def test_a_challenge_asks_for_the_name_the_friend_will_see(
    browser: Any, live_server: str, language: str
) -> None:
    name = f"Anu {secrets.token_hex(2)}"
    for width, height in SIZES:
        with player_page(browser, width, height, locale=language, ask_name=True) as page:
            game = finished_game(page, live_server, seed=31)
            page.locator("#sheet [data-intent='challenge-create']").click()
            ask = page.locator("#ask-name")
            ask.wait_for(state="visible")
            assert ask.locator("h2").inner_text() == words(language, "name_ask_title")
            assert serious_violations(page) == []
            for scheme in ("light", "dark"):
                page.emulate_media(color_scheme=scheme)
                screenshot(page, f"name-ask-{language}-{scheme}-{width}x{height}")
            box = ask.locator("button[type='submit']").bounding_box()
            assert box is not None and box["y"] + box["height"] <= height
            if (width, height) != SIZES[0]:  # the second phone: skipped, never asked again
                ask.locator("button[type='button']").click()
                page.locator("#link-text").wait_for(state="visible")
                page.keyboard.press("Escape")
                page.locator("#sheet").wait_for(state="hidden")
                page.locator("[data-intent='open'][data-screen='over']").click()  # RESULT
                page.locator("#sheet [data-intent='challenge-create']").click()
                page.locator("#link-text").wait_for(state="visible")
                assert page.locator("#ask-name").count() == 0
                me = page.request.get(f"{live_server}/api/players/me").json()
                assert me["name"] is None
                continue
            # a look-alike of nothing, but a rule broken: said, and what was typed stays
            ask.locator("input").fill("<b>")
            ask.locator("button[type='submit']").click()
            rule = words(language, "name_rules", max=24)
            ask.locator(".error-text", has_text=rule).wait_for()
            assert ask.locator("input").input_value() == "<b>"
            ask.locator("input").fill(name)
            ask.locator("button[type='submit']").click()
            link = page.locator("#link-text")
            link.wait_for(state="visible")
            assert page.locator("#ask-name").count() == 0
            url = link.input_value()
            code = url.rpartition("=")[2]
            landing = page.request.get(f"{live_server}/api/challenges/{code}").json()
            assert landing["by"] == name, (landing, game["id"])
            # changed from the account
            page.keyboard.press("Escape")
            page.locator("#menu-button").click()
            page.locator("#sheet [data-screen='account']").click()
            field = page.locator("#account-name-input")
            field.wait_for(state="visible")
            assert field.input_value() == name
            field.fill(f"{name} B")
            page.locator("form[data-form='account-name'] button").click()
            saved = words(language, "name_saved")
            page.locator("#sheet .account-notice", has_text=saved).wait_for()
            assert page.request.get(f"{live_server}/api/players/me").json()["name"] == f"{name} B"
            screenshot(page, f"name-account-{language}-{width}x{height}")
            name = f"{name}x"  # (each language's player its own name)
