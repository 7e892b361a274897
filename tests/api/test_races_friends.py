"""Challenges and leagues under racing requests on two real server workers (SQLite and
PostgreSQL): one game per player of a challenge, a join racing a renewed invite joins or is
refused and nothing in between, every worker gives the same league table, the limit on a
player's leagues holds, and a league's creator is always a member however many leave at once."""

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


def test_a_players_leagues_stay_within_the_limit_under_racing_creates_and_joins(
    server: str,
) -> None:
    for round in range(3):
        with device(server) as ann, device(server) as ben:
            for client in (ann, ben):
                assert client.post("/api/account/transfer-codes").status_code == 201
            invites = []
            for i in range(5):
                body = {"name": f"Ben {i}", "difficulty": "peaceful"}
                invites.append(ben.post("/api/leagues", json=body).json()["invite"])
            tabs = [device(server, ann.cookies) for _ in range(25)]
            try:
                creates = [
                    partial(
                        t.post, "/api/leagues", json={"name": f"A{i}", "difficulty": "peaceful"}
                    )
                    for i, t in enumerate(tabs[:20])
                ]
                joins = [
                    partial(t.post, "/api/leagues/join", json={"invite": invite})
                    for t, invite in zip(tabs[20:], invites, strict=True)
                ]
                answers = at_once([*creates, *joins])
            finally:
                for t in tabs:
                    t.close()
            made = [r for r in answers if r.status_code in (200, 201)]
            refused = [r for r in answers if r.status_code == 409]
            codes = [r.status_code for r in answers]
            assert len(made) == 20 and len(refused) == 5, (round, codes)
            assert {r.json()["error"]["code"] for r in refused} == {"too_many_leagues"}
            assert len(ann.get("/api/leagues").json()) == 20


@pytest.mark.parametrize("leaving", ["the creator and the heir", "the last two"])
def test_members_leaving_at_once_leave_a_creator_who_is_a_member(server: str, leaving: str) -> None:
    for _ in range(4):
        with device(server) as ann, device(server) as ben, device(server) as cid:
            people = [ann, ben] if leaving == "the last two" else [ann, ben, cid]
            for client in people:
                assert client.post("/api/account/transfer-codes").status_code == 201
            body = {"name": "Leavers", "difficulty": "peaceful"}
            league = ann.post("/api/leagues", json=body).json()
            for client in people[1:]:
                assert (
                    client.post("/api/leagues/join", json={"invite": league["invite"]}).status_code
                    == 200
                )
            path = f"/api/leagues/{league['id']}/members/me"
            answers = at_once([partial(ann.delete, path), partial(ben.delete, path)])
            assert [r.status_code for r in answers] == [204, 204]
            if leaving == "the last two":  # the league is gone: its invite joins nobody
                r = cid.post("/api/account/transfer-codes")
                assert r.status_code == 201
                late = cid.post("/api/leagues/join", json={"invite": league["invite"]})
                assert late.status_code == 404
            else:  # Cid, the one member left, is its creator: he renews the invite
                table = cid.get(f"/api/leagues/{league['id']}").json()
                assert [(m["name"], m["creator"]) for m in table["members"]] == [(None, True)]
                assert cid.post(f"/api/leagues/{league['id']}/invite").status_code == 200
