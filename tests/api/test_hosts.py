"""Several hosts, for real: two ``magdagdon serve`` processes, each in a network namespace of
its own with its own address (or on 127.0.0.1 where namespaces cannot be made: the test
says so), on one PostgreSQL database and one Redis, and clients that alternate between them
as a load balancer would.

They show that one player's combined action rate is held to the configured limit, that a game
started on one host continues on the other, that killing a host loses no acknowledged action,
and that with Redis stopped both hosts keep serving (each with its own limits) and share the
limits again once it is back.

Runs when ``MAGDAGDON_TEST_DATABASE_URL`` names a PostgreSQL server and ``redis-server`` is
installed (``.ci/run`` sees to both); the test starts a Redis of its own, which it stops and
starts, never the machine's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from http.cookiejar import Cookie, CookieJar, DefaultCookiePolicy
from pathlib import Path
from typing import Any
from urllib.request import Request

import httpx2
import pytest

from ..conftest import PG_ENV
from ..utils.api import ViewPlayer, next_event
from ..utils.hosts import Network, RedisServer, network_hosts, reachable_database
from ..utils.pg import temporary_database
from ..utils.server import ServerProcess, server_process

pytestmark = pytest.mark.slow  # real processes on real (virtual) network hosts

RATE = 2
"""Actions a second per player on the test's servers."""
BURST = 3 * RATE
"""What a player may spend at once (three seconds' worth, as LIMITS says)."""
REDIS_DB = 3


class _NoCookies(DefaultCookiePolicy):
    def set_ok(self, cookie: Cookie, request: Request) -> bool:
        return False


@dataclass
class Cluster:
    """The hosts, their servers, the Redis and where the logs go."""

    network: Network
    redis: RedisServer
    redis_url: str
    """Where the hosts reach :attr:`redis` (database ``REDIS_DB``)."""
    database_url: str
    logs: Path
    servers: dict[int, ServerProcess] = field(default_factory=dict)
    stacks: dict[int, ExitStack] = field(default_factory=dict)

    @property
    def urls(self) -> list[str]:
        """The base URL of each host's server that runs (``servers`` is replaced, never
        changed, so that the players' threads can read it while a host is killed)."""
        servers = self.servers
        return [servers[n].url for n in sorted(servers)]

    def log(self, n: int) -> str:
        """What host ``n``'s server has logged."""
        return (self.logs / f"host{n}.log").read_text(errors="replace")

    def start(self, n: int) -> None:
        """Start the server of host ``n``."""
        host = self.network.hosts[n]
        stack = ExitStack()
        server = stack.enter_context(
            server_process(
                self.database_url,
                host=host.address,
                command=[*host.prefix, sys.executable, "-m", "magdagdon.cli"],
                log=self.logs / f"host{n}.log",
                reach=self.network.reach,
                env={
                    "MAGDAGDON_REDIS_URL": self.redis_url,
                    "MAGDAGDON_RATE_LIMITS": "true",
                    "MAGDAGDON_PLAYER_ACTIONS_PER_SECOND": str(RATE),
                },
            )
        )
        self.stacks[n] = stack
        self.servers = {**self.servers, n: server}

    def kill(self, n: int) -> None:
        """SIGKILL host ``n``'s server, as a crash or a power cut."""
        server = self.servers[n]
        self.servers = {k: v for k, v in self.servers.items() if k != n}
        server.kill()
        self.stacks.pop(n).close()

    def stop(self) -> None:
        """Stop every server."""
        self.servers = {}
        for n in list(self.stacks):
            self.stacks.pop(n).close()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Two hosts serving one PostgreSQL database and one Redis of the test's own."""
    base = os.environ.get(PG_ENV)
    if not base:
        pytest.skip(f"{PG_ENV} is not set: the hosts share a PostgreSQL database")
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed: the hosts share a Redis of the test's own")
    logs = tmp_path_factory.mktemp("hosts")
    with ExitStack() as stack:
        database_url = stack.enter_context(temporary_database(base, prefix="magdagdon_hosts"))
        network = stack.enter_context(network_hosts(2))
        where = "; ".join(f"{h.name} at {h.address}" for h in network.hosts)
        if network.reason:  # say it where the summary shows it
            warnings.warn(f"hosts on the loopback, not namespaces: {network.reason}", stacklevel=1)
        print(f"hosts: {network.mode}: {where}")
        # the hosts reach PostgreSQL through a relay at the gateway; the test's Redis runs
        # there, reached directly (a relay in its path slowed its answers past the hosts'
        # timeout on a loaded machine)
        database_url = reachable_database(stack, database_url, network)
        redis = RedisServer(
            logs, binds=(network.gateway,), prefix=network.gateway_prefix, reach=network.reach
        )
        redis.start()
        stack.callback(redis.stop)
        redis_url = redis.url(network.gateway, REDIS_DB)
        found = Cluster(network, redis, redis_url, database_url, logs)
        stack.callback(found.stop)
        found.start(0)
        found.start(1)
        yield found


class Player:
    """One player (one cookie) whose requests go to the hosts in turn, as a round-robin load
    balancer sends them."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.client = httpx2.Client(timeout=10, cookies=CookieJar(policy=_NoCookies()))
        self.cookie = ""
        self.turn = 0

    def __enter__(self) -> Player:
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.close()

    def request(self, method: str, path: str, body: Any = None, host: int | None = None) -> Any:
        """Send to ``host``, or to the next host in turn."""
        if host is None:
            urls = self.cluster.urls
            host, self.turn = self.turn % len(urls), self.turn + 1
            url = urls[host]
        else:
            url = self.cluster.servers[host].url
        headers = {"cookie": self.cookie} if self.cookie else {}
        with self.cluster.network.reach():
            r = self.client.request(method, url + path, json=body, headers=headers)
        if "set-cookie" in r.headers:
            self.cookie = r.headers["set-cookie"].split(";", 1)[0]
        return r

    def new_game(self, host: int | None = None, seed: int | None = None) -> dict[str, Any]:
        """A new game (abandoning any other)."""
        body = {"difficulty": "peaceful", "abandon": True, "seed": seed}
        r = self.request("POST", "/api/games", body, host=host)
        assert r.status_code == 201, r.text
        view: dict[str, Any] = r.json()
        return view

    def flood(self, game: dict[str, Any], count: int) -> tuple[list[int], float]:
        """``count`` actions on the game as fast as the hosts answer, alternating: the
        statuses, and the seconds it took. (All but the first are on a stale version: every
        one counts against the limit all the same.)"""
        statuses = []
        start = time.monotonic()
        for _ in range(count):
            body = {"version": game["version"], "action": {"type": "roll"}}
            r = self.request("POST", f"/api/games/{game['id']}/actions", body)
            statuses.append(r.status_code)
            if r.status_code == 429:
                assert int(r.headers["retry-after"]) >= 1
                assert r.json()["error"]["code"] == "rate_limited"
            else:
                assert r.status_code in (200, 409), r.text
        return statuses, time.monotonic() - start


def _allowed(statuses: list[int]) -> int:
    return sum(status != 429 for status in statuses)


def test_one_player_is_held_to_the_limit_across_hosts(cluster: Cluster) -> None:
    with Player(cluster) as player:
        game = player.new_game()
        statuses, took = player.flood(game, 4 * BURST)
        assert BURST <= _allowed(statuses) <= BURST + RATE * took + 1, (statuses, took)
        assert 429 in statuses[0::2] and 429 in statuses[1::2]  # each host refuses
        # Sustained: a request every 50 ms for two seconds gets the rate, not twice it.
        allowed, start = 0, time.monotonic()
        while time.monotonic() - start < 2:
            allowed += _allowed(player.flood(game, 1)[0])
            time.sleep(0.05)
        took = time.monotonic() - start
        assert 1 <= allowed <= RATE * took + 1, (allowed, took)


def _act(player: Player, view: dict[str, Any], action: dict[str, Any]) -> dict[str, Any]:
    """Send an action to the next host, waiting as Retry-After says when limited."""
    while True:
        body = {"version": view["version"], "action": action}
        r = player.request("POST", f"/api/games/{view['id']}/actions", body)
        if r.status_code != 429:
            assert r.status_code == 200, r.text
            answer: dict[str, Any] = r.json()
            return answer
        time.sleep(int(r.headers["retry-after"]))


def test_a_game_started_on_one_host_continues_on_the_other(cluster: Cluster) -> None:
    with Player(cluster) as player:
        view = player.new_game(host=0, seed=21)
        bot = ViewPlayer(use_power=True)
        for _ in range(BURST + 4):  # every other action on the other host
            view = _act(player, view, bot.next_action(view))
        assert view["turns"] >= 1
        seen = [player.request("GET", f"/api/games/{view['id']}", host=n).json() for n in (0, 1)]
        assert seen == [view, view]


def test_killing_a_host_loses_no_acknowledged_action(cluster: Cluster) -> None:
    acknowledged: dict[str, dict[str, Any]] = {}  # game id -> the last view answered 2xx
    players: dict[str, Player] = {}
    lock = threading.Lock()
    stop = threading.Event()
    failures: list[str] = []

    def play(player: Player) -> None:
        try:
            view = player.new_game()
            bot = ViewPlayer(use_power=True)
            action = None  # sent again until it is answered
            while not stop.is_set() and view["phase"] != "over":
                with lock:  # each answer as soon as it came
                    acknowledged[view["id"]] = view
                    players[view["id"]] = player
                action = action or bot.next_action(view)
                body = {"version": view["version"], "action": action}
                try:
                    r = player.request("POST", f"/api/games/{view['id']}/actions", body)
                except httpx2.HTTPError:
                    continue  # that host is gone: the next request goes to the other
                if r.status_code == 429:
                    stop.wait(int(r.headers["retry-after"]))
                    continue
                if r.status_code == 409:  # the answer was lost with the host, not the action
                    view = r.json()["game"]
                    bot = ViewPlayer(use_power=True)
                else:
                    assert r.status_code == 200, r.text
                    view = r.json()
                action = None
        except Exception as exc:  # reported below, in the test's thread
            failures.append(repr(exc))

    team = [Player(cluster) for _ in range(4)]
    threads = [threading.Thread(target=play, args=(p,)) for p in team]
    try:
        for t in threads:
            t.start()
        time.sleep(2.5)
        cluster.kill(0)
        time.sleep(2.5)  # the players go on with the other host
        stop.set()
        for t in threads:
            t.join(timeout=30)
        assert not failures, failures
        assert len(acknowledged) == 4
        assert sum(v["version"] for v in acknowledged.values()) >= 4 * BURST
        for game_id, seen in acknowledged.items():
            r = players[game_id].request("GET", f"/api/games/{game_id}", host=1)
            now = r.json()
            assert now["version"] >= seen["version"]  # nothing acknowledged was lost
            if now["version"] == seen["version"]:
                assert now == seen
    finally:
        stop.set()
        for p in team:
            p.__exit__()
        if 0 not in cluster.servers:
            cluster.start(0)


def _poke(cluster: Cluster, host: int) -> None:
    """A rate-limited request on ``host`` (so that it tries Redis)."""
    with Player(cluster) as player:
        player.request("POST", "/api/games/000000000000000000000000/actions", {}, host=host)


def test_with_redis_stopped_both_hosts_keep_serving(cluster: Cluster) -> None:
    cluster.redis.stop()
    try:
        with Player(cluster) as player:
            game = player.new_game()
            statuses, took = player.flood(game, 4 * BURST)
            # Each host's own buckets: a burst on each, more than one player's whole share.
            assert _allowed(statuses) >= 2 * BURST, (statuses, took)
            assert _allowed(statuses) <= 2 * (BURST + RATE * took + 1), (statuses, took)
            for n in (0, 1):
                assert player.request("GET", "/api/ready", host=n).status_code == 200
        for n in (0, 1):
            assert cluster.log(n).count("does not answer") == 1, cluster.log(n)
    finally:
        cluster.redis.start()

    deadline = time.monotonic() + 15
    while not all("answers again" in cluster.log(n) for n in (0, 1)):
        assert time.monotonic() < deadline, [cluster.log(n) for n in (0, 1)]
        for n in (0, 1):
            _poke(cluster, n)
        time.sleep(0.5)
    with Player(cluster) as player:
        statuses, took = player.flood(player.new_game(), 4 * BURST)
        assert BURST <= _allowed(statuses) <= BURST + RATE * took + 1, (statuses, took)


def test_the_hosts_leave_this_machines_network_alone(cluster: Cluster) -> None:
    """No link or address of the hosts' network is in this machine's own: a browser test
    beside this one takes every new one for the network changing (Chromium fails each request
    in flight with ERR_NETWORK_CHANGED)."""
    if cluster.network.mode == "loopback":
        pytest.skip(f"hosts on the loopback: {cluster.network.reason}")
    ours = subprocess.run(["ip", "-o", "addr"], capture_output=True, text=True, check=True).stdout
    ours += subprocess.run(["ip", "-o", "link"], capture_output=True, text=True, check=True).stdout
    assert "10.231." not in ours and "mgbr" not in ours and "mgv" not in ours, ours
    with cluster.network.reach():  # (they are there, in the gateway's namespace)
        theirs = subprocess.run(["ip", "-o", "addr"], capture_output=True, text=True).stdout
    assert f"{cluster.network.gateway}/24" in theirs


def test_room_members_on_two_hosts_see_each_others_turns(cluster: Cluster) -> None:
    """A live room with its maker on one host and its other member on the other (each with a
    live connection to their own): each hears the other's joining, ending a turn and the
    turn's boards (Redis carries the news between the hosts)."""
    from websockets.sync.client import connect

    with Player(cluster) as ann, Player(cluster) as ben, ExitStack() as stack:
        for player, name, host in ((ann, "Ann", 0), (ben, "Ben", 1)):
            r = player.request("PUT", "/api/players/me", {"name": name}, host=host)
            assert r.status_code == 200, r.text
        made = ann.request("POST", "/api/rooms", {"difficulty": "peaceful", "clock": None}, host=0)
        assert made.status_code == 201, made.text
        code = made.json()["code"]

        def live(player: Player, host: int) -> Any:
            url = cluster.servers[host].url.replace("http://", "ws://") + f"/api/rooms/{code}/live"
            with cluster.network.reach():
                return stack.enter_context(
                    connect(url, additional_headers={"cookie": player.cookie}, open_timeout=10)
                )

        ann_live = live(ann, 0)
        assert ben.request("POST", f"/api/rooms/{code}/members", host=1).status_code == 201
        ben_live = live(ben, 1)
        next_event(
            ann_live, "member_joined", player={"name": "Ben", "me": False}
        )  # (the other host)
        assert ann.request("POST", f"/api/rooms/{code}/start", host=0).status_code == 200
        next_event(ben_live, "turn_opened", turn=1)
        views = {}
        for player, host, others in ((ann, 0, ben_live), (ben, 1, ann_live)):
            game_id = player.request("GET", f"/api/rooms/{code}", host=host).json()["game_id"]
            view = player.request("GET", f"/api/games/{game_id}", host=host).json()
            bot = ViewPlayer()
            while view["turns"] == 0:
                body = {"version": view["version"], "action": bot.next_action(view)}
                r = player.request("POST", f"/api/games/{game_id}/actions", body, host=host)
                if r.status_code == 429:
                    time.sleep(int(r.headers["retry-after"]))
                    continue
                assert r.status_code == 200, r.text
                view = r.json()
            views[host] = view
            if host == 0:  # the other host's member hears that Ann has ended the turn
                next_event(others, "member_done", turn=1, player={"name": "Ann", "me": False})
        for live_connection in (ann_live, ben_live):
            closed = next_event(live_connection, "turn_closed", turn=1)
            boards = {b["name"]: b for b in closed["body"]["boards"]}
            assert boards["Ann"]["board"] == views[0]["board"]
            assert boards["Ben"]["board"] == views[1]["board"]
            assert boards["Ann"]["score"] == views[0]["score"]["total"]
