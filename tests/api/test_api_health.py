"""Health, readiness, the OpenAPI document and the page at /."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from magdagdon.ai import model, values
from magdagdon.settings import Settings
from magdagdon.web.app import create_app


def test_health_and_ready(client: TestClient) -> None:
    assert client.get("/api/health").json() == {"status": "ok"}
    assert client.get("/api/ready").json() == {"status": "ok"}


def test_ready_is_503_when_the_database_does_not_answer() -> None:
    settings = Settings(database_url="postgresql+psycopg://nobody@127.0.0.1:1/none")
    with TestClient(create_app(settings, migrate=False)) as c:
        assert c.get("/api/health").status_code == 200
        r = c.get("/api/ready")
        assert r.status_code == 503 and r.json() == {"status": "unavailable"}
        r = c.post("/api/games", json={"difficulty": "peaceful"})
        assert r.status_code == 503 and r.json()["error"]["code"] == "database_unavailable"


def test_ready_is_503_when_the_strong_players_weights_cannot_load(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # As in an install whose package data left the weights file out.
    monkeypatch.setattr(model, "WEIGHTS_FILE", "no-such-weights.json")
    model.shipped_model.cache_clear()
    try:
        r = client.get("/api/ready")
        assert r.status_code == 503 and r.json() == {"status": "unavailable"}
        assert "no-such-weights.json" in caplog.text
    finally:
        monkeypatch.undo()
        model.shipped_model.cache_clear()
    assert client.get("/api/ready").json() == {"status": "ok"}


def test_ready_is_503_when_a_network_of_the_coach_cannot_load(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    networks = [d for d, name in values.coach_table().items() if name != values.LINEAR]
    if not networks:
        pytest.skip("the coach plays with no network")
    # As in an install whose package data left a network out.
    table = {**values.coach_table(), networks[0]: "no-such-network.nt"}
    monkeypatch.setattr(values, "coach_table", lambda: table)
    r = client.get("/api/ready")
    assert r.status_code == 503 and r.json() == {"status": "unavailable"}
    assert "no-such-network.nt" in caplog.text
    monkeypatch.undo()
    assert client.get("/api/ready").json() == {"status": "ok"}


def test_openapi_describes_every_model(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    paths = spec["paths"]
    for path in (
        "/api/games",
        "/api/games/current",
        "/api/games/{game_id}",
        "/api/games/{game_id}/actions",
        "/api/games/{game_id}/replay",
        "/api/highscores/{difficulty}",
        "/api/players/me",
        "/api/health",
        "/api/ready",
    ):
        assert path in paths, path
    schemas = spec["components"]["schemas"]
    for name in (
        "GameView",
        "DieView",
        "ScoreView",
        "ActionRequest",
        "HighScoreTable",
        "ErrorResponse",
    ):
        assert schemas[name].get("description"), name
    assert client.get("/docs").status_code == 200


def test_every_app_of_a_process_has_the_same_api_routes(settings: Settings) -> None:
    """The API's routes are made once a process (``api_routes``: FastAPI made an included
    router's routes anew for each app, a quarter of the in-process API tests' CPU), and the
    OpenAPI document is still every route's, the player's errors and the common answers
    included."""
    first, second = create_app(settings), create_app(settings)
    shared = [r for r in first.router.routes if any(r is s for s in second.router.routes)]
    assert len(shared) >= 13  # one a router (as FastAPI includes one) or one a route
    spec = first.openapi()
    daily = spec["paths"]["/api/daily/{difficulty}"]["post"]["responses"]
    assert {"403", "413", "422", "429", "500", "503"} <= daily.keys()
    assert spec == second.openapi()


def test_root_serves_a_page(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200 and "MAGDAGDON" in r.text


def test_head_and_the_allow_header_as_http_says(client: TestClient) -> None:
    """Load balancers probe with HEAD; a wrong method's 405 names the path's methods."""
    for url in ("/api/health", "/api/ready", "/api/highscores/peaceful"):
        r = client.head(url)
        assert r.status_code == 200 and r.content == b""
        assert int(r.headers["content-length"]) == len(client.get(url).content)
    for method, url, allow in [
        ("DELETE", "/api/health", "GET, HEAD"),
        ("PUT", "/api/games", "POST"),
        ("GET", "/api/games/abc/actions", "POST"),
        ("POST", "/api/players/me", "GET, HEAD, PUT, DELETE"),
        ("POST", "/api/highscores/peaceful", "GET, HEAD"),
    ]:
        r = client.request(method, url)
        assert r.status_code == 405 and r.headers["allow"] == allow, (method, url)
        assert r.json()["error"]["code"] == "method_not_allowed"
