"""Bounds a player cannot push past: a turn's actions, replays, chosen seeds."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from magdagdon.engine import RuleViolation
from magdagdon.settings import Settings
from magdagdon.web.app import create_app
from magdagdon.web.limits import TURN_ACTIONS, check_turn_bound

from ..positions import game_at
from ..utils.api import act, new_game, play_to_end, play_turn


def post(client: TestClient, view: dict[str, Any], action: dict[str, Any]) -> Any:
    body = {"version": view["version"], "action": action}
    return client.post(f"/api/games/{view['id']}/actions", json=body)


def to_the_bound(client: TestClient, view: dict[str, Any]) -> dict[str, Any]:
    """Stage a die and take it back until the turn has had TURN_ACTIONS actions."""
    stage = {"type": "stage", "die": 0, "cell": view["dice"][0]["legal_cells"][0]}
    for _ in range(TURN_ACTIONS - 1):  # after the ROLL
        view = act(client, view, {"type": "unstage_all"} if view["staged"] else stage)
    return view


def test_a_turn_past_its_bound_accepts_only_what_finishes_it(client: TestClient) -> None:
    view = to_the_bound(client, act(client, new_game(client, "peaceful", seed=3), {"type": "roll"}))
    assert view["staged"] == [0] and not view["dead_end"]
    r = post(client, view, {"type": "unstage_all"})
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["code"] == "turn_action_limit" and "CONFIRM" in error["message"]
    assert post(client, view, {"type": "unstage", "die": 0}).status_code == 422
    assert client.get(f"/api/games/{view['id']}").json() == view  # nothing changed
    view = play_turn(client, view)  # the turn still finishes: stage to the minimum, CONFIRM
    assert view["turns"] == 1
    # the next turn starts afresh
    view = act(client, view, {"type": "roll"})
    if view["phase"] == "place":
        die = next(d for d in view["dice"] if d["legal_cells"])
        view = act(
            client, view, {"type": "stage", "die": die["index"], "cell": die["legal_cells"][0]}
        )
        assert act(client, view, {"type": "unstage_all"})["staged"] == []


def test_past_the_bound_a_dead_end_can_be_left_and_not_entered() -> None:
    # Free squares 1, 2 and 4: the 4 on square 4 leaves the 5 nowhere (R7).
    game = game_at("3..X/.XXX/XXXX/XXXX", (4, 5, 6, 6))
    game.stage(0, 4)
    assert game.dead_end
    game.turn_actions = TURN_ACTIONS
    check_turn_bound(game, {"type": "unstage_all"})  # out of the dead end: allowed
    check_turn_bound(game, {"type": "unstage", "die": 0})
    game.unstage_all()
    with pytest.raises(RuleViolation) as exc:
        check_turn_bound(game, {"type": "stage", "die": 0, "cell": 4})  # into it: refused
    assert exc.value.code == "turn_action_limit"
    check_turn_bound(game, {"type": "stage", "die": 0, "cell": 1})
    game.stage(0, 1)
    with pytest.raises(RuleViolation):
        check_turn_bound(game, {"type": "unstage_all"})  # no dead end: no taking back
    check_turn_bound(game, {"type": "stage", "die": 1, "cell": 2})
    game.stage(1, 2)
    check_turn_bound(game, {"type": "confirm"})
    with pytest.raises(RuleViolation) as exc:  # an illegal staging is refused for what it is
        check_turn_bound(game, {"type": "stage", "die": 2, "cell": 0})
    assert exc.value.code == "cell_occupied"


def test_replays_are_rate_limited(database_url: str) -> None:
    settings = Settings(
        database_url=database_url,
        allow_test_seeds=True,
        player_coach_per_minute=3,  # a burst of 1
        address_coach_per_minute=6,  # a burst of 2
    )
    with TestClient(create_app(settings)) as client:
        view = play_to_end(client, new_game(client, "nightmare", seed=4))
        url = f"/api/games/{view['id']}/replay"
        assert client.get(url).status_code == 200
        r = client.get(url)
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        anonymous = TestClient(client.app)  # no cookie: counted by address
        assert anonymous.get(url).status_code == 200
        assert anonymous.get(url).status_code == 429


def test_a_game_with_a_chosen_seed_never_enters_the_high_scores(database_url: str) -> None:
    settings = Settings(database_url=database_url, allow_test_seeds=True, rate_limits=False)
    with TestClient(create_app(settings)) as client:
        view = play_to_end(client, new_game(client, "nightmare", seed=4))
        assert view["status"] == "over" and view["places"] is None
        assert client.get("/api/highscores/nightmare").json()["rows"] == []
        assert client.get(f"/api/games/{view['id']}/replay").status_code == 200
        unseeded = play_to_end(client, new_game(client, "nightmare"))
        rows = client.get("/api/highscores/nightmare").json()["rows"]
        assert [r["game_id"] for r in rows] == [unseeded["id"]]


@pytest.mark.parametrize("seed", [2**53, 2**512, -1])
def test_a_seed_out_of_range_is_a_422_that_changes_nothing(client: TestClient, seed: int) -> None:
    r = client.post("/api/games", json={"difficulty": "peaceful", "seed": seed})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"
    assert client.get("/api/games/current").json() is None
    assert (
        client.post("/api/games", json={"difficulty": "peaceful", "seed": 2**53 - 1}).status_code
        == 201
    )
