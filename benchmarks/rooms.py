"""Live rooms at scale (issue 46): many rooms of several players at once on two workers with
PostgreSQL and Redis; how long a turn's closing takes to reach every member's live connection.

Run: ``python -m benchmarks.rooms [--rooms 200] [--players 6] [--seconds 600]`` from the
repository root, with ``MAGDAGDON_TEST_DATABASE_URL`` naming a PostgreSQL server (a temporary
database is made there) and ``redis-server`` installed (one of the benchmark's own is started).
It starts ``magdagdon serve --workers 2`` on them, then ``--rooms`` rooms of ``--players``
players play at once: each player has its own cookie and its own live connection
(``/api/rooms/{code}/live``) and plays each turn through the JSON API when the room opens it,
after a pause between ``--think LOW HIGH`` seconds (default none) and as a person does: the
game read again, then a plan of the position in a few actions (:func:`planned`); the clock
(120 s) never runs out. A room over is made again by its maker with the same players, until
``--seconds`` have passed (the rooms then still being played are left there). The load
generator (one process) shares the machine's two cores with the workers, PostgreSQL and
Redis.

It prints, for the ``turn_closed`` events: how many reached their members, p50, p99 and the
worst of the time from the event's moment (written by the worker that closed the turn) to its
arrival at each member's connection; events lost or received twice (each connection's
``seq`` must go up by one); and the workers' memory (RSS) every minute. Prints figures;
asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.cookiejar as http_cookiejar
import json
import os
import random
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx2
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from magdagdon.engine import Game
from tests.utils.api import ViewPlayer
from tests.utils.hosts import RedisServer
from tests.utils.pg import temporary_database
from tests.utils.server import server_process


@dataclass
class Figures:
    """What the members' connections saw."""

    delays: list[float] = field(default_factory=list)
    """ms from a turn_closed event's moment to its arrival, one per member and event"""
    lost: int = 0
    twice: int = 0
    rooms: int = 0
    turns: int = 0
    errors: dict[str, int] = field(default_factory=dict)

    def error(self, what: str) -> None:
        """Count a failure of kind ``what``."""
        self.errors[what] = self.errors.get(what, 0) + 1


def planned(view: dict[str, Any], rng: random.Random) -> list[dict[str, Any]] | None:
    """A person's turn at a glance: one of the ways to place the most dice the view's
    position allows (the engine's plans of it; no power), or None where the tests' bot is
    left to it (MAGDAGDON, or some of the turn played already)."""
    if view["phase"] != "place" or view["staged"]:
        return None
    dice = [d["value"] for d in sorted(view["dice"], key=lambda d: d["index"])]
    game = Game.from_position(
        view["difficulty"], view["board"], dice, powers_used=view["powers_used"], turns=0
    )
    plans = game.turn_plans()
    if not plans:
        return None
    most = max(len(plan) for plan in plans)
    return [dict(action) for action in rng.choice([p for p in plans if len(p) == most])]


class Member:
    """One player: a cookie, a live connection to the room it is in, its game played."""

    def __init__(
        self,
        http: httpx2.AsyncClient,
        base: str,
        name: str,
        figures: Figures,
        think: tuple[float, float] = (0.0, 0.0),
    ) -> None:
        self.http, self.base, self.name, self.figures = http, base, name, figures
        self.cookie = ""
        self.think = think
        self.random = random.Random(name)  # (the same pauses each run)
        self.games: dict[str, str] = {}
        """The member's game in each room (read once, as the page does)."""

    async def call(self, method: str, path: str, body: Any = None) -> Any:
        """A request with this player's cookie; its JSON (a failure raises; an action on a
        game the room has moved on answers the game as it stands, as the page takes it)."""
        headers = {"cookie": self.cookie} if self.cookie else {}
        for attempt in range(10):  # a connection closed, a 503: again, as the page does
            try:
                r = await self.http.request(method, self.base + path, json=body, headers=headers)
            except httpx2.TransportError:
                if attempt == 9:
                    raise
                await asyncio.sleep(0.5)
                continue
            if r.status_code != 503 or attempt == 9:
                break
            self.figures.error("503, asked again")
            await asyncio.sleep(float(r.headers.get("retry-after", "1")))
        if "set-cookie" in r.headers:
            self.cookie = r.headers["set-cookie"].split(";", 1)[0]
        if r.status_code == 409 and r.json()["error"]["code"] == "stale_version":
            self.figures.error("409 stale_version")
            return r.json()["game"]
        if r.status_code >= 400:
            raise RuntimeError(f"{method} {path}: {r.status_code} {r.text[:200]}")
        return r.json()

    async def play_turn(self, code: str) -> None:
        """End the room's open turn on this player's board (nothing if its game is over),
        after a pause for thought (``--think``): the game read again, as the page does when
        a turn opens, then each action."""
        low, high = self.think
        if high > 0:
            await asyncio.sleep(self.random.uniform(low, high))
        game_id = self.games.get(code)
        if game_id is None:
            game_id = self.games[code] = (await self.call("GET", f"/api/rooms/{code}"))["game_id"]
        view = await self.call("GET", f"/api/games/{game_id}")
        bot, turns = ViewPlayer(), view["turns"]
        while view["phase"] not in ("over", "roll") and view["turns"] == turns:
            # a person's turn: the few actions of a plan (the tests' bot, which feels its way
            # through the view one action at a time, only where no plan fits)
            for action in planned(view, self.random) or [bot.next_action(view)]:
                body = {"version": view["version"], "action": action}
                view = await self.call("POST", f"/api/games/{game_id}/actions", body)

    def played(self, task: asyncio.Task[None]) -> None:
        """A turn's play ended: a failure counted (the clock plays the turn then)."""
        if not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            self.figures.error(type(exc).__name__ + ": " + str(exc).split(":", 2)[-1][:60])

    async def follow(self, code: str, figures: Figures, ready: asyncio.Event) -> None:
        """Follow the room live until it is over, connecting again from the last event seen
        when the server closes the connection (as the page does): every event's seq one more
        than the last; each turn opened played, each turn closed timed."""
        base = self.base.replace("http://", "ws://") + f"/api/rooms/{code}/live"
        last = 0
        playing: set[asyncio.Task[None]] = set()  # (the connection is read meanwhile)
        while True:
            try:
                async with connect(
                    f"{base}?since={last}", additional_headers={"cookie": self.cookie}
                ) as live:
                    ready.set()
                    async for message in live:
                        arrived = time.time()
                        event = json.loads(message)
                        seq = event["seq"]
                        if seq <= last:
                            figures.twice += 1
                            continue
                        figures.lost += seq - last - 1
                        last = seq
                        kind = event["type"]
                        if kind == "turn_closed":
                            moment = datetime.fromisoformat(event["at"]).timestamp()
                            figures.delays.append((arrived - moment) * 1000)
                        elif kind == "turn_opened":
                            task = asyncio.create_task(self.play_turn(code))
                            playing.add(task)
                            task.add_done_callback(playing.discard)
                            task.add_done_callback(self.played)
                        elif kind == "room_over":
                            return
            except (ConnectionClosed, InvalidHandshake, OSError) as exc:
                figures.error(f"reconnected after {type(exc).__name__}")
                await asyncio.sleep(0.5)


async def room_round(members: list[Member], figures: Figures, difficulty: str) -> None:
    """One room of ``members`` from its making to its end (the first member makes it)."""
    maker, *others = members
    made = await maker.call("POST", "/api/rooms", {"difficulty": difficulty, "clock": 120})
    code = made["code"]
    for member in others:
        await member.call("POST", f"/api/rooms/{code}/members")
    readies = [asyncio.Event() for _ in members]
    follows = [
        asyncio.create_task(m.follow(code, figures, r))
        for m, r in zip(members, readies, strict=True)
    ]
    await asyncio.gather(*(r.wait() for r in readies))
    await maker.call("POST", f"/api/rooms/{code}/start")
    try:
        await asyncio.gather(*follows)
    finally:
        for follow in follows:
            follow.cancel()
    figures.rooms += 1
    figures.turns += (await maker.call("GET", f"/api/rooms/{code}"))["turn"]


async def room_loop(members: list[Member], figures: Figures, until: float, n: int) -> None:
    """Rooms of ``members`` one after the other until ``until`` (a failure counted, then on)."""
    for member in members:
        await member.call("PUT", "/api/players/me", {"name": member.name})
    difficulty = ("peaceful", "survival", "nightmare")[n % 3]
    while time.monotonic() < until:
        try:
            await room_round(members, figures, difficulty)
        except Exception as exc:  # counted; the room starts again
            figures.error(type(exc).__name__ + ": " + str(exc).split(":", 2)[-1][:60])
            await asyncio.sleep(1)


def rss_mb(pids: list[int]) -> float:
    """The processes' resident memory together, in MB."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total / 1024


def workers_of(pid: int) -> list[int]:
    """The server process and its worker processes."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    return [pid, *(int(c) for c in children.read_text().split())] if children.exists() else [pid]


async def run(
    base: str, pid: int, rooms: int, players: int, seconds: float, think: tuple[float, float]
) -> Figures:
    """The rooms, and a line of memory every minute."""
    figures = Figures()
    limits = httpx2.Limits(
        max_connections=rooms * players, max_keepalive_connections=rooms * players
    )
    async with httpx2.AsyncClient(timeout=60, limits=limits) as http:
        # each player sends its own cookie: the shared client must keep none of its own (it
        # would send the first player's to every player that has none yet: one player)
        http.cookies.jar.set_policy(http_cookiejar.DefaultCookiePolicy(allowed_domains=()))
        until = time.monotonic() + seconds
        teams = [
            [Member(http, base, f"P{r}-{p}", figures, think) for p in range(players)]
            for r in range(rooms)
        ]
        loops = [asyncio.create_task(room_loop(t, figures, until, n)) for n, t in enumerate(teams)]
        start = time.monotonic()
        while time.monotonic() < until:  # (rooms still being played then are left there)
            await asyncio.sleep(min(60.0, max(0.0, until - time.monotonic())))
            memory = rss_mb(workers_of(pid))
            print(
                f"  {time.monotonic() - start:5.0f} s: workers {memory:6.1f} MB, "
                f"{figures.rooms} rooms over, {len(figures.delays)} closings heard",
                flush=True,
            )
        for loop in loops:
            loop.cancel()
        await asyncio.gather(*loops, return_exceptions=True)
    return figures


def main() -> None:
    """Parse the arguments, start the workers, run the rooms, print the figures."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    default = os.environ.get("MAGDAGDON_TEST_DATABASE_URL")
    parser.add_argument("--database-url", default=default, required=default is None)
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=(0.0, 0.0),
        metavar=("LOW", "HIGH"),
        help="each player's pause before playing a turn: between LOW and HIGH seconds "
        "(default: none, every player plays the moment its turn opens)",
    )
    args = parser.parse_args()
    if not shutil.which("redis-server"):
        sys.exit("redis-server is not installed")
    with (
        tempfile.TemporaryDirectory() as logs,
        temporary_database(args.database_url, prefix="magdagdon_rooms") as database_url,
    ):
        redis = RedisServer(Path(logs))
        redis.start()
        try:
            env = {"MAGDAGDON_REDIS_URL": redis.url("127.0.0.1")}
            with server_process(
                database_url, workers=2, env=env, log=Path(logs) / "server.log"
            ) as server:
                print(
                    f"{args.rooms} rooms of {args.players} players, {args.seconds:g} s, "
                    f"thinking {args.think[0]:g}-{args.think[1]:g} s a turn, "
                    "2 workers, PostgreSQL, Redis",
                    flush=True,
                )
                started = time.monotonic()
                figures = asyncio.run(
                    run(
                        server.url,
                        server.process.pid,
                        args.rooms,
                        args.players,
                        args.seconds,
                        tuple(args.think),
                    )
                )
                took = time.monotonic() - started
                log = (Path(logs) / "server.log").read_text(errors="replace")
        finally:
            redis.stop()
    delays = sorted(figures.delays)
    if delays:
        p50 = delays[len(delays) // 2]
        p99 = delays[min(len(delays) - 1, int(len(delays) * 0.99))]
        print(
            f"turn_closed heard {len(delays)} times in {took:.0f} s ({figures.rooms} rooms over, "
            f"{figures.turns} turns): p50 {p50:.0f} ms, p99 {p99:.0f} ms, worst {delays[-1]:.0f} ms"
        )
    print(f"events lost {figures.lost}, received twice {figures.twice}; errors {figures.errors}")
    lines = log.splitlines()
    errors = [line for line in lines if "ERROR" in line]
    # what each traceback ended with (its exception), counted
    ends: dict[str, int] = {}
    for before, line in pairwise(lines):
        starts = (" ", "Traceback", "During", "The above")
        if line and not line.startswith(starts) and before.startswith(" "):
            ends[line[:120]] = ends.get(line[:120], 0) + 1
    print(f"the workers logged {len(errors)} errors; the exceptions: {ends}")


if __name__ == "__main__":
    main()
