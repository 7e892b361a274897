"""A browser tab as the Firefox and WebKit tests drive it, whatever drives the browser.

Each browser supplies the few things only it can do (:class:`Page`'s abstract methods:
navigate, click, press a key, run a function in the page, go offline, read the clipboard, the
errors seen); the waiting, the clicks that wait until the element can take them, the game's
API in the page's own session and playing an action through the page's buttons are the same
for every browser and live here.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from typing import Any

from ..utils.api import COACH_WAIT, play_through

# Whether the element can be clicked now: drawn, enabled, and on top at its middle (no dialog,
# tour or backdrop over it). It is scrolled into view first.
CLICKABLE = """(selector) => {
  const node = document.querySelector(selector);
  if (!node || node.disabled || node.getClientRects().length === 0) return false;
  node.scrollIntoView({ block: "nearest", inline: "nearest" });
  const box = node.getBoundingClientRect();
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return Boolean(hit) && node.contains(hit);
}"""

# Whether an element is shown (``hidden`` false) or missing or hidden (``hidden`` true).
SHOWN = """(selector, hidden) => {
  const node = document.querySelector(selector);
  const shown = Boolean(node) && node.getClientRects().length > 0;
  return shown !== hidden;
}"""

# Whether an element's text contains the text given.
HAS_TEXT = """(selector, text) => {
  const node = document.querySelector(selector);
  return Boolean(node) && node.textContent.includes(text);
}"""

# A request in the page's own session (its cookie), as the client makes them.
FETCH = """async (method, path, body) => {
  const init = { method, credentials: "same-origin", headers: {} };
  if (body !== null) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  return { status: response.status, body: await response.json().catch(() => null) };
}"""


class Page(ABC):
    """One player's tab on the server at ``base``."""

    timeout = 30.0
    """Seconds a wait may take before the test fails (only a failing test waits that long; on
    two loaded cores what takes 0.1 s alone has been seen to take over 10 s)."""

    def __init__(self, base: str) -> None:
        self.base = base

    # What each browser does its own way.

    @abstractmethod
    def goto(self, path: str) -> None:
        """Open ``base + path`` and wait for it to load."""

    @abstractmethod
    def reload(self) -> None:
        """Reload and wait for the load."""

    @abstractmethod
    def click_now(self, selector: str) -> None:
        """A real click on the element's middle (the user's gesture, for the clipboard)."""

    @abstractmethod
    def press(self, key: str) -> None:
        """Press and release a key ("ArrowRight", "End", "Escape") on the focused element."""

    @abstractmethod
    def evaluate(self, function: str, *args: Any) -> Any:
        """Call a JavaScript function in the page with JSON arguments; its (awaited) value."""

    @abstractmethod
    def set_offline(self, offline: bool) -> None:
        """Cut the page off from the server, or let it through again."""

    @abstractmethod
    def clipboard(self) -> str:
        """The text in the clipboard now."""

    @abstractmethod
    def errors(self) -> list[str]:
        """The page's uncaught errors, unhandled rejections and console errors since asked
        last (or since the page opened)."""

    # The same in every browser.

    def wait_until(
        self, function: str, *args: Any, timeout: float | None = None, what: str = ""
    ) -> Any:
        """Call ``function`` every 50 ms until it returns something truthy; that value."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            value = self.evaluate(function, *args)
            if value:
                return value
            assert time.monotonic() < deadline, f"waited in vain for {what or function}"
            time.sleep(0.05)

    def wait_for(
        self, selector: str, *, hidden: bool = False, timeout: float | None = None
    ) -> None:
        """Wait until an element is shown (or, ``hidden``, until none is)."""
        what = f"{selector} {'hidden' if hidden else 'shown'}"
        self.wait_until(SHOWN, selector, hidden, timeout=timeout, what=what)

    def click(self, selector: str) -> None:
        """Click the element once it can take the click."""
        self.wait_until(CLICKABLE, selector, what=f"{selector} clickable")
        self.click_now(selector)

    def text(self, selector: str) -> str:
        """An element's text (``textContent``: as written, whatever the CSS does to it)."""
        text: str = self.evaluate("(s) => document.querySelector(s).textContent", selector)
        return text

    def wait_for_text(self, selector: str, text: str, *, timeout: float | None = None) -> None:
        """Wait until the element's text contains ``text``."""
        self.wait_until(HAS_TEXT, selector, text, timeout=timeout, what=f"{text!r} in {selector}")

    def count(self, selector: str) -> int:
        """How many elements match."""
        n: int = self.evaluate("(s) => document.querySelectorAll(s).length", selector)
        return n

    def idle(self) -> None:
        """Wait until the game's page has no request in flight."""
        self.wait_for("#app[aria-busy='false']")

    def api(self, method: str, path: str, body: Any = None) -> Any:
        """A request of the page's own (fetch, its cookie); the JSON answer (asserts 2xx)."""
        answer = self.evaluate(FETCH, method, path, body)
        assert answer["status"] < 300, (method, path, answer)
        return answer["body"]


def open_game(page: Page, path: str = "/") -> Any:
    """Open the game's page at ``path``, once it shows the board; the current game's view."""
    page.goto(path)
    page.wait_for("#app[aria-busy='false'] [data-intent='roll']")
    return page.api("GET", "/api/games/current")


def wait_for_version(page: Page, game_id: str, version: int) -> Any:
    """Wait until the game reached ``version`` and the page is idle again; the view."""
    deadline = time.monotonic() + page.timeout
    while True:
        view = page.api("GET", f"/api/games/{game_id}")
        if view["version"] >= version:
            page.idle()
            return view
        assert time.monotonic() < deadline, f"the game stayed at version {view['version']}"
        time.sleep(0.05)


def select(page: Page, die: int) -> None:
    """Select a tray die (a second tap would deselect it)."""
    selector = f"[data-die='{die}']"
    page.wait_for(selector)
    pressed = "(s) => document.querySelector(s).getAttribute('aria-pressed')"
    if page.evaluate(pressed, selector) != "true":
        page.click(selector)
    page.wait_for(f"{selector}[aria-pressed='true']")


def perform(page: Page, view: Any, action: dict[str, Any]) -> Any:
    """Do one action through the page's buttons, as a player taps; the view after it."""
    kind = action["type"]
    if kind == "roll":
        page.click("[data-intent='roll']")
    elif kind == "stage":
        select(page, action["die"])
        page.click(f"[data-square='{action['cell']}'].legal")
    elif kind == "unstage":
        page.click(f"[data-square='{view['dice'][action['die']]['cell']}']")
    elif kind == "confirm":
        page.click("[data-intent='confirm']")
    elif kind == "adjust":
        # in MAGDAGDON a rescue is a button of its own (its die's face and the change)
        rescue = (
            f"[data-intent='rescue'][data-rescue-die='{action['die']}']"
            f"[data-delta='{action['delta']}']"
        )
        if page.evaluate("(s) => document.querySelector(s) !== null", rescue):
            page.click(rescue)
        else:
            select(page, action["die"])
            page.click(f"[data-intent='adjust'][data-delta='{action['delta']}']")
        page.click("#confirm-yes")
    elif kind == "accept_magdagdon":
        page.click("[data-intent='accept']")
        page.click("#confirm-yes")
        page.click(f"[data-square='{action['cell']}'].ruin-choice")
    else:  # pragma: no cover - the players here make no other actions
        raise AssertionError(kind)
    return wait_for_version(page, view["id"], view["version"] + 1)


def play_through_api(page: Page, view: Any, *, to_the_end: bool = False) -> Any:
    """Play a game through the API in the page's session, up to its last action (or to its
    end); the view."""
    return play_through(
        lambda path, body: page.api("POST", path, body), view, to_the_end=to_the_end
    )


def wait_for_par(page: Page, daily: Any, timeout: float = COACH_WAIT) -> int:
    """The daily's par, once the server computed it (the leaderboard says null until then)."""
    date, difficulty = daily["daily"]["date"], daily["difficulty"]
    deadline = time.monotonic() + timeout
    while True:
        par = page.api("GET", f"/api/daily/{date}/{difficulty}/leaderboard")["par"]
        if par is not None:
            return int(par)
        assert time.monotonic() < deadline, "the par was not computed"
        time.sleep(0.25)


def number(n: int) -> str:
    """A score as the page writes it (a minus sign below zero)."""
    return str(n).replace("-", "−")
