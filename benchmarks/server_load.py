"""Server load: concurrent simulated players over HTTP, next to /api/health at the same load.

Run: ``python -m benchmarks.server_load [--players 50] [--seconds 20]`` from the repository
root. It starts ``magdagdon serve`` on a temporary SQLite file (or ``--database-url``), then
in one run measures

1. ``/api/health`` with N concurrent clients (the server's ceiling for a trivial request),
2. N concurrent players, each with its own cookie, playing whole games (create, roll,
   stage, confirm, MAGDAGDON, ...) through the JSON API,

and prints p50/p99 latency and requests per second of both. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx2

from tests.utils.api import ViewPlayer
from tests.utils.server import running_server


@dataclass
class Tally:
    """Latencies (ms) and failures of one kind of request."""

    latencies: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    games: int = 0

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1

    def summary(self, seconds: float) -> str:
        lat = sorted(self.latencies)
        if not lat:
            return "no requests"
        p50 = lat[len(lat) // 2]
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
        return (
            f"{len(lat):>7} req  {len(lat) / seconds:>7.0f} req/s  p50 {p50:6.1f} ms  "
            f"p99 {p99:6.1f} ms  mean {statistics.fmean(lat):6.1f} ms  "
            f"errors {sum(self.errors.values())}" + (f" {self.errors}" if self.errors else "")
        )


async def hammer_health(base: str, clients: int, seconds: float) -> Tally:
    """Each client requests /api/health in a loop until time is up."""
    tally = Tally()
    deadline = time.perf_counter() + seconds
    limits = httpx2.Limits(max_connections=clients, max_keepalive_connections=clients)

    async def loop(client: httpx2.AsyncClient) -> None:
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            try:
                r = await client.get("/api/health")
            except httpx2.HTTPError as exc:
                tally.error(type(exc).__name__)
                continue
            tally.latencies.append((time.perf_counter() - start) * 1000)
            if r.status_code != 200:
                tally.error(str(r.status_code))

    async with httpx2.AsyncClient(base_url=base, limits=limits, timeout=30) as client:
        await asyncio.gather(*(loop(client) for _ in range(clients)))
    return tally


async def play(
    base: str, players: int, seconds: float, difficulty: str, think: float = 0.0, seed: int = 1
) -> Tally:
    """Each player plays whole games until time is up; every action's latency is kept.

    ``think`` is each player's mean pause between actions in seconds (exponentially
    distributed, as arrivals of independent people are); 0 sends the next action at once.
    """
    tally = Tally()
    deadline = time.perf_counter() + seconds
    rng = random.Random(seed)

    async def request(
        client: httpx2.AsyncClient, jar: dict[str, str], method: str, url: str, body: object
    ) -> object:
        start = time.perf_counter()
        r = await client.request(method, url, json=body, headers=jar)
        tally.latencies.append((time.perf_counter() - start) * 1000)
        if "set-cookie" in r.headers:
            jar["cookie"] = r.headers["set-cookie"].split(";", 1)[0]
        if r.status_code not in (200, 201):
            tally.error(f"{r.status_code} {r.json().get('error', {}).get('code')}")
            return None
        return r.json()

    async def player(client: httpx2.AsyncClient) -> None:
        jar: dict[str, str] = {}  # this player's cookie
        while time.perf_counter() < deadline:
            body = {"difficulty": difficulty, "abandon": True}
            view = await request(client, jar, "POST", "/api/games", body)
            bot = ViewPlayer(use_power=True)
            while isinstance(view, dict) and view["phase"] != "over":
                if time.perf_counter() >= deadline:
                    return
                if think:
                    await asyncio.sleep(rng.expovariate(1 / think))
                action = {"version": view["version"], "action": bot.next_action(view)}
                url = f"/api/games/{view['id']}/actions"
                view = await request(client, jar, "POST", url, action)
            if isinstance(view, dict):
                tally.games += 1

    # One connection pool for all players (each sends its own cookie): a client per player
    # would spend the load generator's CPU on connection bookkeeping instead of requests.
    limits = httpx2.Limits(max_connections=players, max_keepalive_connections=players)
    async with httpx2.AsyncClient(base_url=base, limits=limits, timeout=30) as client:
        await asyncio.gather(*(player(client) for _ in range(players)))
    return tally


def run(database_url: str, players: int, seconds: float, workers: int, difficulty: str) -> None:
    """Start the server and measure both loads, one after the other."""
    with running_server(database_url, workers=workers) as base:
        print(f"server: {workers} worker(s), {database_url.split('://')[0]}; {players} clients")
        asyncio.run(hammer_health(base, players, 2))  # warm up
        health = asyncio.run(hammer_health(base, players, seconds))
        actions = asyncio.run(play(base, players, seconds, difficulty))
    print(f"  health   {health.summary(seconds)}")
    print(f"  actions  {actions.summary(seconds)}  ({actions.games} games finished)")
    ratio = (len(actions.latencies) / seconds) / max(1e-9, len(health.latencies) / seconds)
    print(f"  action rate / health rate = {ratio:.2f}")


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--difficulty", default="peaceful")
    parser.add_argument("--database-url", help="default: a temporary SQLite file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'load.db'}"
        run(url, args.players, args.seconds, args.workers, args.difficulty)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
