"""A storm of coach requests from one address, and what the other players feel meanwhile.

Run: ``python -m benchmarks.coach_storm [--players 10] [--seconds 10] [--source DIR ...]``
from the repository root. For each source tree (default: this checkout; ``--source`` adds
another checkout's ``src``, e.g. an earlier release's, run with this Python and its C module)
it starts ``magdagdon serve`` (one worker, a temporary SQLite file, rate limits off so that
only the coach's own bounds act), prepares 40 finished games and 40 games with a roll to
hint on, and then

1. calm: N players play at a person's fast pace (an action, then 50 ms) for the given time;
2. storm: the same players while one address asks 40 reviews and 40 hints at once, each
   asked again after its ``Retry-After`` when refused, until all are answered.

It prints the players' action latency (p50/p99) in both phases, the storm's duration and how
many of its requests were answered, refused (429/503) and asked again. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

from benchmarks.server_load import median_p99
from tests.utils.api import ViewPlayer
from tests.utils.server import running_server

STORM = 40


@dataclass
class Tally:
    """Latencies (ms) of the players' actions."""

    latencies: list[float] = field(default_factory=list)
    errors: int = 0

    def line(self) -> str:
        lat = sorted(self.latencies)
        if not lat:
            return "no requests"
        p50, p99 = median_p99(lat)
        return (
            f"{len(lat):>6} actions  p50 {p50:7.1f} ms  p99 {p99:7.1f} ms  "
            f"max {lat[-1]:7.1f} ms  mean {statistics.fmean(lat):6.1f} ms  errors {self.errors}"
        )


async def play(base: str, stop: asyncio.Event, tally: Tally) -> None:
    """One player: new games, an action at a time with a 50 ms pause, until ``stop``."""
    async with httpx2.AsyncClient(base_url=base, timeout=60) as client:
        while not stop.is_set():
            r = await client.post("/api/games", json={"difficulty": "peaceful", "abandon": True})
            view = r.json()
            player = ViewPlayer(use_power=True)
            while view["status"] == "active" and not stop.is_set():
                action = player.next_action(view)
                started = time.perf_counter()
                r = await client.post(
                    f"/api/games/{view['id']}/actions",
                    json={"version": view["version"], "action": action},
                )
                tally.latencies.append((time.perf_counter() - started) * 1000)
                if r.status_code != 200:
                    tally.errors += 1
                    break
                view = r.json()
                await asyncio.sleep(0.05)


async def players(base: str, n: int, seconds: float, until: asyncio.Event | None) -> Tally:
    """N players for ``seconds`` (or until ``until`` is set, if given)."""
    tally = Tally()
    stop = asyncio.Event()
    tasks = [asyncio.create_task(play(base, stop, tally)) for _ in range(n)]
    if until is None:
        await asyncio.sleep(seconds)
    else:
        await until.wait()
    stop.set()
    await asyncio.gather(*tasks)
    return tally


def prepare(base: str) -> tuple[list[str], list[tuple[httpx2.Client, str]]]:
    """40 finished games (to review) and 40 players with a rolled game (to hint)."""
    finished: list[str] = []
    with httpx2.Client(base_url=base, timeout=60) as client:
        for seed in range(STORM):
            view = client.post(
                "/api/games", json={"difficulty": "nightmare", "seed": seed, "abandon": True}
            ).json()
            player = ViewPlayer()
            while view["status"] == "active":
                action = player.next_action(view)
                view = client.post(
                    f"/api/games/{view['id']}/actions",
                    json={"version": view["version"], "action": action},
                ).json()
            finished.append(view["id"])
    hinted = []
    for seed in range(STORM):
        client = httpx2.Client(base_url=base, timeout=120)
        view = client.post("/api/games", json={"difficulty": "peaceful", "seed": seed}).json()
        client.post(
            f"/api/games/{view['id']}/actions", json={"version": 0, "action": {"type": "roll"}}
        )
        hinted.append((client, view["id"]))
    return finished, hinted


@dataclass
class Storm:
    """What happened to the storm's requests."""

    answered: int = 0
    refused: dict[int, int] = field(default_factory=dict)
    failed: int = 0
    seconds: float = 0.0


async def storm(base: str, finished: list[str], hinted: list[tuple[Any, str]], done: Any) -> Storm:
    """40 reviews and 40 hints at once from one address; each asked again after Retry-After."""
    result = Storm()
    started = time.perf_counter()

    async def ask(client: httpx2.AsyncClient, url: str) -> None:
        while True:
            r = await client.get(url)
            if r.status_code == 200:
                result.answered += 1
                return
            if r.status_code in (429, 503):
                result.refused[r.status_code] = result.refused.get(r.status_code, 0) + 1
                await asyncio.sleep(float(r.headers.get("retry-after", "1")))
                continue
            result.failed += 1
            return

    clients = [
        httpx2.AsyncClient(base_url=base, timeout=300, cookies=dict(c.cookies)) for c, _ in hinted
    ]
    async with httpx2.AsyncClient(base_url=base, timeout=300) as reviewer:
        jobs = [ask(reviewer, f"/api/games/{g}/review") for g in finished]
        jobs += [ask(c, f"/api/games/{g}/hint") for c, (_, g) in zip(clients, hinted, strict=True)]
        await asyncio.gather(*jobs)
    for c in clients:
        await c.aclose()
    result.seconds = time.perf_counter() - started
    done.set()
    return result


async def measure(base: str, n: int, seconds: float) -> None:
    """Prepare, then the calm phase and the storm phase."""
    finished, hinted = await asyncio.to_thread(prepare, base)
    calm = await players(base, n, seconds, None)
    print(f"  calm:   {calm.line()}")
    done = asyncio.Event()
    storming = asyncio.create_task(storm(base, finished, hinted, done))
    during = await players(base, n, seconds, done)
    result = await storming
    print(f"  storm:  {during.line()}")
    print(
        f"  the storm: {result.answered} of {2 * STORM} answered in {result.seconds:.1f} s, "
        f"refused {sum(result.refused.values())} times {result.refused} (asked again after "
        f"Retry-After), {result.failed} failed"
    )
    for client, _ in hinted:
        client.close()


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark for each source tree."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument(
        "--source", action="append", default=[], help="another checkout's src directory"
    )
    args = parser.parse_args(argv)
    sources: list[str | None] = [*args.source, None]
    for source in sources:
        env = {"MAGDAGDON_RATE_LIMITS": "false", "MAGDAGDON_DAILY_PAR": "false"}
        if source:
            env["PYTHONPATH"] = str(Path(source).resolve())
        with tempfile.TemporaryDirectory() as tmp:
            db = f"sqlite:///{Path(tmp) / 'storm.db'}"
            with running_server(
                db, env=env, command=[sys.executable, "-m", "magdagdon.cli"]
            ) as base:
                print(f"{source or 'this checkout'} ({args.players} players):")
                asyncio.run(measure(base, args.players, args.seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
