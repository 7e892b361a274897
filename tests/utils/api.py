"""Helpers for API tests: an HTTP client wrapper and a player that reads only the game view."""

from __future__ import annotations

from typing import Any, Protocol


class Response(Protocol):
    """What the helpers need of an HTTP response."""

    status_code: int

    def json(self) -> Any: ...


class Client(Protocol):
    """Starlette's TestClient and httpx2.Client both fit."""

    def post(self, url: str, *, json: Any = ...) -> Any: ...

    def get(self, url: str) -> Any: ...


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
    r = client.post(
        f"/api/games/{view['id']}/actions", json={"version": view["version"], "action": action}
    )
    assert r.status_code == 200, r.json()
    return r.json()


def play_turn(client: Client, view: dict[str, Any], use_power: bool = False) -> Any:
    """Play one turn (from ROLL, or from where it stands) reading only the view; the new view.

    Staging never strands the turn: a die whose square leaves a dead end (R7) is taken back
    and the next candidate tried, so the minimum is always reached when R5 allows it.
    """
    if view["can_roll"]:
        view = act(client, view, {"type": "roll"})
    while view["phase"] == "magdagdon":
        if use_power and view["rescues"]:
            rescue = view["rescues"][0]
            view = act(
                client, view, {"type": "adjust", "die": rescue["die"], "delta": rescue["delta"]}
            )
        else:
            return act(client, view, {"type": "accept_magdagdon", "cell": view["ruin_choices"][0]})
    return finish_turn(client, view)


def finish_turn(client: Client, view: dict[str, Any]) -> Any:
    """Stage dice until the minimum is reached (never into a dead end), then CONFIRM."""
    while not view["can_confirm"]:
        candidates = [
            (d["index"], cell)
            for d in view["dice"]
            if d["cell"] is None
            for cell in d["legal_cells"]
        ]
        assert candidates, "no legal placement although the turn is not MAGDAGDON"
        for die, cell in candidates:
            view = act(client, view, {"type": "stage", "die": die, "cell": cell})
            if not view["dead_end"]:
                break
            view = act(client, view, {"type": "unstage", "die": die})
    return act(client, view, {"type": "confirm"})


def play_to_end(client: Client, view: dict[str, Any], use_power: bool = False) -> Any:
    """Play the game to the end through the API; returns the final view."""
    for _ in range(17):
        if view["phase"] == "over":
            return view
        view = play_turn(client, view, use_power)
    raise AssertionError("the game did not end within 16 turns")
