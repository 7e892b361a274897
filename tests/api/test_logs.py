"""Log lines a person can use: a timestamp, a request id, the real client address behind a
proxy, and never a cookie, a seed or a password."""

from __future__ import annotations

import logging
import re
import secrets
from datetime import datetime
from pathlib import Path

import httpx2
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import make_url

from magdagdon.logs import AccessFormatter, Formatter, log_config
from magdagdon.web.deps import COOKIE

from ..utils.api import new_game, play_to_end
from ..utils.server import running_server

LINE = re.compile(
    r"(?P<time>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d) "
    r"(?P<level>[A-Z]+) \[(?P<request_id>[^\]]+)\] (?P<name>[\w.]+): (?P<message>.*)"
)


def test_every_answer_names_its_request(client: TestClient) -> None:
    first = client.get("/api/health").headers["x-request-id"]
    second = client.get("/api/nothing-here").headers["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{16}", first) and re.fullmatch(r"[0-9a-f]{16}", second)
    assert first != second


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("req-42.a_B", True),
        ("x" * 64, True),
        ("x" * 65, False),
        ("two words", False),
        ("forged] INFO [other", False),
        ("", False),
    ],
)
def test_a_proxys_request_id_is_kept_when_it_is_plain(
    client: TestClient, given: str, kept: bool
) -> None:
    answered = client.get("/api/health", headers={"X-Request-ID": given}).headers["x-request-id"]
    assert (answered == given) is kept
    assert re.fullmatch(r"[A-Za-z0-9._-]{1,64}", answered)


def test_access_lines_show_the_address_without_a_port() -> None:
    formatter = AccessFormatter("%(message)s")

    def line(client: str) -> str:
        args = (client, "GET", "/api/health", "1.1", 200)
        record = logging.LogRecord(
            "uvicorn.access", 20, "", 0, '%s - "%s %s HTTP/%s" %d', args, None
        )
        return formatter.format(record)

    assert line("203.0.113.7:0") == '203.0.113.7 "GET /api/health HTTP/1.1" 200'
    assert line("2001:db8::1:0") == '2001:db8::1 "GET /api/health HTTP/1.1" 200'
    assert line("127.0.0.1:51234") == '127.0.0.1 "GET /api/health HTTP/1.1" 200'


def test_timestamps_are_iso_8601_with_the_offset() -> None:
    record = logging.LogRecord("magdagdon", 20, "", 0, "hello", None, None)
    stamp = Formatter().formatTime(record)
    assert datetime.fromisoformat(stamp).timestamp() == pytest.approx(record.created, abs=0.001)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d", stamp)


def test_the_level_is_set_everywhere() -> None:
    config = log_config("warning")
    assert config["loggers"]["magdagdon"]["level"] == "WARNING"
    assert config["loggers"]["uvicorn.access"]["level"] == "WARNING"


@pytest.mark.process
def test_a_servers_lines_are_usable_and_keep_secrets(tmp_path: Path, database_url: str) -> None:
    log = tmp_path / "server.log"
    password = "pw-" + secrets.token_hex(8)  # PostgreSQL here trusts the address: any will do
    if database_url.startswith("postgresql"):
        url = make_url(database_url).set(password=password).render_as_string(hide_password=False)
    else:
        url = database_url
    seed = secrets.randbits(53)  # a test seed is at most 2^53 - 1
    with (
        running_server(
            url,
            workers=2,
            log=log,
            log_level="info",
            env={"MAGDAGDON_TRUSTED_PROXIES": "127.0.0.1"},  # a proxy on this host
        ) as base,
        httpx2.Client(base_url=base) as client,
    ):
        view = new_game(client, "peaceful", seed=seed)
        final = play_to_end(client, view)
        replay = client.get(f"/api/games/{view['id']}/replay")
        assert replay.json()["seed"] == seed.to_bytes(8, "big").hex()
        cookie = client.cookies[COOKIE]
        behind_proxy = httpx2.get(
            f"{base}/api/highscores/peaceful",
            headers={"X-Forwarded-For": "198.51.100.23", "X-Request-ID": "from-the-proxy-1"},
        )
        assert behind_proxy.headers["x-request-id"] == "from-the-proxy-1"
        answered_ids = {behind_proxy.headers["x-request-id"]}
        answered_ids.add(client.get("/api/health").headers["x-request-id"])
    text = log.read_text()
    lines = text.splitlines()
    assert final["phase"] == "over" and lines
    for line in lines:
        assert LINE.fullmatch(line), line
    access = [m for m in map(LINE.fullmatch, lines) if m and m["name"] == "access"]
    assert len(access) >= final["version"]  # every action, and more
    assert all(m["request_id"] != "-" for m in access)
    assert answered_ids <= {m["request_id"] for m in access}
    proxied = [m["message"] for m in access if m["request_id"] == "from-the-proxy-1"]
    assert proxied == ['198.51.100.23 "GET /api/highscores/peaceful HTTP/1.1" 200']
    assert ":0 " not in text
    assert cookie and cookie not in text
    assert replay.json()["seed"] not in text and str(seed) not in text
    assert password not in text
    assert any("database at revision" in line for line in lines)
