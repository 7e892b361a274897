"""One address floods the coach's background work; what another address's hints feel.

Run: ``python -m benchmarks.background_flood [--games 60] [--hints 20] [--seconds 30]
[--unlimited] [--source DIR ...]``
from the repository root. For each source tree (default: this checkout; ``--source`` adds
another checkout's ``src``, e.g. today's main, run with this Python and its C module) it starts
``magdagdon serve`` (one worker, a temporary SQLite file, the default rate limits, the proxy
127.0.0.1 trusted so that each client names its address in ``X-Forwarded-For``), prepares
``--games`` finished games of players from many addresses and ``--hints`` rolled games of
another address, and then measures that other address's hints (one at a time, each on its own
game):

1. idle: nothing else runs;
2. flood (``--seconds`` from its start): one address asks, all at once, a challenge of every
   finished game
   (``POST /api/challenges``: each queues the coach's score on its dice) and every player's
   puzzles (``GET /api/players/me/puzzles``: each queues a search of the player's newest
   games), as the outside probe did (231 challenges in 60 s);
3. after: from 5 s after the last of the flood's requests was answered (or when the flood's
   phase ends, if later): the idle phase's games again.

It prints each phase's hint latency (p50/p95/max) and how the flood's requests were answered.
Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

import httpx2

from benchmarks.server_load import median_p99
from tests.utils.api import ViewPlayer
from tests.utils.server import running_server

FLOOD = {"X-Forwarded-For": "198.51.100.7"}
OTHER = {"X-Forwarded-For": "203.0.113.9"}


def _finish(client: httpx2.Client, seed: int) -> str:
    view = client.post("/api/games", json={"difficulty": "nightmare", "seed": seed}).json()
    player = ViewPlayer()
    while view["status"] == "active":
        action = player.next_action(view)
        view = client.post(
            f"/api/games/{view['id']}/actions",
            json={"version": view["version"], "action": action},
        ).json()
    return str(view["id"])


def prepare(
    base: str, games: int, hints: int
) -> tuple[list[tuple[dict[str, str], str]], list[tuple[dict[str, str], str]]]:
    """Finished games (each player two, from an address of their own), and rolled games of
    players of the other address (a game in progress each): (cookies, game id) pairs."""
    finished: list[tuple[dict[str, str], str]] = []
    for i in range(0, games, 2):
        address = {"X-Forwarded-For": f"192.0.2.{1 + i // 2}"}
        with httpx2.Client(base_url=base, timeout=60, headers=address) as client:
            ids = [_finish(client, 1000 + i), _finish(client, 1001 + i)]
            finished += [(dict(client.cookies), g) for g in ids]
    rolled = []
    for seed in range(hints):
        with httpx2.Client(base_url=base, timeout=60, headers=OTHER) as other:
            view = other.post("/api/games", json={"difficulty": "peaceful", "seed": seed}).json()
            other.post(
                f"/api/games/{view['id']}/actions", json={"version": 0, "action": {"type": "roll"}}
            )
            rolled.append((dict(other.cookies), view["id"]))
    return finished, rolled


async def hints(
    base: str, games: list[tuple[dict[str, str], str]], seconds: float | None = None
) -> list[float]:
    """Hints one at a time, each on the next game (each its player's): one on each game, or
    round the games again until ``seconds`` have passed. Their latencies (ms)."""
    took: list[float] = []
    began = time.perf_counter()
    turn = 0
    while turn < len(games) or (seconds is not None and time.perf_counter() - began < seconds):
        cookies, game = games[turn % len(games)]
        turn += 1
        async with httpx2.AsyncClient(
            base_url=base, timeout=600, headers=OTHER, cookies=cookies
        ) as client:
            started = time.perf_counter()
            r = await client.get(f"/api/games/{game}/hint")
            took.append((time.perf_counter() - started) * 1000)
            if r.status_code != 200:
                print(f"    a hint answered {r.status_code}")
        if seconds is not None and turn >= len(games) and time.perf_counter() - began >= seconds:
            break
    return took


def line(took: list[float]) -> str:
    ordered = sorted(took)
    p50, _ = median_p99(ordered)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"p50 {p50:.0f} ms, p95 {p95:.0f} ms, max {ordered[-1]:.0f} ms ({len(took)} hints)"


async def flood(base: str, finished: list[tuple[dict[str, str], str]]) -> dict[int, int]:
    """Every challenge and every player's puzzles at once from one address: answers by status."""
    answers: dict[int, int] = {}
    clients: dict[str, httpx2.AsyncClient] = {}
    for cookies, _ in finished:
        key = repr(sorted(cookies.items()))
        if key not in clients:
            clients[key] = httpx2.AsyncClient(
                base_url=base, timeout=600, headers=FLOOD, cookies=cookies
            )

    async def ask(client: httpx2.AsyncClient, method: str, url: str, body: object) -> None:
        r = await client.request(method, url, json=body)
        answers[r.status_code] = answers.get(r.status_code, 0) + 1

    jobs = [
        ask(clients[repr(sorted(c.items()))], "POST", "/api/challenges", {"game_id": g})
        for c, g in finished
    ]
    jobs += [ask(c, "GET", "/api/players/me/puzzles", None) for c in clients.values()]
    await asyncio.gather(*jobs)
    for c in clients.values():
        await c.aclose()
    return answers


async def measure(base: str, games: int, count: int, seconds: float) -> None:
    """Prepare, then the three phases."""
    finished, rolled = await asyncio.to_thread(prepare, base, games, 2 * count + 1)
    warm, rolled = rolled[:1], rolled[1:]
    await hints(base, warm)  # the coach's process starts with the first hint: not counted
    idle = await hints(base, rolled[:count])
    print(f"  idle:   {line(idle)}")
    started = time.perf_counter()
    answered: list[float] = []

    async def flooding() -> dict[int, int]:
        answers = await flood(base, finished)
        answered.append(time.perf_counter())
        return answers

    flood_task = asyncio.create_task(flooding())
    during = await hints(base, rolled[count:], seconds)
    answers = await flood_task
    print(f"  flood:  {line(during)} (the {seconds:.0f} s from the flood's start)")
    print(
        f"  the flood: {len(finished)} challenges and {len(finished) // 2} players' puzzles "
        f"answered {dict(sorted(answers.items()))} in {answered[0] - started:.1f} s"
    )
    await asyncio.sleep(max(0.0, 5 - (time.perf_counter() - answered[0])))
    since = time.perf_counter() - answered[0]
    after = await hints(base, rolled[:count])
    print(f"  after:  {line(after)} (from {since:.0f} s after the flood's last answer)")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark for each source tree."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--hints", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument(
        "--unlimited",
        action="store_true",
        help="no limit on challenges and searches, nor bound on the background's queue: all "
        "the flood's work is queued, and only its processes keep it from the hints",
    )
    parser.add_argument(
        "--source", action="append", default=[], help="another checkout's src directory"
    )
    args = parser.parse_args(argv)
    sources: list[str | None] = [*args.source, None]
    for source in sources:
        env = {
            "MAGDAGDON_RATE_LIMITS": "true",  # the defaults, but for what the set-up needs
            "MAGDAGDON_TRUSTED_PROXIES": "127.0.0.1",
            "MAGDAGDON_ADDRESS_PLAYERS_PER_MINUTE": "10000",
            "MAGDAGDON_ADDRESS_GAMES_PER_MINUTE": "10000",
            "MAGDAGDON_PLAYER_GAMES_PER_MINUTE": "10000",
            "MAGDAGDON_ADDRESS_ACTIONS_PER_SECOND": "10000",
            "MAGDAGDON_PLAYER_ACTIONS_PER_SECOND": "10000",
            "MAGDAGDON_PLAYER_COACH_PER_MINUTE": "10000",
            "MAGDAGDON_ADDRESS_COACH_PER_MINUTE": "10000",
        }
        if args.unlimited:
            for name in ("PLAYER", "ADDRESS"):
                env[f"MAGDAGDON_{name}_CHALLENGES_PER_HOUR"] = "100000"
                env[f"MAGDAGDON_{name}_SEARCHES_PER_HOUR"] = "100000"
            env["MAGDAGDON_BACKGROUND_QUEUE"] = "10000"
            env["MAGDAGDON_BACKGROUND_AT_ONCE"] = "1000"
        if source:
            env["PYTHONPATH"] = str(Path(source).resolve())
        with tempfile.TemporaryDirectory() as tmp:
            db = f"sqlite:///{Path(tmp) / 'flood.db'}"
            with running_server(
                db, env=env, command=[sys.executable, "-m", "magdagdon.cli"]
            ) as base:
                print(f"{source or 'this checkout'}:")
                asyncio.run(measure(base, args.games, args.hints, args.seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
