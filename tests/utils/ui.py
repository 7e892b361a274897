"""Drive the browser game like a person: read what the game shows, click and type."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from .api import ViewPlayer


class UiPlayer:
    """Plays through the page. It reads the game view through the page's own session (what
    the screen shows) and acts only with clicks and keys."""

    def __init__(self, page: Page, base: str) -> None:
        self.page = page
        self.base = base
        self.game_id: str | None = None

    def view(self) -> Any:
        """The current game's view, as the server sends it to this browser."""
        url = f"/api/games/{self.game_id}" if self.game_id else "/api/games/current"
        r = self.page.request.get(self.base + url)
        assert r.ok, r.text()
        data = r.json()
        self.game_id = data["id"]
        return data

    def idle(self) -> None:
        """Wait until no request is in flight."""
        self.page.wait_for_selector("#app[aria-busy='false']")

    def click(self, selector: str) -> None:
        self.page.locator(selector).click()

    def select(self, die: int) -> None:
        """Select a tray die (a second tap would deselect it)."""
        node = self.page.locator(f"[data-die='{die}']")
        if node.get_attribute("aria-pressed") != "true":
            node.click()

    def perform(self, action: dict[str, Any]) -> Any:
        """Do one action through the UI; returns the view after it."""
        before = self.view()["version"]
        kind = action["type"]
        if kind == "roll":
            self.click("[data-intent='roll']")
        elif kind == "stage":
            self.select(action["die"])
            self.click(f"[data-square='{action['cell']}']")
        elif kind == "unstage":
            cell = self.view()["dice"][action["die"]]["cell"]
            self.click(f"[data-square='{cell}']")
        elif kind == "unstage_all":
            self.click("[data-intent='unstage-all']")
        elif kind == "confirm":
            self.click("[data-intent='confirm']")
        elif kind == "adjust":
            # in MAGDAGDON a rescue is a button of its own (its die's face and the change)
            rescue = self.page.locator(
                f"[data-intent='rescue'][data-rescue-die='{action['die']}']"
                f"[data-delta='{action['delta']}']"
            )
            if rescue.count():
                rescue.click()
            else:
                self.select(action["die"])
                self.click(f"[data-intent='adjust'][data-delta='{action['delta']}']")
            self.click("#confirm-yes")
        elif kind == "reroll":
            self.click("[data-intent='reroll-start']")
            for die in action["dice"]:
                self.click(f"[data-die='{die}']")
            self.click("[data-intent='reroll-go']")
            self.click("#confirm-yes")
        elif kind == "accept_magdagdon":
            self.click("[data-intent='accept']")
            self.click("#confirm-yes")
            self.click(f"[data-square='{action['cell']}']")
        else:  # pragma: no cover - every action type is listed above
            raise AssertionError(kind)
        return self.wait_for_version(before + 1)

    def wait_for_version(self, version: int, timeout: float = 10) -> Any:
        """Wait until the game reached ``version`` and the page is idle again."""
        deadline = time.monotonic() + timeout
        while True:
            view = self.view()
            if view["version"] >= version:
                self.idle()
                return view
            assert time.monotonic() < deadline, f"the game stayed at version {view['version']}"
            self.page.wait_for_timeout(50)

    def play_to_end(self, use_power: bool = True) -> tuple[Any, list[str]]:
        """Play the whole game through the UI; the final view and the action types used."""
        bot = ViewPlayer(use_power)
        view = self.view()
        kinds: list[str] = []
        while view["phase"] != "over":
            action = bot.next_action(view)
            kinds.append(action["type"])
            view = self.perform(action)
        return view, kinds


SCREENSHOTS = Path(os.environ.get("MAGDAGDON_SCREENSHOTS", "test-artifacts/screenshots"))
"""Where the browser tests' screenshots go, for people to look at; ``MAGDAGDON_SCREENSHOTS=off``
takes none (``.ci/run``: nobody sees CI's, some 840 a run at about 90 ms of CPU each)."""


def screenshot(page: Any, name: str) -> Path:
    """Save a screenshot under the screenshots folder (none when they are off); its path."""
    path = SCREENSHOTS / f"{name}.png"
    if os.environ.get("MAGDAGDON_SCREENSHOTS") == "off":
        return path
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=True)
    return path
