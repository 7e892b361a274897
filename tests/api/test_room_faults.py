"""Live rooms under faults (issue 46), on real server processes: a client that never reads its
live connection is cut once what waits for it is bounded, and the server's memory does not grow
with it; a worker killed in the middle of a turn loses nothing (its members follow the room on
the other from the last event they saw) and the turn's clock still closes the turn.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest

from magdagdon.web.live import SEND_TIMEOUT

from ..utils.api import ViewPlayer, next_event
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


NOW = "2031-03-14T12:00:00"
"""The servers' moment for these requests (``X-Magdagdon-Test-Now``): in the future, so that
no server's clock watcher, which reads the real time, closes a turn on its own."""


def test_a_worker_killed_mid_turn_loses_nothing_and_the_clock_still_closes_the_turn(
    database_url: str,
) -> None:
    """Two workers on one database. Ann ends turn 1 on the first, whose live connection Ben
    follows; the first is killed (SIGKILL) before Ben ends it. Ben follows the room on the
    second from the last event he saw (nothing missed, nothing twice), ends the turn there and
    it closes; the next turn, which nobody ends, closes at its deadline on the second (the
    coach ends it for both)."""
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    header = {"X-Magdagdon-Test-Now": f"{NOW}Z"}
    with (
        server_process(database_url) as first,
        server_process(database_url) as second,
        httpx2.Client(timeout=30, headers=header) as ann,
        httpx2.Client(timeout=30, headers=header) as ben,
    ):
        for client, name in ((ann, "Ann"), (ben, "Ben")):
            assert client.put(f"{first.url}/api/players/me", json={"name": name}).status_code == 200
        room = {"difficulty": "survival", "clock": 30, "seed": 3}
        code = ann.post(f"{first.url}/api/rooms", json=room).json()["code"]
        assert ben.post(f"{first.url}/api/rooms/{code}/members").status_code == 201
        cookie = "; ".join(f"{k}={v}" for k, v in ben.cookies.items())

        def live(server: str, since: int = 0) -> Any:
            url = server.replace("http://", "ws://") + f"/api/rooms/{code}/live?since={since}"
            return connect(url, additional_headers={"cookie": cookie, **header}, open_timeout=10)

        seen: list[int] = []
        with live(first.url) as followed:
            state = ann.post(f"{first.url}/api/rooms/{code}/start").json()
            assert state["deadline"] == "2031-03-14T12:00:30Z"
            game_id = ann.get(f"{first.url}/api/rooms/{code}").json()["game_id"]
            view, bot = ann.get(f"{first.url}/api/games/{game_id}").json(), ViewPlayer()
            while view["turns"] == 0:
                body = {"version": view["version"], "action": bot.next_action(view)}
                view = ann.post(f"{first.url}/api/games/{game_id}/actions", json=body).json()
            seen.append(next_event(followed, "member_done", turn=1)["seq"])
            first.kill()
            with pytest.raises((ConnectionClosed, TimeoutError)):  # the worker is gone
                while True:
                    seen.append(json.loads(followed.recv(timeout=10))["seq"])
        # Ben, on the second worker: the room from the last event he saw, then his turn
        with live(second.url, since=max(seen)) as followed:
            game_id = ben.get(f"{second.url}/api/rooms/{code}").json()["game_id"]
            view, bot = ben.get(f"{second.url}/api/games/{game_id}").json(), ViewPlayer()
            assert view["phase"] != "roll" and view["turns"] == 0  # rolled by the room
            while view["turns"] == 0:
                body = {"version": view["version"], "action": bot.next_action(view)}
                view = ben.post(f"{second.url}/api/games/{game_id}/actions", json=body).json()
            closed = next_event(followed, "turn_closed", turn=1)
            assert closed["seq"] == max(seen) + 2  # (his member_done, then the close)
            assert [b["coached"] for b in closed["body"]["boards"]] == [False, False]
            opened = next_event(followed, "turn_opened", turn=2)
            # (opened at Ben's moment, the clock's 30 s from there)
            assert opened["body"]["deadline"] == "2031-03-14T12:00:30+00:00"
            # nobody ends turn 2: at its deadline the second worker closes it, the coach's
            late = {"X-Magdagdon-Test-Now": "2031-03-14T12:00:30Z"}
            state = ben.get(f"{second.url}/api/rooms/{code}", headers=late).json()
            assert state["turn"] == 3
            closed = next_event(followed, "turn_closed", turn=2)
            assert [b["coached"] for b in closed["body"]["boards"]] == [True, True]
