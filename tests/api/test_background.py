"""Background work on two real server workers: the challenges one address makes are counted
(429 with Retry-After past the limit) and their coach scores queue apart from the hints, so
another address's hint is answered while the flood's work waits (issue: hardening V, item 1).
The bounds and the order themselves are in tests/api/test_coach_pool.py."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import httpx2
import pytest

from ..utils.api import act, new_game, play_through
from ..utils.server import running_server

pytestmark = pytest.mark.slow  # two real server workers

FLOODER = {"X-Forwarded-For": "198.51.100.7"}
OTHER = {"X-Forwarded-For": "203.0.113.9"}


@pytest.fixture
def server(database_url: str) -> Iterator[str]:
    env = {
        "MAGDAGDON_RATE_LIMITS": "true",
        "MAGDAGDON_TRUSTED_PROXIES": "127.0.0.1",
        "MAGDAGDON_ADDRESS_GAMES_PER_MINUTE": "1000",
        "MAGDAGDON_PLAYER_GAMES_PER_MINUTE": "1000",
        "MAGDAGDON_ADDRESS_ACTIONS_PER_SECOND": "1000",
        "MAGDAGDON_PLAYER_ACTIONS_PER_SECOND": "1000",
        "MAGDAGDON_ADDRESS_CHALLENGES_PER_HOUR": "12",  # a burst of 3
        "MAGDAGDON_PLAYER_CHALLENGES_PER_HOUR": "1000",
    }
    with running_server(database_url, workers=2, env=env) as url:
        yield url


def _post(client: httpx2.Client, path: str, body: dict[str, object]) -> object:
    r = client.post(path, json=body)
    assert r.status_code == 200, r.text
    return r.json()


def _finished_game(client: httpx2.Client, seed: int) -> str:
    r = client.post("/api/games", json={"difficulty": "peaceful", "seed": seed})
    assert r.status_code == 201, r.text
    view = play_through(partial(_post, client), r.json(), to_the_end=True)
    return str(view["id"])


def test_one_addresss_challenges_are_counted_and_never_hold_up_a_hint(server: str) -> None:
    with (
        httpx2.Client(base_url=server, timeout=60, headers=FLOODER) as flooder,
        httpx2.Client(base_url=server, timeout=60, headers=OTHER) as other,
    ):
        games = [_finished_game(flooder, seed) for seed in range(1, 6)]
        answers = [flooder.post("/api/challenges", json={"game_id": g}) for g in games]
        assert [r.status_code for r in answers] == [201, 201, 201, 429, 429]
        assert int(answers[-1].headers["Retry-After"]) >= 1
        assert answers[-1].json()["error"]["code"] == "rate_limited"
        # the same game asked again is counted too (it is the coach's work it could start)
        assert flooder.post("/api/challenges", json={"game_id": games[0]}).status_code == 429
        view = act(other, new_game(other, "nightmare", seed=7), {"type": "roll"})
        hint = other.get(f"/api/games/{view['id']}/hint")
        assert hint.status_code == 200, hint.text
        assert hint.json()["version"] == view["version"] and hint.json()["plan"]
