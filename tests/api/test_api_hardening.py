"""Hostile input: security headers, body size, rate limits, secret seeds, forged scores,
damaged records."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from magdagdon.settings import Settings
from magdagdon.web.app import create_app

from ..utils.api import act, new_game, play_to_end, play_turn
from ..utils.server import running_server


def test_security_headers_everywhere(client: TestClient) -> None:
    for url in ("/", "/api/health", "/api/games/nope", "/js/app.js", "/docs", "/openapi.json"):
        headers = client.get(url).headers
        csp = headers["content-security-policy"]
        assert (
            "script-src 'self';" in csp
            and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
        )
        assert "frame-ancestors 'none'" in csp and "object-src 'none'" in csp
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"


def test_docs_are_served_by_the_app_itself(client: TestClient) -> None:
    page = client.get("/docs").text
    assert not re.search(r"(src|href)=\"(https?:)?//", page)
    assert "<script>" not in page  # no inline script
    for asset in re.findall(r"(?:src|href)=\"(/[^\"]+)\"", page):
        assert client.get(asset).status_code == 200, asset


def test_large_bodies_are_refused_and_change_nothing(client: TestClient) -> None:
    view = new_game(client, "peaceful")
    body = json.dumps({"version": 0, "action": {"type": "roll"}, "pad": "x" * 20_000})
    r = client.post(
        f"/api/games/{view['id']}/actions",
        content=body,
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"
    r = client.put(
        "/api/players/me",
        content=b"{" + b" " * 17_000 + b"}",
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 413
    assert client.get(f"/api/games/{view['id']}").json()["version"] == 0


def test_a_chunked_body_is_counted_as_it_arrives(client: TestClient) -> None:
    view = new_game(client, "peaceful")

    def chunks() -> Iterator[bytes]:
        yield b'{"version": 0, "action": {"type": "roll"}, "pad": "'
        for _ in range(40):
            yield b"x" * 1000
        yield b'"}'

    r = client.post(
        f"/api/games/{view['id']}/actions",
        content=chunks(),
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 413
    assert client.get(f"/api/games/{view['id']}").json()["version"] == 0


def test_rate_limits_answer_429_with_retry_after(database_url: str) -> None:
    settings = Settings(
        database_url=database_url,
        allow_test_seeds=True,
        player_actions_per_second=1,
        player_games_per_minute=2,
    )
    with TestClient(create_app(settings)) as c:
        view = new_game(c, "peaceful", seed=3)
        codes = []
        for _ in range(5):  # a burst of 3 is allowed, then one per second
            r = c.post(
                f"/api/games/{view['id']}/actions",
                json={"version": view["version"], "action": {"type": "unstage_all"}},
            )
            codes.append(r.status_code)
        assert codes[:3] == [422, 422, 422] and codes[3:] == [429, 429]
        assert r.json()["error"]["code"] == "rate_limited" and int(r.headers["retry-after"]) >= 1
        assert c.get(f"/api/games/{view['id']}").json()["version"] == 0
        # new games: a burst of 2 per player
        assert (
            c.post("/api/games", json={"difficulty": "peaceful", "abandon": True}).status_code
            == 201
        )
        r = c.post("/api/games", json={"difficulty": "peaceful", "abandon": True})
        assert r.status_code == 429 and "retry-after" in r.headers


def test_actions_per_address_are_limited_across_players(database_url: str) -> None:
    settings = Settings(database_url=database_url, address_actions_per_second=1)
    with TestClient(create_app(settings)) as first, TestClient(first.app) as second:
        codes = []
        for client in (first, second, first, second):
            view = new_game(client, "peaceful", abandon=True)
            r = client.post(
                f"/api/games/{view['id']}/actions",
                json={"version": view["version"], "action": {"type": "confirm"}},
            )
            codes.append(r.status_code)
        assert codes[:3] == [422, 422, 422] and codes[3] == 429  # a burst of 3 per address


def test_new_players_per_address_are_limited(database_url: str) -> None:
    """The default: 20 first visits at once from one address (240 before), then one a minute."""
    settings = Settings(database_url=database_url)
    with TestClient(create_app(settings)) as c:
        codes = []
        for _ in range(22):
            c.cookies.clear()
            codes.append(c.get("/api/players/me").status_code)
        assert codes[:20] == [200] * 20 and codes[20:] == [429, 429]


@pytest.mark.process
def test_the_seed_never_appears_before_the_game_ends(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    url = f"sqlite:///{tmp_path / 'g.db'}"
    seed = 987654321123
    with running_server(url, log=log) as base:
        import httpx2

        with httpx2.Client(base_url=base) as c:
            seen: list[str] = []
            r = c.post("/api/games", json={"difficulty": "peaceful", "seed": seed})
            seen += [r.text, str(r.headers)]
            view = r.json()
            assert view["dice"] == []  # nothing about the dice before ROLL
            view = play_turn(c, view)
            for response in (
                c.get(f"/api/games/{view['id']}"),
                c.get("/api/games/current"),
                c.get(f"/api/games/{view['id']}/replay"),
                c.post(
                    f"/api/games/{view['id']}/actions",
                    json={"version": 0, "action": {"type": "roll"}},
                ),
                c.post(
                    f"/api/games/{view['id']}/actions",
                    json={"version": view["version"], "action": {"type": "confirm"}},
                ),
                c.get("/openapi.json"),
            ):
                seen += [response.text, str(response.headers)]
    secret = seed.to_bytes(8, "big").hex()
    for text_ in [*seen, log.read_text()]:
        assert secret not in text_ and str(seed) not in text_


def test_high_scores_cannot_be_forged(client: TestClient) -> None:
    assert client.post("/api/highscores/peaceful", json={"score": 9999}).status_code == 405
    r = client.post("/api/games", json={"difficulty": "peaceful", "score": 9999})
    assert r.status_code == 422
    view = new_game(client, "peaceful", seed=1)
    for action in (
        {"type": "finish"},
        {"type": "roll", "score": 9999},
        {"type": "confirm", "phase": "over"},
    ):
        r = client.post(f"/api/games/{view['id']}/actions", json={"version": 0, "action": action})
        assert r.status_code == 422
    r = client.post(
        f"/api/games/{view['id']}/actions",
        json={"version": 0, "action": {"type": "roll"}, "score": 1},
    )
    assert r.status_code == 422
    assert client.get("/api/highscores/peaceful").json()["rows"] == []
    final = play_to_end(client, view)
    rows = client.get("/api/highscores/peaceful").json()["rows"]
    assert [r["score"] for r in rows] == [final["final_score"]["total"]]


def test_a_damaged_game_is_reported_alone(client: TestClient, settings: Settings) -> None:
    other = TestClient(client.app)
    healthy = act(other, new_game(other, "peaceful", seed=2), {"type": "roll"})
    damaged = act(client, new_game(client, "peaceful", seed=3), {"type": "roll"})
    engine = create_engine(settings.database_url)
    with engine.begin() as conn:  # a game from before snapshots, whose log is damaged
        conn.execute(
            text("UPDATE games SET state = NULL, version = version + 1 WHERE id = :id"),
            {"id": damaged["id"]},
        )
        conn.execute(
            text("UPDATE game_actions SET action = :a WHERE game_id = :id AND seq = 0"),
            {"a": json.dumps({"type": "confirm"}), "id": damaged["id"]},
        )
    engine.dispose()
    # a new server process on the same database (nothing cached) meets the damaged record
    with TestClient(create_app(settings), cookies=dict(client.cookies)) as fresh:
        r = fresh.get(f"/api/games/{damaged['id']}")
        assert r.status_code == 500 and r.json()["error"]["code"] == "game_unreadable"
        fresh.cookies = dict(other.cookies)
        assert fresh.get(f"/api/games/{healthy['id']}").json()["version"] == healthy["version"]
        action = (
            {"type": "accept_magdagdon", "cell": 0}
            if healthy["phase"] == "magdagdon"
            else {"type": "stage", "die": 0, "cell": healthy["dice"][0]["legal_cells"][0]}
        )
        if healthy["phase"] == "place" and not healthy["dice"][0]["legal_cells"]:
            action = {"type": "reroll", "dice": [0]}
        assert act(fresh, healthy, action)["version"] == healthy["version"] + 1
        assert fresh.get("/api/health").json() == {"status": "ok"}


@pytest.mark.parametrize(
    ("column", "value"),
    [("difficulty", "easy"), ("seed", "not-hex"), ("state", '{"not": "a snapshot"}')],
)
def test_an_unknown_stored_game_is_reported_alone(
    client: TestClient, settings: Settings, column: str, value: str
) -> None:
    view = act(client, new_game(client, "peaceful", seed=3), {"type": "roll"})
    engine = create_engine(settings.database_url)
    with engine.begin() as conn:
        conn.execute(
            text(f"UPDATE games SET {column} = :v, version = version + 1 WHERE id = :id"),
            {"v": value, "id": view["id"]},
        )
    engine.dispose()
    with TestClient(create_app(settings), cookies=dict(client.cookies)) as fresh:
        for r in (
            fresh.get(f"/api/games/{view['id']}"),
            fresh.get("/api/games/current"),
            fresh.post(
                f"/api/games/{view['id']}/actions",
                json={"version": view["version"] + 1, "action": {"type": "unstage_all"}},
            ),
        ):
            assert r.status_code == 500 and r.json()["error"]["code"] == "game_unreadable"
        assert fresh.get("/api/health").json() == {"status": "ok"}
        assert new_game(TestClient(fresh.app), "nightmare")["phase"] == "roll"  # others play on


def test_a_database_error_logs_no_seed(
    client: TestClient, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SQL of a failed statement is logged without its parameters (a new game's secret
    seed, a player's token hash)."""
    first = new_game(client, "peaceful", seed=77)
    other = TestClient(client.app)
    # the new game's id is one that is taken
    monkeypatch.setattr("magdagdon.store.games.secrets.token_hex", lambda n: first["id"])
    seed = (123_456_789).to_bytes(8, "big").hex()
    with caplog.at_level(logging.DEBUG):
        r = other.post("/api/games", json={"difficulty": "peaceful", "seed": 123_456_789})
    assert r.status_code == 500 and r.json()["error"]["code"] == "internal_error"
    logged = caplog.text
    assert "INSERT INTO games" in logged and "hidden" in logged  # the error was logged
    assert seed not in logged and "123456789" not in logged


def test_nul_characters_are_refused_everywhere_and_change_nothing(client: TestClient) -> None:
    """PostgreSQL refuses NUL in a string: each was a 500 that closed the connection."""
    client.get("/api/players/me")
    for method, url, body in (
        ("POST", "/api/challenges", {"game_id": "ab\x00cd"}),
        ("POST", "/api/leagues/join", {"invite": "ABCDE\x00FGHIJ"}),
        ("PUT", "/api/players/me", {"name": "Ann\x00"}),
        ("GET", "/api/players/me/games?before=ab%00cd", None),
        ("GET", "/api/highscores?difficulty=peaceful%00", None),
    ):
        r = client.request(method, url, json=body)
        assert r.status_code == 422, (url, r.status_code, r.text)
        assert r.json()["error"]["code"] == "invalid_request", url
    assert client.get("/api/players/me").json()["name"] is None
