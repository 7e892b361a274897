"""Several hosts: one host against two on the same load (PostgreSQL, rate limits in Redis), and
what the Redis round trip costs an action.

Run (as root, so that the hosts get network namespaces of their own; elsewhere they are
processes on 127.0.0.1, and the output says so)::

    python -m benchmarks.hosts --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test

from the repository root (without ``--database-url``, ``MAGDAGDON_TEST_DATABASE_URL``). It
starts a ``redis-server`` of its own and uses a temporary database on that PostgreSQL server.
In one run it measures

1. the round trip: an action's two rate limits (per player, per address) counted
   ``--checks`` times in this process, by the in-process buckets and by the Redis script over
   the loopback: p50 and p99 in µs;
2. on the same load (``--players`` players playing whole games, as in ``server_load``: first
   every player sends its next action as soon as the last is answered, then they pause 0.1 s
   on average between actions), three setups one after the other:
   one host with the limits in its process, one host with the limits in Redis, and two hosts
   with the limits in Redis, each request sent to the next host in turn (round robin, as
   nginx's ``upstream`` does by default).

The per-address limits are raised out of the way (every player comes from one address here)
and the per-player limits too, so that no request is refused: the limiter does the same work
at any rate. Everything, the load generator included, shares this machine's two cores.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory

import httpx2

from benchmarks.server_load import Tally, play
from magdagdon.settings import Settings
from magdagdon.web.limits import Hit, Limits, RateLimits
from magdagdon.web.shared import RedisLink, SharedLimits
from tests.utils.hosts import Network, RedisServer, network_hosts, reachable_database
from tests.utils.pg import temporary_database
from tests.utils.server import server_process

HIGH = "1000000"
LIMITS_OUT_OF_THE_WAY = {
    f"MAGDAGDON_{name}": HIGH
    for name in (
        "PLAYER_ACTIONS_PER_SECOND",
        "ADDRESS_ACTIONS_PER_SECOND",
        "PLAYER_GAMES_PER_MINUTE",
        "ADDRESS_GAMES_PER_MINUTE",
        "ADDRESS_PLAYERS_PER_MINUTE",
    )
}
THINK = 0.1


class RoundRobin(httpx2.AsyncBaseTransport):
    """Sends each request to the next of ``urls`` in turn (nginx's default for an upstream)."""

    def __init__(self, urls: Sequence[str], connections: int) -> None:
        self._targets = [httpx2.URL(url) for url in urls]
        self._next = 0
        pool = connections * len(urls)
        self._transport = httpx2.AsyncHTTPTransport(
            limits=httpx2.Limits(max_connections=pool, max_keepalive_connections=pool)
        )

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Forward ``request`` to the next host."""
        target = self._targets[self._next % len(self._targets)]
        self._next += 1
        request.url = request.url.copy_with(host=target.host, port=target.port)
        return await self._transport.handle_async_request(request)

    async def aclose(self) -> None:
        """Close the connections."""
        await self._transport.aclose()


def percentiles(values: list[float]) -> tuple[float, float]:
    """p50 and p99 of ``values``."""
    ordered = sorted(values)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def _time_checks(limits: RateLimits, checks: int) -> list[float]:
    took = []
    for n in range(checks):
        hits: list[Hit] = [("actions_per_player", str(n % 50)), ("actions_per_address", "a")]
        start = time.perf_counter()
        await limits.check(hits)
        took.append((time.perf_counter() - start) * 1e6)
    return took


def round_trip(redis_url: str, checks: int) -> None:
    """Print what counting an action's two limits costs in process and through Redis."""
    settings = Settings(
        player_actions_per_second=float(HIGH), address_actions_per_second=float(HIGH)
    )

    async def measure() -> tuple[list[float], list[float]]:
        local = await _time_checks(Limits(settings), checks)
        link = RedisLink(redis_url)
        try:
            shared = SharedLimits(link, settings, fallback=Limits(settings))
            await _time_checks(shared, 200)  # connect, load the script
            remote = await _time_checks(shared, checks)
        finally:
            await link.close()
        return local, remote

    local, remote = asyncio.run(measure())
    print(f"rate limits of one action (per player and per address), {checks} times")
    for name, values in (("in process", local), ("Redis script", remote)):
        p50, p99 = percentiles(values)
        print(
            f"  {name:<13} p50 {p50:7.1f} µs  p99 {p99:7.1f} µs  "
            f"mean {statistics.fmean(values):7.1f} µs"
        )


@dataclass
class Figures:
    """What one setup measured."""

    setup: str
    capacity: Tally
    paced: Tally


def measure(setup: str, urls: list[str], players: int, seconds: float) -> Figures:
    """The load on the servers at ``urls``, capacity then paced."""

    def run(think: float, duration: float = seconds) -> Tally:
        transport = RoundRobin(urls, players)
        return asyncio.run(play(urls[0], players, duration, "peaceful", think, transport=transport))

    run(0.0, 2)  # warm up: connections, caches, the first games
    capacity = run(0.0)
    paced = run(THINK)
    print(f"{setup}")
    print(f"  capacity  {capacity.summary(seconds)}")
    print(f"  think {THINK:.1f}s {paced.summary(seconds)}")
    return Figures(setup, capacity, paced)


@contextmanager
def servers(
    network: Network, count: int, database_url: str, env: dict[str, str], logs: Path
) -> Iterator[list[str]]:
    """``count`` servers, one per host of ``network``; their URLs."""
    with ExitStack() as stack:
        urls = []
        for n in range(count):
            host = network.hosts[n]
            server = stack.enter_context(
                server_process(
                    database_url,
                    host=host.address,
                    command=[*host.prefix, sys.executable, "-m", "magdagdon.cli"],
                    env={**LIMITS_OUT_OF_THE_WAY, "MAGDAGDON_RATE_LIMITS": "true", **env},
                    log=logs / f"host{n}.log",
                    reach=network.reach,
                )
            )
            urls.append(server.url)
        yield urls


def table(results: list[Figures], seconds: float) -> None:
    """One line per setup."""
    print(
        f"\n{'setup':<34}{'actions/s':>10}{'p50':>9}{'p99':>9}"
        f"{'p50 @0.1s':>11}{'p99 @0.1s':>11}{'errors':>8}"
    )
    for r in results:
        c50, c99 = percentiles(r.capacity.latencies)
        p50, p99 = percentiles(r.paced.latencies)
        errors = sum(r.capacity.errors.values()) + sum(r.paced.errors.values())
        print(
            f"{r.setup:<34}{len(r.capacity.latencies) / seconds:>10.0f}{c50:>7.1f}ms"
            f"{c99:>7.1f}ms{p50:>9.1f}ms{p99:>9.1f}ms{errors:>8}"
        )


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = os.environ.get("MAGDAGDON_TEST_DATABASE_URL")
    parser.add_argument(
        "--database-url",
        default=default,
        required=default is None,
        help="a PostgreSQL server (default: MAGDAGDON_TEST_DATABASE_URL)",
    )
    parser.add_argument("--players", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--checks", type=int, default=5000)
    args = parser.parse_args()
    with ExitStack() as stack:
        logs = Path(stack.enter_context(TemporaryDirectory()))
        network = stack.enter_context(network_hosts(2))
        print(f"hosts: {network.mode}" + (f" ({network.reason})" if network.reason else ""))
        redis = RedisServer(
            logs, binds=(network.gateway,), prefix=network.gateway_prefix, reach=network.reach
        )
        redis.start()
        stack.callback(redis.stop)
        with network.reach():
            round_trip(redis.url(network.gateway), args.checks)
        database_url = stack.enter_context(
            temporary_database(args.database_url, prefix="magdagdon_bench")
        )
        database_url = reachable_database(stack, database_url, network)
        shared = {"MAGDAGDON_REDIS_URL": redis.url(network.gateway)}
        print(f"\n{args.players} players, {args.seconds:g} s per phase")
        results = []
        for setup, count, env in (
            ("1 host, limits in its process", 1, {}),
            ("1 host, limits in Redis", 1, shared),
            ("2 hosts, limits in Redis", 2, shared),
        ):
            with servers(network, count, database_url, env, logs) as urls, network.reach():
                results.append(measure(setup, urls, args.players, args.seconds))
        table(results, args.seconds)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
