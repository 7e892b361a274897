"""Rate limits and reviews shared through Redis (``web/shared.py``, ``web/caches.py``): the
same token buckets as each process's own, one set of them for every process, and a Redis that
goes away costs the server nothing but the sharing."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest
import redis
from fastapi.testclient import TestClient

from magdagdon.engine import Difficulty
from magdagdon.settings import Settings
from magdagdon.web.app import create_app
from magdagdon.web.caches import REVIEW_TTL, ReviewCache
from magdagdon.web.limits import Hit, Limits
from magdagdon.web.schemas import ReviewView
from magdagdon.web.shared import RedisLink, RedisUnavailable, SharedLimits, display_url

from ..utils.api import new_game, play_to_end
from ..utils.proxy import TcpProxy
from ..utils.server import free_port

T = TypeVar("T")


def _settings(**changes: Any) -> Settings:
    return Settings(
        database_url="sqlite://",
        player_actions_per_second=2,  # bursts of 6
        address_actions_per_second=1,  # bursts of 3
        **changes,
    )


def _run(work: Callable[[], Coroutine[Any, Any, T]]) -> T:
    return asyncio.run(work())


class Clock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# A player's actions from two addresses, then from another: the address's bucket empties
# first (and the player's token is spent all the same), then the player's.
SEQUENCE: list[Sequence[Hit]] = [
    *[[("actions_per_player", "7"), ("actions_per_address", "a")]] * 5,
    *[[("actions_per_player", "7"), ("actions_per_address", "b")]] * 3,
    [("actions_per_address", "b")],
]


def test_shared_buckets_answer_as_a_process_own_buckets(redis_url: str) -> None:
    local = Limits(_settings())

    async def shared() -> list[int | None]:
        link = RedisLink(redis_url)
        limits = SharedLimits(link, _settings(), fallback=Limits(_settings()))
        try:
            return [await limits.check(hits) for hits in SEQUENCE]
        finally:
            await link.close()

    expected = [local.check_now(hits) for hits in SEQUENCE]
    assert expected == [None, None, None, 1, 1, None, 1, 1, None]
    assert _run(shared) == expected


def test_processes_sharing_redis_share_one_bucket(redis_url: str) -> None:
    """Two processes' limits (two links) alternating: one burst between them, not two."""

    async def alternate() -> tuple[list[int | None], float]:
        links = [RedisLink(redis_url), RedisLink(redis_url)]
        both = [SharedLimits(link, _settings(), fallback=Limits(_settings())) for link in links]
        hits: list[Hit] = [("actions_per_player", "1")]
        try:
            answers = [await both[n % 2].check(hits) for n in range(10)]
            client = links[0].client()
            ttl = await client.pttl("magdagdon:limit:actions_per_player:1")
        finally:
            for link in links:
                await link.close()
        return answers, ttl / 1000

    answers, ttl = _run(alternate)
    assert answers == [None] * 6 + [1] * 4
    assert 3 < ttl <= 4  # full again after 6 / 2 s: then the bucket is forgotten
    separate = [Limits(_settings()), Limits(_settings())]
    alone = [separate[n % 2].hit("actions_per_player", "1") for n in range(10)]
    assert alone.count(None) == 10  # without Redis: a burst each


def test_a_redis_that_is_away_is_tried_again_every_few_seconds(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The limits fall back to the process's own buckets with one log line, no request waits
    on a Redis known to be away, and the sharing comes back with Redis (one line again)."""
    real = redis.Redis.from_url(redis_url).connection_pool.connection_kwargs
    proxy = TcpProxy((real["host"], real["port"]))
    db = real.get("db", 0)
    clock = Clock()
    tries = 0

    async def scenario() -> dict[str, Any]:
        nonlocal tries
        link = RedisLink(f"redis://127.0.0.1:{proxy.port}/{db}", clock=clock)
        limits = SharedLimits(link, _settings(), fallback=Limits(_settings()))
        hits: list[Hit] = [("actions_per_player", "2")]

        async def ping(client: Any) -> Any:
            nonlocal tries
            tries += 1
            return await client.ping()

        seen: dict[str, Any] = {}
        try:
            proxy.stop()
            seen["away"] = [await limits.check(hits) for _ in range(8)]
            seen["available"] = link.available
            for _ in range(5):
                with pytest.raises(RedisUnavailable):
                    await link.run(ping)
            seen["tries while away"] = tries
            proxy.start()
            clock.now += 2.9
            with pytest.raises(RedisUnavailable):
                await link.run(ping)
            clock.now += 0.2
            await link.run(ping)
            seen["tries"] = tries
            seen["available again"] = link.available
            seen["shared"] = [await limits.check(hits) for _ in range(7)]
        finally:
            await link.close()
            proxy.stop()
        return seen

    with caplog.at_level(logging.INFO, logger="magdagdon.web.shared"):
        seen = _run(scenario)
    assert seen["away"] == [None] * 6 + [1] * 2  # the process's own bucket
    assert not seen["available"] and seen["tries while away"] == 0
    assert seen["tries"] == 1 and seen["available again"]
    assert seen["shared"] == [None] * 6 + [1]  # Redis's bucket: full, nothing was counted there
    lines = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert len(lines) == 2, lines
    assert lines[0][0] == "ERROR" and "does not answer" in lines[0][1]
    assert f"127.0.0.1:{proxy.port}/{db}" in lines[0][1]
    assert "answers again" in lines[1][1]


def test_without_a_redis_the_limits_are_the_process_own() -> None:
    """Nothing listens where Redis should be: every request gets this process's limits."""
    clock = Clock()

    async def calls() -> list[int | None]:
        link = RedisLink(f"redis://127.0.0.1:{free_port()}/0", clock=clock)
        limits = SharedLimits(link, _settings(), fallback=Limits(_settings()))
        try:
            return [await limits.check([("games_per_player", "1")]) for _ in range(25)]
        finally:
            await link.close()

    answers = _run(calls)
    assert answers == [None] * 20 + [3] * 5  # 20 a minute, burst 20: the process's own


def test_the_log_never_shows_the_password() -> None:
    assert display_url("redis://user:secret@cache.internal:6380/2") == (
        "redis://cache.internal:6380/2"
    )
    assert display_url("rediss://:pw@[2001:db8::1]/0") == "rediss://[2001:db8::1]/0"


def _review(game_id: str) -> ReviewView:
    return ReviewView(
        id=game_id, difficulty=Difficulty.PEACEFUL, score=123, expected_loss=4.5, turns=[]
    )


def test_reviews_are_shared_through_redis(redis_url: str) -> None:
    async def scenario() -> tuple[ReviewView | None, ReviewView | None, int]:
        links = [RedisLink(redis_url), RedisLink(redis_url)]
        here, there = (ReviewCache(4, remote=link) for link in links)
        try:
            await here.put("abc", _review("abc"))
            found = await there.get("abc")
            missing = await there.get("nope")
            ttl = await links[0].client().ttl(ReviewCache.key("abc"))
        finally:
            for link in links:
                await link.close()
        return found, missing, ttl

    found, missing, ttl = _run(scenario)
    assert found == _review("abc") and missing is None
    assert REVIEW_TTL - 5 < ttl <= REVIEW_TTL


def test_reviews_without_redis_stay_in_the_process() -> None:
    async def scenario() -> tuple[ReviewView | None, ReviewView | None]:
        link = RedisLink(f"redis://127.0.0.1:{free_port()}/0")
        cache = ReviewCache(4, remote=link)
        other = ReviewCache(4, remote=link)
        try:
            await cache.put("abc", _review("abc"))
            return await cache.get("abc"), await other.get("abc")
        finally:
            await link.close()

    assert _run(scenario) == (_review("abc"), None)


def test_two_apps_on_one_redis_hold_a_player_to_one_rate(redis_url: str, tmp_path: Path) -> None:
    """Two apps (as two hosts) on one database and one Redis: a player alternating between
    them gets one burst of actions, then 429 with Retry-After."""
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'm.db'}",
        redis_url=redis_url,
        allow_test_seeds=True,
        player_actions_per_second=2,
    )
    with TestClient(create_app(settings)) as a, TestClient(create_app(settings)) as b:
        view = new_game(a, "peaceful", seed=3)
        b.cookies.update(a.cookies)
        statuses = []
        for n in range(10):
            client = (a, b)[n % 2]
            body = {"version": 0, "action": {"type": "roll"}}
            r = client.post(f"/api/games/{view['id']}/actions", json=body)
            statuses.append(r.status_code)
            if r.status_code == 429:
                assert int(r.headers["retry-after"]) >= 1
                assert r.json()["error"]["code"] == "rate_limited"
    assert statuses == [200] + [409] * 5 + [429] * 4  # one roll, five stale, then the limit


def test_without_the_setting_nothing_imports_redis(tmp_path: Path) -> None:
    code = f"""
import sys
from fastapi.testclient import TestClient
from magdagdon.engine import Difficulty
from magdagdon.settings import Settings
from magdagdon.web.app import create_app
settings = Settings(database_url="sqlite:///{tmp_path / "m.db"}")
with TestClient(create_app(settings)) as client:
    assert client.post("/api/games", json={{"difficulty": "peaceful"}}).status_code == 201
assert "redis" not in sys.modules, "redis was imported"
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_review_made_by_one_app_is_served_by_the_other(
    redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two apps on one database and one Redis: the second answers the first's review without
    reviewing the game again."""
    from magdagdon.web.routes import coach

    made: list[str] = []
    real = coach._review

    def counting(row: Any, turns: Any) -> ReviewView:
        made.append(row.id)
        return real(row, turns)

    monkeypatch.setattr(coach, "_review", counting)
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'm.db'}",
        redis_url=redis_url,
        allow_test_seeds=True,
        rate_limits=False,
    )
    with TestClient(create_app(settings)) as a, TestClient(create_app(settings)) as b:
        final = play_to_end(a, new_game(a, "nightmare", seed=5))
        first = a.get(f"/api/games/{final['id']}/review")
        second = b.get(f"/api/games/{final['id']}/review")
    assert first.status_code == second.status_code == 200
    assert second.json() == first.json() and made == [final["id"]]


@pytest.mark.parametrize("outage", ["restart", "stall"])
def test_a_redis_back_after_an_outage_is_logged_once_each_way(
    redis_url: str, caplog: pytest.LogCaptureFixture, outage: str
) -> None:
    """Connections made before the outage are dropped with it: once Redis answers again no
    stale one fails the next requests, so the log does not flap between "does not answer" and
    "answers again" (an outside probe saw it flap after a Redis restart)."""
    real = redis.Redis.from_url(redis_url).connection_pool.connection_kwargs
    proxy = TcpProxy((real["host"], real["port"]))
    clock = Clock()

    async def scenario() -> list[bool]:
        link = RedisLink(f"redis://127.0.0.1:{proxy.port}/{real.get('db', 0)}", clock=clock)

        async def ping() -> bool:
            try:
                await link.run(lambda client: client.ping())
            except RedisUnavailable:
                return False
            return True

        proxy.start()
        try:
            assert all(await asyncio.gather(*[ping() for _ in range(6)]))  # six connections
            if outage == "restart":
                proxy.stop()
                proxy.start()
            else:
                proxy.stall()
            await asyncio.gather(*[ping() for _ in range(3)])
            if outage == "stall":
                proxy.resume()
            seen = []
            for _ in range(12):
                clock.now += 3.1
                seen += await asyncio.gather(*[ping() for _ in range(4)])
            return seen
        finally:
            await link.close()
            proxy.stop()

    with caplog.at_level(logging.INFO, logger="magdagdon.web.shared"):
        seen = _run(scenario)
    lines = [r.getMessage() for r in caplog.records]
    assert seen[-40:] == [True] * 40, seen
    assert len(lines) == 2 and "does not answer" in lines[0] and "answers again" in lines[1], lines
