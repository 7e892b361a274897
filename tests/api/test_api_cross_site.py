"""Requests of another site: refused before anything runs when they would change something, and
never a new player (whose cookie would replace the visitor's). The same in a real browser, with
a page on another origin: tests/browser/test_browser_cross_site.py."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from magdagdon.web.deps import COOKIE

from ..utils.api import new_game

CROSS = {"sec-fetch-site": "cross-site"}
SAME = {"sec-fetch-site": "same-origin"}


def _players(client: TestClient) -> int:
    from sqlalchemy import func, select

    from magdagdon.store.models import players

    store = client.app.state.store  # type: ignore[attr-defined]
    with store.db.transaction() as c:
        count: int = c.scalar(select(func.count()).select_from(players))
    return count


@pytest.mark.parametrize(
    "headers",
    [
        CROSS,
        {"sec-fetch-site": "same-site"},
        {"origin": "https://evil.example"},
        {"origin": "null"},
        {"origin": "http://testserver.evil.example"},
    ],
)
@pytest.mark.parametrize(
    "method, url, body",
    [
        ("POST", "/api/daily/peaceful", None),
        ("POST", "/api/games", {"difficulty": "peaceful"}),
        ("PUT", "/api/players/me", {"name": "Mallory"}),
    ],
)
def test_a_stranger_from_another_site_changes_nothing_and_gets_no_cookie(
    client: TestClient, headers: dict[str, str], method: str, url: str, body: object
) -> None:
    r = client.request(method, url, json=body, headers=headers)
    assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site"
    assert "set-cookie" not in r.headers
    assert _players(client) == 0


def test_a_visitor_keeps_their_player_and_game_against_another_site(client: TestClient) -> None:
    view = new_game(client, "peaceful")
    client.put("/api/players/me", json={"name": "Ada"})
    cookie = client.cookies[COOKIE]
    for method, url, body in [
        ("POST", "/api/daily/peaceful", None),
        ("POST", "/api/games", {"difficulty": "peaceful", "abandon": True}),
        ("POST", f"/api/games/{view['id']}/actions", {"version": 0, "action": {"type": "roll"}}),
        ("PUT", "/api/players/me", {"name": "Mallory"}),
    ]:
        r = client.request(method, url, json=body, headers=CROSS)
        assert r.status_code == 403, url
        assert "set-cookie" not in r.headers
    assert client.cookies[COOKIE] == cookie
    assert client.get("/api/players/me").json()["name"] == "Ada"
    assert client.get(f"/api/games/{view['id']}").json()["version"] == 0
    assert _players(client) == 1


def test_reading_from_another_site_makes_no_player(client: TestClient) -> None:
    r = client.get("/api/players/me", headers=CROSS)
    assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site"
    assert "set-cookie" not in r.headers and _players(client) == 0
    client.get("/api/players/me")  # the game's own page: a player
    r = client.get("/api/players/me", headers=CROSS)  # a link followed from elsewhere
    assert r.status_code == 200 and "set-cookie" not in r.headers
    assert client.get("/api/highscores/peaceful", headers=CROSS).status_code == 200


@pytest.mark.parametrize(
    "headers", [SAME, {"sec-fetch-site": "none"}, {"origin": "http://testserver"}, {}]
)
def test_the_games_own_page_and_other_clients_are_served(
    client: TestClient, headers: dict[str, str]
) -> None:
    r = client.post("/api/daily/peaceful", headers=headers)
    assert r.status_code == 201 and COOKIE in r.headers["set-cookie"]
    view = r.json()
    r = client.post(
        f"/api/games/{view['id']}/actions",
        json={"version": view["version"], "action": {"type": "roll"}},
        headers=headers,
    )
    assert r.status_code == 200
