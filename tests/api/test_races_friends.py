"""Challenges and leagues under racing requests on two real server workers (SQLite and
PostgreSQL): one game per player of a challenge, a join racing a renewed invite joins or is
refused and nothing in between, and every worker gives the same league table."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import httpx2
import pytest

from ..utils.api import play_through
from ..utils.server import running_server
from .test_races import at_once

pytestmark = pytest.mark.slow  # two real server workers

DAY = {"X-Magdagdon-Test-Date": "2026-12-09"}


@pytest.fixture
def server(database_url: str) -> Iterator[str]:
    with running_server(database_url, workers=2) as url:
        yield url


def device(url: str, cookies: httpx2.Cookies | None = None) -> httpx2.Client:
    """A client of its own (a device), or another connection of the same device."""
    return httpx2.Client(base_url=url, timeout=30, headers=DAY, cookies=cookies)


def post(client: httpx2.Client, path: str, body: dict[str, object]) -> object:
    r = client.post(path, json=body)
    assert r.status_code == 200, r.text
    return r.json()


def finished_game(client: httpx2.Client) -> str:
    r = client.post("/api/games", json={"difficulty": "peaceful", "abandon": True})
    assert r.status_code == 201, r.text
    view = play_through(partial(post, client), r.json(), to_the_end=True)
    return str(view["id"])


def test_two_starts_of_one_challenge_make_one_game(server: str) -> None:
    with device(server) as ann, device(server) as ben:
        made = ann.post("/api/challenges", json={"game_id": finished_game(ann)})
        assert made.status_code == 201
        code = made.json()["code"]
        ben.get("/api/players/me")  # Ben's cookie, then eight connections of his at once
        tabs = [device(server, ben.cookies) for _ in range(8)]
        try:
            answers = at_once([partial(t.post, f"/api/challenges/{code}/games") for t in tabs])
        finally:
            for t in tabs:
                t.close()
        assert sorted(r.status_code for r in answers) == [201] + [409] * 7
        made_id = next(r.json()["id"] for r in answers if r.status_code == 201)
        assert {r.json()["game_id"] for r in answers if r.status_code == 409} == {made_id}


def test_a_join_racing_a_renewed_invite_joins_or_is_refused(server: str) -> None:
    with device(server) as ann:
        assert ann.post("/api/account/transfer-codes").status_code == 201  # an account
        league = ann.post("/api/leagues", json={"name": "Race", "difficulty": "peaceful"}).json()
        friends = [device(server) for _ in range(6)]
        try:
            for f in friends:
                assert f.post("/api/account/transfer-codes").status_code == 201
            joins = [
                partial(f.post, "/api/leagues/join", json={"invite": league["invite"]})
                for f in friends
            ]
            renew = partial(ann.post, f"/api/leagues/{league['id']}/invite")
            *answers, renewed = at_once([*joins, renew])
            assert renewed.status_code == 200
            assert {r.status_code for r in answers} <= {200, 404}
            joined = sum(1 for r in answers if r.status_code == 200)
            table = ann.get(f"/api/leagues/{league['id']}").json()
            assert len(table["members"]) == 1 + joined  # each joined or refused, no half
            late = friends[0].post("/api/leagues/join", json={"invite": league["invite"]})
            assert late.status_code in (200, 404)
            if answers[0].status_code == 404:
                assert late.status_code == 404  # the old invite stays dead
        finally:
            for f in friends:
                f.close()


def test_every_worker_gives_the_same_league_table(server: str) -> None:
    with device(server) as ann, device(server) as ben:
        for client in (ann, ben):
            assert client.post("/api/account/transfer-codes").status_code == 201
        league = ann.post("/api/leagues", json={"name": "Same", "difficulty": "peaceful"}).json()
        assert ben.post("/api/leagues/join", json={"invite": league["invite"]}).status_code == 200
        for client in (ann, ben):
            r = client.post("/api/daily/peaceful")
            assert r.status_code == 201, r.text
            play_through(partial(post, client), r.json(), to_the_end=True)
        tables = [ann.get(f"/api/leagues/{league['id']}").json() for _ in range(12)]
        assert all(t == tables[0] for t in tables)
        assert sorted(
            len([s for s in m["scores"] if s is not None]) for m in tables[0]["members"]
        ) == [
            1,
            1,
        ]
