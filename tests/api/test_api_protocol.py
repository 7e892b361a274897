"""HTTP itself: no cache keeps a player's answer, HEAD changes nothing and answers wherever GET
does, a request's headers are bounded, and forwarding headers are believed only from the
proxies the settings name."""

from __future__ import annotations

import contextlib
import re
import socket
from pathlib import Path

import httpx2
import pytest
from fastapi.testclient import TestClient

from magdagdon.web.deps import COOKIE
from magdagdon.web.protocol import MAX_HEAD_BYTES

from ..utils.api import new_game
from ..utils.server import server_process

DAY = "2026-03-14"


def _example_path(path: str) -> str:
    return re.sub(
        r"\{(\w+)\}",
        lambda m: {"difficulty": "peaceful", "date": DAY}.get(m.group(1), "x" * 12),
        path,
    )


def test_every_api_answer_is_kept_by_no_cache(client: TestClient) -> None:
    game = new_game(client, "peaceful")
    paths = client.get("/openapi.json").json()["paths"]
    assert len(paths) >= 14
    for path, methods in paths.items():
        assert path.startswith("/api/")
        for method in methods:
            url = _example_path(path).replace("x" * 12, game["id"])
            r = client.request(method, url, json={} if method in ("post", "put") else None)
            where = f"{method} {path} ({r.status_code})"
            assert r.headers.get("cache-control") == "no-store", where
            assert r.headers.get("vary") == "Cookie", where
    for url in ("/api/nothing", "/api/games/current?difficulty=nope"):  # errors too
        r = client.get(url)
        assert r.status_code in (404, 422) and r.headers["cache-control"] == "no-store"


def test_head_counts_no_hint_and_makes_no_player(client: TestClient) -> None:
    game = new_game(client, "peaceful")
    for _ in range(2):
        r = client.head(f"/api/games/{game['id']}/hint")
        assert r.status_code == 200 and r.content == b""
    assert client.get(f"/api/games/{game['id']}").json()["hints_used"] == 0
    assert client.get(f"/api/games/{game['id']}/hint").json()["hints_used"] == 1
    with TestClient(client.app) as stranger:
        for url in ("/api/players/me", "/api/games/current", "/api/players/me/stats"):
            r = stranger.head(url)
            assert r.status_code == 200 and "set-cookie" not in r.headers, url
        assert COOKIE not in stranger.cookies


def test_head_answers_wherever_get_does(client: TestClient) -> None:
    game = new_game(client, "peaceful")
    for url in (
        "/",
        "/docs",
        f"/replay/{game['id']}",
        "/js/app.js",
        "/openapi.json",
        "/api/health",
    ):
        got, head = client.get(url), client.head(url)
        assert head.status_code == got.status_code == 200, url
        assert head.content == b"" and head.headers["content-type"] == got.headers["content-type"]


def _raw(url: str, request: bytes) -> bytes:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        with contextlib.suppress(OSError):  # the server may close before all is sent
            s.sendall(request)
        chunks = []
        while True:
            try:
                chunk = s.recv(65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.process
def test_headers_are_bounded_by_the_server(tmp_path: Path) -> None:
    with server_process(f"sqlite:///{tmp_path / 'h.db'}") as server:
        big = b"x" * (5 * 1024 * 1024)
        answer = _raw(
            server.url, b"GET /api/health HTTP/1.1\r\nHost: a\r\nX-Big: " + big + b"\r\n\r\n"
        )
        assert answer.startswith(b"HTTP/1.1 431 "), answer[:80]
        assert b'"headers_too_large"' in answer
        many = b"".join(b"X-H%d: %s\r\n" % (i, b"y" * 100) for i in range(MAX_HEAD_BYTES // 100))
        answer = _raw(server.url, b"GET /api/health HTTP/1.1\r\nHost: a\r\n" + many + b"\r\n")
        assert answer.startswith(b"HTTP/1.1 431 ")
        # A request under the bound, and the next one on the same connection, are served.
        fine = b"GET /api/health HTTP/1.1\r\nHost: a\r\nX-Ok: " + b"z" * 20_000 + b"\r\n\r\n"
        close = b"GET /api/health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
        answer = _raw(server.url, fine + close)
        assert answer.count(b"HTTP/1.1 200 ") == 2
        assert httpx2.get(f"{server.url}/api/health").status_code == 200
        # A large body sent with its headers, in one write, is a large body, not large headers.
        body = b'{"name": "' + b"n" * (40 * 1024) + b'"}'
        head = (
            b"POST /api/players/me/name HTTP/1.1\r\nHost: a\r\nContent-Type: application/json"
            b"\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(body)
        )
        answer = _raw(server.url, head + body)
        assert answer.startswith(b"HTTP/1.1 413 "), answer[:80]
        assert b'"body_too_large"' in answer


def _address_in_log(log: Path, rid: str) -> str:
    (line,) = [line for line in log.read_text().splitlines() if f"[{rid}]" in line]
    found = re.search(r"access: (\S+) ", line)
    assert found, line
    return found.group(1)


@pytest.mark.process
def test_forwarding_headers_are_believed_only_from_trusted_proxies(tmp_path: Path) -> None:
    forged = {"X-Forwarded-For": "198.51.100.9", "X-Forwarded-Proto": "https"}
    log = tmp_path / "plain.log"
    with server_process(f"sqlite:///{tmp_path / 'p.db'}", log=log, log_level="info") as server:
        r = httpx2.get(f"{server.url}/api/players/me", headers={**forged, "X-Request-ID": "a1"})
        assert "secure" not in r.headers["set-cookie"].lower()
    assert _address_in_log(log, "a1").startswith("127.0.0.1")
    log = tmp_path / "proxied.log"
    env = {"MAGDAGDON_TRUSTED_PROXIES": "127.0.0.1"}
    with server_process(
        f"sqlite:///{tmp_path / 'q.db'}", log=log, log_level="info", env=env
    ) as server:
        r = httpx2.get(f"{server.url}/api/players/me", headers={**forged, "X-Request-ID": "b2"})
        assert "secure" in r.headers["set-cookie"].lower()
    assert _address_in_log(log, "b2") == "198.51.100.9"
