"""Helpers for API tests and the load benchmark: a player that reads only the game view."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, Protocol

COACH_WAIT = 300.0
"""Seconds a test waits for the coach's work (a hint, a review, a daily's par), at most: a
bound that only stops a test that would hang, since the wait ends as soon as the work is
there. It runs in processes of lower priority (nice 10; the background work, a par, at 13),
which on a loaded machine get a small share of the CPU: a hint of 0.2 s alone took over 10 s
beside the suite's other worker and its browsers."""
COACH_WAIT_MS = int(COACH_WAIT * 1000)
""":data:`COACH_WAIT` in milliseconds, as Playwright counts."""


class Client(Protocol):
    """Starlette's TestClient and httpx2.Client both fit."""

    def post(self, url: str, *, json: Any = ...) -> Any: ...

    def get(self, url: str) -> Any: ...


class ViewPlayer:
    """Chooses the next action from the game view alone, as a client would.

    Staging never strands a turn: a die whose square leaves a dead end (R7) is
    taken back and that square is not tried again in that arrangement; when every
    next step of an arrangement was tried, all its dice are taken back and the search
    goes on from the first die's next square, so the minimum is always reached when
    R5 allows it. With ``use_power`` it applies
    a rescuing adjustment in MAGDAGDON when the view offers one.
    """

    def __init__(self, use_power: bool = False) -> None:
        self.use_power = use_power
        self._tried: set[tuple[str, int, int]] = set()
        self._last: int | None = None

    def next_action(self, view: dict[str, Any]) -> dict[str, Any]:
        """The action to send next (the game must not be over)."""
        if view["can_roll"]:
            self._tried.clear()
            return {"type": "roll"}
        if view["phase"] == "magdagdon":
            if self.use_power and view["rescues"]:
                rescue = view["rescues"][0]
                return {"type": "adjust", "die": rescue["die"], "delta": rescue["delta"]}
            return {"type": "accept_magdagdon", "cell": view["ruin_choices"][0]}
        if view["dead_end"] and self._last is not None:
            die, self._last = self._last, None
            return {"type": "unstage", "die": die}
        if view["can_confirm"]:
            return {"type": "confirm"}
        for d in view["dice"]:
            if d["cell"] is not None:
                continue
            for cell in d["legal_cells"]:
                key = (view["staged_board"], d["index"], cell)
                if key not in self._tried:
                    self._tried.add(key)
                    self._last = d["index"]
                    return {"type": "stage", "die": d["index"], "cell": cell}
        if view["staged"]:
            # every next step from here was tried: start the turn again from nothing staged
            # (what was tried stays tried, so the search goes on with the first die elsewhere)
            self._last = None
            return {"type": "unstage_all"}
        raise AssertionError("no way to reach the minimum although the turn is not MAGDAGDON")


def new_game(client: Client, difficulty: str, seed: int | None = None, **extra: Any) -> Any:
    """POST /api/games; returns the view (asserts 201)."""
    body: dict[str, Any] = {"difficulty": difficulty, **extra}
    if seed is not None:
        body["seed"] = seed
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.json()
    return r.json()


def act(client: Client, view: dict[str, Any], action: dict[str, Any]) -> Any:
    """Send one action based on ``view``'s version; returns the new view (asserts 200)."""
    body = {"version": view["version"], "action": action}
    r = client.post(f"/api/games/{view['id']}/actions", json=body)
    assert r.status_code == 200, r.json()
    return r.json()


def play_turn(client: Client, view: dict[str, Any], use_power: bool = False) -> Any:
    """Play one turn (from ROLL, or from where it stands) through the API; the new view."""
    player = ViewPlayer(use_power)
    turns = view["turns"]
    while view["turns"] == turns and view["phase"] != "over":
        view = act(client, view, player.next_action(view))
    return view


def finish_turn(client: Client, view: dict[str, Any]) -> Any:
    """Finish a turn that is placing dice: stage up to the minimum, then CONFIRM."""
    assert view["phase"] == "place"
    return play_turn(client, view)


def play_to_end(client: Client, view: dict[str, Any], use_power: bool = False) -> Any:
    """Play the game to the end through the API; returns the final view."""
    for _ in range(17):
        if view["phase"] == "over":
            return view
        view = play_turn(client, view, use_power)
    raise AssertionError("the game did not end within 16 turns")


def ends_the_game(view: dict[str, Any], action: dict[str, Any]) -> bool:
    """Whether the action fills the board's last square (the client never knows this; browser
    tests only want to leave that action to the page)."""
    if action["type"] == "confirm":
        return "." not in view["staged_board"]
    if action["type"] == "accept_magdagdon":
        board: str = view["board"]
        return board.count(".") == 1
    return False


def play_through(
    post: Callable[[str, dict[str, Any]], Any], view: Any, *, to_the_end: bool = False
) -> Any:
    """Play a game with :class:`ViewPlayer`, each action sent by ``post(path, body)`` (which
    answers the view), up to its last action (or to its end); the view."""
    bot = ViewPlayer()
    while view["phase"] != "over":
        action = bot.next_action(view)
        if not to_the_end and ends_the_game(view, action):
            break
        body = {"version": view["version"], "action": action}
        view = post(f"/api/games/{view['id']}/actions", body)
    return view


def next_event(live: Any, kind: str, **body: Any) -> dict[str, Any]:
    """The next event of ``kind`` (with ``body``'s items) on a live room connection (a
    ``websockets`` sync client's), others skipped; a failure after 30 s, never a hang."""
    deadline = time.monotonic() + 30
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"no {kind} {body} within 30 s"
        event: dict[str, Any] = json.loads(live.recv(timeout=left))
        if event["type"] == kind and all(event["body"].get(k) == v for k, v in body.items()):
            return event
