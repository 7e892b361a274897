"""Requests that race on one player with real concurrency: two server workers, one cookie.

On PostgreSQL (and on SQLite, whose writers queue) the outcome is always one of the orders the
requests could have had: an abandon and a game's last action never both land, and a player
never has two unfinished games.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any

import httpx2
import pytest
from sqlalchemy import create_engine, text

from ..utils.api import ViewPlayer
from ..utils.server import running_server

pytestmark = pytest.mark.slow  # two real server workers


@pytest.fixture
def server(database_url: str) -> Iterator[str]:
    with running_server(database_url, workers=2) as url:
        yield url


def at_once(calls: Sequence[Callable[[], Any]]) -> list[Any]:
    """Run the calls in threads released together; their results (responses) in order."""
    barrier = threading.Barrier(len(calls))
    out: list[Any] = [None] * len(calls)  # each filled by its thread

    def run(i: int) -> None:
        barrier.wait()
        out[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return out


def _ends_the_game(view: dict[str, Any], action: dict[str, Any]) -> bool:
    if action["type"] == "confirm":
        return "." not in str(view["staged_board"])
    return action["type"] == "accept_magdagdon" and str(view["board"]).count(".") == 1


def to_the_last_action(client: httpx2.Client, seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """A new game played up to its last action: the view and that action."""
    r = client.post("/api/games", json={"difficulty": "nightmare", "seed": seed, "abandon": True})
    view = r.json()
    player = ViewPlayer()
    while True:
        action = player.next_action(view)
        if _ends_the_game(view, action):
            return view, action
        r = client.post(
            f"/api/games/{view['id']}/actions", json={"version": view["version"], "action": action}
        )
        assert r.status_code == 200, r.text
        view = r.json()


def test_abandon_and_the_last_action_never_both_land(server: str, database_url: str) -> None:
    engine = create_engine(database_url)
    outcomes = {"action won": 0, "abandon won": 0}
    with httpx2.Client(base_url=server, timeout=30) as client:
        for seed in range(25):
            view, action = to_the_last_action(client, seed)
            acted, created = at_once(
                [
                    partial(
                        client.post,
                        f"/api/games/{view['id']}/actions",
                        json={"version": view["version"], "action": action},
                    ),
                    lambda: client.post(
                        "/api/games", json={"difficulty": "nightmare", "abandon": True}
                    ),
                ]
            )
            assert created.status_code == 201, created.text
            with engine.connect() as c:
                status = c.execute(
                    text("SELECT status FROM games WHERE id = :id"), {"id": view["id"]}
                ).scalar()
                scored = c.execute(
                    text("SELECT count(*) FROM highscores WHERE game_id = :id"), {"id": view["id"]}
                ).scalar()
            replay = client.get(f"/api/games/{view['id']}/replay")
            if acted.status_code == 200:
                assert acted.json()["status"] == "over"
                assert status == "over" and scored == 1 and replay.status_code == 200
                outcomes["action won"] += 1
            else:
                assert acted.status_code == 409, acted.text
                assert status == "abandoned" and scored == 0 and replay.status_code != 200
                outcomes["abandon won"] += 1
    engine.dispose()
    assert sum(outcomes.values()) == 25


def test_one_unfinished_game_per_player_whatever_the_race(server: str, database_url: str) -> None:
    engine = create_engine(database_url)
    for _ in range(8):
        with httpx2.Client(base_url=server, timeout=30) as client:
            client.get("/api/players/me")  # the cookie first
            answers = at_once(
                [
                    lambda: client.post("/api/games", json={"difficulty": "peaceful"})
                    for _ in range(5)
                ]
            )
            codes = sorted(r.status_code for r in answers)
            assert codes == [201, 409, 409, 409, 409], [r.text for r in answers]
            assert all(
                r.json()["error"]["code"] == "game_in_progress"
                for r in answers
                if r.status_code == 409
            )
            winner = next(r.json() for r in answers if r.status_code == 201)
            assert client.get("/api/games/current").json()["id"] == winner["id"]
            # abandoning at once: every request starts a game in turn, one stays active
            answers = at_once(
                [
                    lambda: client.post(
                        "/api/games", json={"difficulty": "survival", "abandon": True}
                    )
                    for _ in range(5)
                ]
            )
            assert all(r.status_code in (201, 409) for r in answers), [r.text for r in answers]
            assert any(r.status_code == 201 for r in answers)
        with engine.connect() as c:
            active = c.execute(
                text(
                    "SELECT count(*) FROM games WHERE status = 'active' AND player_id = "
                    "(SELECT player_id FROM games WHERE id = :id)"
                ),
                {"id": winner["id"]},
            ).scalar()
        assert active == 1
    engine.dispose()
