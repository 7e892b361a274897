"""Live rooms under faults (issue 46), on a real server process: a client that never reads its
live connection is dropped once what waits for it is bounded, and the server's memory does
not grow with it.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import time
from pathlib import Path

import httpx2
import pytest

from magdagdon.web.live import SEND_TIMEOUT

from ..utils.api import ViewPlayer
from ..utils.server import server_process

pytestmark = pytest.mark.slow  # a real server process, a connection left unread


def _frame(text: str) -> bytes:
    """A client's (masked) WebSocket text frame of a short ``text``."""
    payload, mask = text.encode(), os.urandom(4)
    assert len(payload) < 126
    return (
        bytes([0x81, 0x80 | len(payload)])
        + mask
        + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    )


def _silent(url: str, path: str, cookie: str) -> socket.socket:
    """A live connection opened by hand, with a small receive buffer, whose events are never
    read (only the answer's head is)."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(10)
    sock.connect((host, int(port)))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        f"Cookie: {cookie}\r\n\r\n".encode()
    )
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        head += sock.recv(1)  # a byte at a time: nothing after the head is read
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def _rss(pid: int) -> int:
    """A process's resident memory in kB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_a_client_that_never_reads_is_dropped_and_memory_stays_flat(tmp_path: Path) -> None:
    """A member's connection asks again and again for every event of a finished room (each
    answer the room's whole history) and reads nothing: the server's sends wait, and past
    SEND_TIMEOUT the connection is closed; its memory has not grown with what was asked, and
    the room answers others all the while. (Before, the connection's close waited for the
    unsent data to go, and the connection stayed for as long as the client did.)"""
    with (
        server_process(f"sqlite:///{tmp_path}/rooms.db") as server,
        httpx2.Client(base_url=server.url, timeout=30) as client,
    ):
        assert client.put("/api/players/me", json={"name": "Ann"}).status_code == 200
        room = {"difficulty": "nightmare", "clock": None, "seed": 2}  # (the same history each run)
        made = client.post("/api/rooms", json=room)
        code = made.json()["code"]
        assert client.post(f"/api/rooms/{code}/start").status_code == 200
        game_id = client.get(f"/api/rooms/{code}").json()["game_id"]
        view, bot = client.get(f"/api/games/{game_id}").json(), ViewPlayer()
        while view["phase"] != "over":  # a whole game: the room's history to send again
            body = {"version": view["version"], "action": bot.next_action(view)}
            view = client.post(f"/api/games/{game_id}/actions", json=body).json()
        history = client.get(f"/api/rooms/{code}/events").json()
        assert history[-1]["type"] == "room_over"
        size = sum(len(json.dumps(e)) for e in history)
        cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
        before = _rss(server.process.pid)
        sock = _silent(server.url, f"/api/rooms/{code}/live", cookie)
        ask, asked, started, dropped = _frame('{"since": 0}'), 0, time.monotonic(), False
        while time.monotonic() - started < SEND_TIMEOUT + 60:
            try:
                sock.sendall(ask)
            except (ConnectionResetError, BrokenPipeError):  # the server cut it
                dropped = True
                break
            asked += 1
            if asked % 50 == 0:
                assert client.get(f"/api/rooms/{code}").status_code == 200  # others served
            time.sleep(0.002)
        took = time.monotonic() - started
        sock.close()
        after = _rss(server.process.pid)
    assert dropped, f"still open after {took:.0f} s and {asked} asks"
    # each ask was the whole history again (megabytes asked for): the memory stayed
    print(f"cut after {took:.1f} s, {asked} asks of {size} bytes; memory {before} -> {after} kB")
    assert after - before < 8_000, (before, after, asked, size)  # kB
