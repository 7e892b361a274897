"""The real server process: restart and continue, and two actions racing on one version."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest

from ..utils.api import act, finish_turn, new_game, play_to_end, play_turn
from ..utils.server import free_port, running_server, server_process

pytestmark = pytest.mark.slow  # real server processes


def test_restart_continues_the_same_game(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'game.db'}"
    with running_server(url) as base, httpx2.Client(base_url=base) as client:
        view = new_game(client, "peaceful", seed=31)
        view = play_turn(client, view)
        view = play_turn(client, view)
        view = act(client, view, {"type": "roll"})
        cookies = dict(client.cookies)
    with running_server(url) as base, httpx2.Client(base_url=base, cookies=cookies) as client:
        resumed = client.get("/api/games/current").json()
        assert resumed == view
        final = play_to_end(client, resumed)
        assert final["phase"] == "over"
        assert (
            client.get("/api/highscores/peaceful?scope=me").json()["rows"][0]["score"]
            == (final["final_score"]["total"])
        )


def test_serve_creates_the_database_file_where_told(tmp_path: Path) -> None:
    target = tmp_path / "nested" / "dir" / "magdagdon.db"
    with running_server(f"sqlite:///{target}") as base:
        assert httpx2.get(f"{base}/api/ready").json() == {"status": "ok"}
    assert target.exists()


def race(client: httpx2.Client, view: dict[str, Any], actions: list[dict[str, Any]]) -> list[int]:
    """Send the actions at once, all based on the same version; the status codes."""
    barrier = threading.Barrier(len(actions))
    codes: list[int] = []

    def send(action: dict[str, Any]) -> None:
        barrier.wait()
        r = client.post(
            f"/api/games/{view['id']}/actions", json={"version": view["version"], "action": action}
        )
        codes.append(r.status_code)

    threads = [threading.Thread(target=send, args=(a,)) for a in actions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sorted(codes)


@pytest.mark.parametrize("workers", [1, 2])
def test_two_actions_on_one_version_exactly_one_applies(database_url: str, workers: int) -> None:
    with (
        running_server(database_url, workers=workers) as base,
        httpx2.Client(base_url=base) as client,
    ):
        view = new_game(client, "peaceful", seed=4)
        while view["phase"] != "over":
            assert race(client, view, [{"type": "roll"}, {"type": "roll"}]) == [200, 409]
            view = client.get(f"/api/games/{view['id']}").json()
            log = client.get(f"/api/games/{view['id']}").json()
            assert log["version"] == view["version"]
            if view["phase"] == "magdagdon":
                view = act(
                    client, view, {"type": "accept_magdagdon", "cell": view["ruin_choices"][0]}
                )
                continue
            # two different stagings of one die at once: one wins, the other is stale
            die = view["dice"][0]
            cells = die["legal_cells"][:2]
            if len(cells) == 2:
                codes = race(
                    client,
                    view,
                    [
                        {"type": "stage", "die": 0, "cell": cells[0]},
                        {"type": "stage", "die": 0, "cell": cells[1]},
                    ],
                )
                assert codes == [200, 409]
                view = client.get(f"/api/games/{view['id']}").json()
                assert (
                    view["version"] >= 2 and sum(d["cell"] is not None for d in view["dice"]) == 1
                )
                view = act(client, view, {"type": "unstage_all"})
            view = finish_turn(client, view)


def _children(pid: int) -> list[int]:
    """The pids of a process's children (Linux: /proc)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        found += [int(p) for p in (task / "children").read_text().split()]
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead but for its parent's wait: init reaps orphans soon enough.
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().rpartition(")")[2].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
def test_workers_exit_when_the_main_process_is_killed(tmp_path: Path) -> None:
    port = free_port()
    with server_process(f"sqlite:///{tmp_path / 'w.db'}", port=port, workers=2) as server:
        workers = [
            pid
            for pid in _children(server.process.pid)
            if "resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_text()
        ]
        assert len(workers) == 2
        try:
            server.kill()  # SIGKILL: the supervisor cannot stop its workers
            deadline = time.monotonic() + 5
            while any(map(_alive, workers)):
                assert time.monotonic() < deadline, "orphaned workers still run after 5 s"
                time.sleep(0.1)
            with socket.socket() as s:  # the port is free for the next `serve` (as it binds)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(("127.0.0.1", port))
        finally:
            for pid in workers:
                if _alive(pid):
                    os.kill(pid, signal.SIGKILL)


def test_serve_prints_its_address_once_it_answers(tmp_path: Path) -> None:
    """The address is printed when it can be opened at once (it was printed about 1.5 s
    before the port accepted connections)."""
    import subprocess
    import sys

    port = free_port()
    env = {**os.environ, "MAGDAGDON_DATABASE_URL": f"sqlite:///{tmp_path / 'a.db'}"}
    process = subprocess.Popen(
        [sys.executable, "-m", "magdagdon.cli", "serve", "--port", str(port), "--workers", "2"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        lines = []
        for line in process.stdout:
            lines.append(line)
            if "is served at" in line:
                break
        assert f"is served at http://localhost:{port}/" in lines[-1], lines  # passkeys work there
        # one address, the one that works: not Uvicorn's 127.0.0.1 too
        assert not any("Uvicorn running on" in line for line in lines), lines
        assert httpx2.get(f"http://127.0.0.1:{port}/api/health", timeout=5).status_code == 200
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=15)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
def test_the_coach_processes_end_with_their_server(tmp_path: Path) -> None:
    with (
        server_process(f"sqlite:///{tmp_path / 'c.db'}") as server,
        httpx2.Client(base_url=server.url, timeout=30) as client,
    ):
        view = act(client, new_game(client, "peaceful", seed=3), {"type": "roll"})
        assert client.get(f"/api/games/{view['id']}/hint").status_code == 200
        # the coach's processes are its fork server's children (web/coach_pool.py)
        (fork_server,) = [
            pid
            for pid in _children(server.process.pid)
            if "forkserver" in Path(f"/proc/{pid}/cmdline").read_text()
        ]
        coaches = _children(fork_server)
        assert len(coaches) == 1  # the hint was computed in a process of its own
        try:
            server.kill()
            deadline = time.monotonic() + 5
            while any(map(_alive, [fork_server, *coaches])):
                assert time.monotonic() < deadline, "the coach's process outlived its server"
                time.sleep(0.1)
        finally:
            for pid in [fork_server, *coaches]:
                if _alive(pid):
                    os.kill(pid, signal.SIGKILL)
