"""High scores: written by the server when a game ends, ordered, per difficulty and scope."""

from __future__ import annotations

from fastapi.testclient import TestClient

from ..utils.api import new_game, play_to_end


def finish(client: TestClient, difficulty: str, seed: int) -> int:
    view = play_to_end(client, new_game(client, difficulty, seed=seed))
    total: int = view["final_score"]["total"]
    return total


def test_ordering_is_by_score_then_earlier_date(client: TestClient) -> None:
    other = TestClient(client.app)
    scores = [finish(client, "nightmare", seed) for seed in (1, 2, 3)]
    again = finish(other, "nightmare", 2)  # the same seed and player: the same score, later
    assert again == scores[1]
    rows = client.get("/api/highscores/nightmare?scope=all").json()["rows"]
    assert [r["score"] for r in rows] == sorted([*scores, again], reverse=True)
    assert [r["place"] for r in rows] == [1, 2, 3, 4]
    tied = [r for r in rows if r["score"] == again]
    assert tied[0]["date"] <= tied[1]["date"]
    assert tied[0]["mine"] and not tied[-1]["mine"]  # the earlier game was this player's
    for row in rows:
        assert set(row) == {
            "place",
            "name",
            "score",
            "date",
            "turns",
            "powers_used",
            "hints_used",
            "game_id",
            "mine",
        }
        assert row["turns"] > 0


def test_scope_me_and_difficulties_are_separate(client: TestClient) -> None:
    other = TestClient(client.app)
    finish(client, "peaceful", 10)
    finish(other, "peaceful", 11)
    finish(other, "survival", 12)
    mine = client.get("/api/highscores/peaceful?scope=me").json()["rows"]
    assert len(mine) == 1 and mine[0]["mine"]
    assert len(client.get("/api/highscores/peaceful").json()["rows"]) == 2
    assert client.get("/api/highscores/survival?scope=me").json()["rows"] == []
    assert len(other.get("/api/highscores/survival?scope=me").json()["rows"]) == 1
    assert client.get("/api/highscores/nightmare").json()["rows"] == []


def test_top_ten_only(client: TestClient) -> None:
    for seed in range(12):
        finish(client, "nightmare", 100 + seed)
    rows = client.get("/api/highscores/nightmare").json()["rows"]
    assert len(rows) == 10
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)


def test_place_of_a_finished_game_in_both_tables(client: TestClient) -> None:
    other = TestClient(client.app)
    best = max(finish(other, "nightmare", seed) for seed in (1, 2, 3))
    view = play_to_end(client, new_game(client, "nightmare", seed=1))
    rows = client.get("/api/highscores/nightmare").json()["rows"]
    expected = 1 + sum(
        1
        for r in rows
        if r["score"] > view["final_score"]["total"]
        or (r["score"] == view["final_score"]["total"] and not r["mine"])
    )
    assert view["places"] == {"me": 1, "all": expected}
    assert best >= view["final_score"]["total"] or view["places"]["all"] == 1
    assert client.get(f"/api/games/{view['id']}").json()["places"] == view["places"]


def test_names_appear_as_given(client: TestClient) -> None:
    client.put("/api/players/me", json={"name": "Majduška"})
    finish(client, "survival", 4)
    assert client.get("/api/highscores/survival").json()["rows"][0]["name"] == "Majduška"


def test_no_cookie_scope_me_is_empty_and_creates_nobody(client: TestClient) -> None:
    finish(client, "peaceful", 5)
    stranger = TestClient(client.app)
    r = stranger.get("/api/highscores/peaceful?scope=me")
    assert r.status_code == 200 and r.json()["rows"] == []
    assert "set-cookie" not in r.headers


def test_bad_difficulty_or_scope_is_422(client: TestClient) -> None:
    for url in ("/api/highscores/easy", "/api/highscores/peaceful?scope=friends"):
        r = client.get(url)
        assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"


def test_a_row_has_the_finished_games_turns_and_powers(client: TestClient) -> None:
    view = play_to_end(client, new_game(client, "peaceful", seed=29), use_power=True)
    row = next(
        r
        for r in client.get("/api/highscores/peaceful").json()["rows"]
        if r["game_id"] == view["id"]
    )
    assert view["powers_used"] > 0  # a row storing the powers left would differ
    assert (row["turns"], row["powers_used"]) == (view["turns"], view["powers_used"])
    assert row["score"] == view["final_score"]["total"]
