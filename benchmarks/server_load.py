"""Server load: concurrent simulated players over HTTP, next to /api/health at the same load.

Run: ``python -m benchmarks.server_load [--players 50] [--seconds 15] [--compare PG_URL]``
from the repository root. It starts ``magdagdon serve`` on a temporary SQLite file (or
``--database-url``), then in one run measures

1. capacity: ``/api/health`` with N concurrent clients, then N concurrent players (each its
   own cookie) playing whole games (create, roll, stage, powers, MAGDAGDON, confirm, ...)
   through the JSON API, each sending its next request as soon as the last one answers;
2. latency: the N players again, pausing between actions (mean 1 s, a quick person; then
   0.25 s and 0.1 s, far faster than people play), with one /api/health probe beside them.

It prints p50/p99 latency and requests per second of each. ``--compare`` runs the same load
on 2 workers with PostgreSQL afterwards and prints both setups side by side. The load
generator shares the machine's two cores with the server. Prints figures; asserts nothing.
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
from http.cookiejar import Cookie, CookieJar, DefaultCookiePolicy
from pathlib import Path
from urllib.request import Request

import httpx2

from tests.utils.api import ViewPlayer
from tests.utils.pg import temporary_database
from tests.utils.server import running_server


class _RejectCookies(DefaultCookiePolicy):
    """A policy for a cookie jar shared by all players: it keeps no cookie."""

    def set_ok(self, cookie: Cookie, request: Request) -> bool:
        return False


def median_p99(ordered: list[float]) -> tuple[float, float]:
    """The median and the 99th percentile of values in ascending order (not empty)."""
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


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
        p50, p99 = median_p99(lat)
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
    base: str,
    players: int,
    seconds: float,
    difficulty: str,
    think: float = 0.0,
    seed: int = 1,
    transport: httpx2.AsyncBaseTransport | None = None,
) -> Tally:
    """Each player plays whole games until time is up; every action's latency is kept.

    ``think`` is each player's mean pause between actions in seconds (exponentially
    distributed, as arrivals of independent people are); 0 sends the next action at once.
    ``transport`` sends the requests (for example to several hosts in turn).
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
        if think:  # people arrive one by one, not all in the same instant
            await asyncio.sleep(rng.uniform(0, 2 * think))
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
    no_jar = CookieJar(policy=_RejectCookies())  # each player keeps its own cookie
    async with httpx2.AsyncClient(
        base_url=base, limits=limits, timeout=30, cookies=no_jar, transport=transport
    ) as client:
        await asyncio.gather(*(player(client) for _ in range(players)))
    return tally


PACES = (1.0, 0.25, 0.1)


async def paced(
    base: str, players: int, seconds: float, difficulty: str, think: float
) -> tuple[Tally, Tally]:
    """Players pausing ``think`` s on average between actions, and one health probe beside them."""
    actions, health = await asyncio.gather(
        play(base, players, seconds, difficulty, think=think), hammer_health(base, 1, seconds)
    )
    return actions, health


@dataclass
class Figures:
    """What one setup measured."""

    setup: str
    health: Tally
    actions: Tally
    paced: dict[float, Tally]


def run(database_url: str, players: int, seconds: float, workers: int, difficulty: str) -> Figures:
    """Start the server and measure: capacity (no pauses), then latency at several paces."""
    setup = (
        f"{workers} worker{'s' if workers > 1 else ''}, {database_url.split('+')[0].split(':')[0]}"
    )
    with running_server(database_url, workers=workers) as base:
        print(f"server: {setup}; {players} clients")
        asyncio.run(hammer_health(base, players, 2))  # warm up
        health = asyncio.run(hammer_health(base, players, seconds))
        actions = asyncio.run(play(base, players, seconds, difficulty))
        print("capacity: every client sends its next request as soon as the last one answers")
        print(f"  health   {health.summary(seconds)}")
        print(f"  actions  {actions.summary(seconds)}  ({actions.games} games finished)")
        ratio = len(actions.latencies) / max(1, len(health.latencies))
        print(f"  action rate / health rate = {ratio:.2f}")
        print("latency: players pause between actions (exponential, mean `think`)")
        paced_figures: dict[float, Tally] = {}
        for think in PACES:
            acts, probe = asyncio.run(paced(base, players, seconds, difficulty, think))
            paced_figures[think] = acts
            print(f"  think {think:4.2f} s  actions {acts.summary(seconds)}")
            print(f"               health  {probe.summary(seconds)}")
    return Figures(setup, health, actions, paced_figures)


def side_by_side(results: list[Figures], seconds: float) -> None:
    """One line per setup: capacity and p99 latency at each pace."""

    def p99(t: Tally) -> float:
        lat = sorted(t.latencies)
        return lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else float("nan")

    head = "".join(f"  p99 @{think:.2f}s" for think in PACES)
    print(f"\n{'setup':<22}{'actions/s':>10}{'health/s':>10}{'ratio':>7}{head}{'  errors':>8}")
    for r in results:
        errors = sum(sum(t.errors.values()) for t in (r.health, r.actions, *r.paced.values()))
        cells = "".join(f"{p99(r.paced[think]):>11.1f}ms" for think in PACES)
        print(
            f"{r.setup:<22}{len(r.actions.latencies) / seconds:>10.0f}"
            f"{len(r.health.latencies) / seconds:>10.0f}"
            f"{len(r.actions.latencies) / max(1, len(r.health.latencies)):>7.2f}{cells}{errors:>8}"
        )


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--difficulty", default="peaceful")
    parser.add_argument("--database-url", help="default: a temporary SQLite file")
    parser.add_argument(
        "--compare",
        metavar="POSTGRES_URL",
        help="also run 2 workers on a temporary database on this PostgreSQL server, "
        "e.g. postgresql+psycopg://postgres@127.0.0.1:5432/test, and print both side by side",
    )
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'load.db'}"
        results.append(run(url, args.players, args.seconds, args.workers, args.difficulty))
    if args.compare:
        with temporary_database(args.compare, prefix="magdagdon_bench") as pg_url:
            results.append(run(pg_url, args.players, args.seconds, 2, args.difficulty))
        side_by_side(results, args.seconds)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
