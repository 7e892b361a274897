"""The games API: create, read, act, resume, abandon, replay, and every error status."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from magdagdon.engine import Game
from magdagdon.settings import Settings
from magdagdon.web.app import create_app

from ..utils.api import act, new_game, play_to_end, play_turn


@pytest.fixture
def other(client: TestClient) -> TestClient:
    """A second player on the same server (own cookie jar)."""
    c = TestClient(client.app)
    return c


CORE_KEYS = {
    "id",
    "version",
    "difficulty",
    "phase",
    "board",
    "dice",
    "required",
    "can_confirm",
    "dead_end",
    "powers_left",
    "powers_used",
    "turns",
    "score",
}


def test_create_sets_an_httponly_lax_cookie_and_returns_the_view(client: TestClient) -> None:
    r = client.post("/api/games", json={"difficulty": "peaceful"})
    assert r.status_code == 201
    cookie = r.headers["set-cookie"]
    assert cookie.startswith("magdagdon_player=")
    assert "HttpOnly" in cookie and "samesite=lax" in cookie.lower() and "Path=/" in cookie
    assert "Secure" not in cookie  # plain http
    view = r.json()
    assert set(view) >= CORE_KEYS
    assert view["phase"] == "roll" and view["version"] == 0 and view["can_roll"]
    assert view["board"] == "..../..../..../...." and view["dice"] == []
    assert view["powers_left"] == 3 and view["next_power_cost"] == 10
    assert view["score"]["total"] == 0 and len(view["score"]["rows"]) == 4


def test_the_seed_never_appears_in_an_unfinished_game(client: TestClient) -> None:
    view = new_game(client, "peaceful", seed=123456789)
    view = act(client, view, {"type": "roll"})
    seed_hex = Game.new("peaceful", seed=123456789).seed.hex()
    for text in (
        client.get(f"/api/games/{view['id']}").text,
        client.get("/api/games/current").text,
        str(client.get(f"/api/games/{view['id']}").headers),
    ):
        assert seed_hex not in text and "seed" not in text.lower()


def test_roll_stage_confirm(client: TestClient) -> None:
    view = new_game(client, "peaceful", seed=5)
    view = act(client, view, {"type": "roll"})
    assert view["phase"] == "place" and view["version"] == 1 and len(view["dice"]) == 4
    assert all(d["cell"] is None and d["legal_cells"] == list(range(16)) for d in view["dice"])
    view = play_turn_from_place(client, view)
    assert view["turns"] == 1 and view["phase"] == "roll"


def play_turn_from_place(client: TestClient, view: dict[str, Any]) -> Any:
    while not view["can_confirm"]:
        die = next(d for d in view["dice"] if d["cell"] is None and d["legal_cells"])
        view = act(
            client, view, {"type": "stage", "die": die["index"], "cell": die["legal_cells"][0]}
        )
        if view["dead_end"]:
            view = act(client, view, {"type": "unstage_all"})
    return act(client, view, {"type": "confirm"})


def test_illegal_action_is_422_with_the_engine_code_and_changes_nothing(client: TestClient) -> None:
    view = new_game(client, "nightmare", seed=1)
    errors: list[tuple[dict[str, Any], str]] = [
        ({"type": "confirm"}, "wrong_phase"),
        ({"type": "reroll", "dice": [0]}, "wrong_phase"),
    ]
    for action, code in errors:
        r = client.post(f"/api/games/{view['id']}/actions", json={"version": 0, "action": action})
        assert r.status_code == 422
        assert r.json()["error"]["code"] == code and r.json()["error"]["message"]
    view = act(client, view, {"type": "roll"})
    assert view["phase"] == "place"  # seed 1 rolls 4 2 4 5: placeable
    before = client.get(f"/api/games/{view['id']}").json()
    errors = [
        # out of the schema's ranges (stated in /openapi.json): refused before the engine
        ({"type": "stage", "die": 7, "cell": 0}, "invalid_request"),
        ({"type": "stage", "die": 0, "cell": 16}, "invalid_request"),
        ({"type": "adjust", "die": 0, "delta": 2}, "invalid_request"),
        ({"type": "reroll", "dice": []}, "invalid_request"),
        ({"type": "adjust", "die": 0, "delta": 1}, "no_powers_left"),
        ({"type": "accept_magdagdon", "cell": 3}, "wrong_phase"),
        ({"type": "confirm"}, "below_minimum"),
        ({"type": "unstage", "die": 0}, "die_not_staged"),
    ]
    for action, code in errors:
        r = client.post(f"/api/games/{view['id']}/actions", json={"version": 1, "action": action})
        assert r.status_code == 422, r.json()
        assert r.json()["error"]["code"] == code
    assert client.get(f"/api/games/{view['id']}").json() == before


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"version": 0},
        {"action": {"type": "roll"}},
        {"version": "0", "action": {"type": "roll"}},
        {"version": 0, "action": {"type": "fly"}},
        {"version": 0, "action": {"type": "stage", "die": 0}},
        {"version": 0, "action": {"type": "stage", "die": 0, "cell": 1, "extra": 1}},
        {"version": 0, "action": {"type": "reroll", "dice": "0"}},
        {"version": 0, "action": "roll"},
        [],
    ],
)
def test_malformed_body_is_422_invalid_request(client: TestClient, body: Any) -> None:
    view = new_game(client, "peaceful")
    r = client.post(f"/api/games/{view['id']}/actions", json=body)
    assert r.status_code == 422
    assert r.json()["error"]["code"] == "invalid_request"
    assert r.json()["error"]["message"]
    assert client.get(f"/api/games/{view['id']}").json()["version"] == 0


def test_not_json_is_422(client: TestClient) -> None:
    view = new_game(client, "peaceful")
    r = client.post(
        f"/api/games/{view['id']}/actions",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"


def test_stale_version_is_409_with_the_current_view(client: TestClient) -> None:
    view = new_game(client, "peaceful", seed=9)
    act(client, view, {"type": "roll"})
    r = client.post(
        f"/api/games/{view['id']}/actions", json={"version": 0, "action": {"type": "roll"}}
    )
    assert r.status_code == 409
    body = r.json()
    assert body["error"]["code"] == "stale_version"
    assert body["game"]["version"] == 1 and body["game"]["phase"] in ("place", "magdagdon")


def test_unknown_and_foreign_games_are_404(client: TestClient, other: TestClient) -> None:
    view = new_game(client, "peaceful")
    assert client.get("/api/games/nope").status_code == 404
    assert client.get("/api/games/nope").json()["error"]["code"] == "game_not_found"
    r = other.get(f"/api/games/{view['id']}")
    assert r.status_code == 404 and r.json()["error"]["code"] == "game_not_found"
    r = other.post(
        f"/api/games/{view['id']}/actions", json={"version": 0, "action": {"type": "roll"}}
    )
    assert r.status_code == 404
    assert client.get(f"/api/games/{view['id']}").json()["version"] == 0


def test_unknown_route_and_method(client: TestClient) -> None:
    r = client.get("/api/nothing-here")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    r = client.delete("/api/games")
    assert r.status_code == 405 and r.json()["error"]["code"] == "method_not_allowed"


@pytest.mark.parametrize("difficulty", ["peaceful", "survival", "nightmare"])
def test_full_game_to_the_end(client: TestClient, difficulty: str) -> None:
    view = new_game(client, difficulty, seed=2026)
    view = play_to_end(client, view, use_power=True)
    assert view["phase"] == "over" and view["status"] == "over"
    assert view["final_score"]["total"] == view["score"]["total"]
    assert view["places"] == {"me": 1, "all": 1}
    assert view["finished_at"] is not None
    assert not view["can_roll"] and view["dice"] == []
    r = client.post(
        f"/api/games/{view['id']}/actions",
        json={"version": view["version"], "action": {"type": "roll"}},
    )
    assert r.status_code == 422 and r.json()["error"]["code"] == "game_over"
    # the replay verifies the score with the engine alone
    replay = client.get(f"/api/games/{view['id']}/replay").json()
    game = Game.replay(difficulty, bytes.fromhex(replay["seed"]), replay["actions"])
    assert game.score().total == replay["score"] == view["final_score"]["total"]
    assert str(game.board) == view["board"]
    table = client.get(f"/api/highscores/{difficulty}").json()
    assert table["rows"][0]["score"] == view["final_score"]["total"]


def test_powers_through_the_api(client: TestClient) -> None:
    view = new_game(client, "peaceful", seed=77)
    view = act(client, view, {"type": "roll"})
    tray = [d for d in view["dice"] if d["can_increase"]]
    view = act(client, view, {"type": "adjust", "die": tray[0]["index"], "delta": 1})
    assert (
        view["powers_used"] == 1 and view["power_penalty"] == 10 and view["next_power_cost"] == 20
    )
    view = act(client, view, {"type": "reroll", "dice": [0, 1]})
    assert view["powers_used"] == 2 and view["score"]["power_penalty"] == 30


def test_one_unfinished_game_unless_abandoned(client: TestClient) -> None:
    first = new_game(client, "peaceful")
    r = client.post("/api/games", json={"difficulty": "nightmare"})
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "game_in_progress" and r.json()["game"]["id"] == first["id"]
    second = new_game(client, "nightmare", abandon=True)
    abandoned = client.get(f"/api/games/{first['id']}").json()
    assert abandoned["status"] == "abandoned" and abandoned["version"] == 1
    url = f"/api/games/{first['id']}/actions"
    r = client.post(url, json={"version": 0, "action": {"type": "roll"}})
    assert r.status_code == 409  # abandoning moved the version on
    r = client.post(url, json={"version": 1, "action": {"type": "roll"}})
    assert r.status_code == 422 and r.json()["error"]["code"] == "game_abandoned"
    assert client.get("/api/games/current").json()["id"] == second["id"]


def test_r16_abandoned_games_never_score(client: TestClient) -> None:
    view = new_game(client, "nightmare", seed=1)
    for _ in range(3):
        view = play_turn(client, view)
    new_game(client, "peaceful", abandon=True)
    assert client.get("/api/highscores/nightmare?scope=me").json()["rows"] == []
    assert client.get("/api/highscores/nightmare").json()["rows"] == []


def test_resume_current_game_by_difficulty(client: TestClient) -> None:
    none = client.get("/api/games/current")  # no game is no error (issue #14)
    assert none.status_code == 200 and none.json() is None
    view = new_game(client, "survival", seed=3)
    view = act(client, view, {"type": "roll"})
    assert client.get("/api/games/current?difficulty=survival").json() == view
    assert client.get("/api/games/current?difficulty=peaceful").json() is None
    r = client.get("/api/games/current?difficulty=easy")
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"


def test_replay_only_when_over(client: TestClient, other: TestClient) -> None:
    view = new_game(client, "nightmare", seed=8)
    r = client.get(f"/api/games/{view['id']}/replay")
    assert r.status_code == 409 and r.json()["error"]["code"] == "game_not_over"
    assert other.get(f"/api/games/{view['id']}/replay").status_code == 404
    view = play_to_end(client, view)
    assert other.get(f"/api/games/{view['id']}/replay").status_code == 200  # anyone may verify


def test_chosen_seeds_need_the_test_setting(database_url: str) -> None:
    with TestClient(create_app(Settings(database_url=database_url))) as c:
        r = c.post("/api/games", json={"difficulty": "peaceful", "seed": 1})
        assert r.status_code == 422 and r.json()["error"]["code"] == "seed_not_allowed"
        assert c.post("/api/games", json={"difficulty": "peaceful"}).status_code == 201


def test_same_seed_same_dice_for_two_players(client: TestClient, other: TestClient) -> None:
    a = act(client, new_game(client, "peaceful", seed=42), {"type": "roll"})
    b = act(other, new_game(other, "peaceful", seed=42), {"type": "roll"})
    assert [d["value"] for d in a["dice"]] == [d["value"] for d in b["dice"]]


def test_the_view_says_why_a_square_is_not_lit_and_what_lines_can_still_make(
    client: TestClient,
) -> None:
    """Every square a tray die may not go on has the engine's reason (staging it there is
    refused with that code), and the prospects are the engine's for the staged board."""
    from magdagdon.engine import Board, line_prospects

    from ..utils.api import ViewPlayer

    view = new_game(client, "peaceful", seed=12)
    player = ViewPlayer()
    checked = 0
    while view["phase"] != "over":
        expected = [
            {"bonus": b.value, "points": b.points} if b else None
            for b in line_prospects(Board.parse(view["staged_board"]))
        ]
        assert view["prospects"] == expected
        if view["phase"] == "place":
            for die in (d for d in view["dice"] if d["cell"] is None):
                blocked = {b["cell"]: b for b in die["blocked"]}
                assert sorted([*blocked, *die["legal_cells"]]) == list(range(16))
                for cell, reason in list(blocked.items())[:3]:
                    r = client.post(
                        f"/api/games/{view['id']}/actions",
                        json={
                            "version": view["version"],
                            "action": {"type": "stage", "die": die["index"], "cell": cell},
                        },
                    )
                    code = r.json()["error"]["code"]
                    assert code == ("cell_occupied" if reason["code"] == "ruin" else reason["code"])
                    if code == "value_too_far":
                        assert (
                            reason["values"]
                            and str(reason["values"][0]) in r.json()["error"]["message"]
                        )
                    checked += 1
        view = act(client, view, player.next_action(view))
    assert view["prospects"] == [] and checked > 20
