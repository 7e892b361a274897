"""GET /api/games/{id}/hint and /review: the strong player's advice over HTTP."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from magdagdon.engine import DiceStream
from magdagdon.settings import Settings
from magdagdon.web.app import create_app

from ..utils.api import act, new_game, play_to_end


def test_a_hint_is_a_plan_the_api_accepts(client: TestClient) -> None:
    view = act(client, new_game(client, "peaceful", seed=4), {"type": "roll"})
    r = client.get(f"/api/games/{view['id']}/hint")
    assert r.status_code == 200, r.json()
    hint = r.json()
    assert set(hint) == {
        "plan",
        "expected_score",
        "cost",
        "board",
        "alternatives",
        "version",
        "hints_used",
    }
    assert hint["version"] == view["version"] and hint["cost"] == 0
    assert 2 <= len(hint["alternatives"]) <= 3
    for action in hint["plan"]:
        view = act(client, view, action)
    assert view["turns"] == 1 and view["board"] == hint["board"]


def test_hints_count_once_per_position_and_reach_the_high_scores(client: TestClient) -> None:
    view = new_game(client, "nightmare", seed=5)
    first = client.get(f"/api/games/{view['id']}/hint").json()
    again = client.get(f"/api/games/{view['id']}/hint").json()
    assert first["hints_used"] == again["hints_used"] == 1  # the same position: one hint
    assert first["plan"] == [{"type": "roll"}]
    view = act(client, view, {"type": "roll"})
    assert client.get(f"/api/games/{view['id']}/hint").json()["hints_used"] == 2
    assert client.get(f"/api/games/{view['id']}").json()["hints_used"] == 2
    final = play_to_end(client, view)
    assert final["hints_used"] == 2
    rows = client.get("/api/highscores/nightmare?scope=me").json()["rows"]
    assert rows[0]["game_id"] == view["id"] and rows[0]["hints_used"] == 2


def test_no_hint_for_a_finished_game_or_someone_elses(client: TestClient) -> None:
    view = new_game(client, "nightmare", seed=6)
    other = TestClient(client.app)
    r = other.get(f"/api/games/{view['id']}/hint")
    assert r.status_code == 404 and r.json()["error"]["code"] == "game_not_found"
    final = play_to_end(client, view)
    r = client.get(f"/api/games/{final['id']}/hint")
    assert r.status_code == 409 and r.json()["error"]["code"] == "game_over"
    assert client.get(f"/api/games/{final['id']}").json()["hints_used"] == 0


def test_the_review_of_a_finished_game(client: TestClient) -> None:
    view = new_game(client, "survival", seed=7)
    r = client.get(f"/api/games/{view['id']}/review")
    assert r.status_code == 409 and r.json()["error"]["code"] == "game_not_over"
    final = play_to_end(client, view)
    review = client.get(f"/api/games/{final['id']}/review").json()
    assert review["score"] == final["final_score"]["total"]
    assert len(review["turns"]) == final["turns"]
    assert review["turns"][-1]["played_board"] == final["board"]
    assert review["expected_loss"] == pytest.approx(
        sum(t["expected_loss"] for t in review["turns"]), abs=0.1 * len(review["turns"])
    )
    assert all(t["expected_loss"] >= 0 for t in review["turns"])
    # like the replay, a finished game can be reviewed from the high-score table by anyone
    other = TestClient(client.app)
    assert other.get(f"/api/games/{final['id']}/review").json() == review


def test_the_coach_is_rate_limited(database_url: str) -> None:
    settings = Settings(
        database_url=database_url,
        allow_test_seeds=True,
        test_seeds_scored=True,
        player_coach_per_minute=3,
    )
    with TestClient(create_app(settings)) as client:
        view = new_game(client, "nightmare", seed=8)
        # a burst of a third of a minute's allowance (1), then one every 20 s
        codes = [client.get(f"/api/games/{view['id']}/hint").status_code for _ in range(3)]
        assert codes == [200, 429, 429]
        r = client.get(f"/api/games/{view['id']}/review")
        assert r.status_code == 429 and "Retry-After" in r.headers


def test_the_review_of_a_game_with_a_power_the_coach_would_not_use(client: TestClient) -> None:
    """PEACEFUL, a 6 DECREASEd to 5 on the first roll, then played out: the review answered
    500 before (``max() arg is an empty sequence``)."""
    seed = next(s for s in range(100) if 6 in DiceStream(s).roll(0))
    view = act(client, new_game(client, "peaceful", seed=seed), {"type": "roll"})
    six = next(d for d in view["dice"] if d["value"] == 6)
    view = act(client, view, {"type": "adjust", "die": six["index"], "delta": -1})
    final = play_to_end(client, view)
    r = client.get(f"/api/games/{final['id']}/review")
    assert r.status_code == 200, r.json()
    first = r.json()["turns"][0]
    assert first["played"][0]["type"] == "adjust" and first["expected_loss"] > 0
