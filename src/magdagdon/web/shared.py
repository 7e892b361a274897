"""What every server process shares through Redis when ``MAGDAGDON_REDIS_URL`` is set: the
rate limits' token buckets (:class:`SharedLimits`), the reviews (``caches.ReviewCache``
with a :class:`RedisLink` as its remote store) and live rooms' news (:class:`RoomChannel`).

Only ``create_app`` imports this module, and only with the setting, so a server without Redis
never imports the client library (the ``redis`` extra: ``pip install 'magdagdon[redis]'``).

Redis is a help, never a dependency: every call has a short timeout (:data:`TIMEOUT`), runs
on the event loop without blocking it (``redis.asyncio``), and while Redis does not answer
the limits are each process's own again (:class:`~magdagdon.web.limits.Limits`) and reviews
are kept per process. One line is logged when Redis goes away and one when it is back; it is
tried again at most every :data:`RETRY_EVERY` seconds, by one request while the others go on
without it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, TypeVar
from urllib.parse import urlsplit

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import NoScriptError, RedisError

from ..settings import Settings
from .limits import LIMITS, Hit, Limits

log = logging.getLogger(__name__)

TIMEOUT: Final = 0.25
"""Seconds a Redis call may take (to connect, or for an answer) before Redis counts as away.
A call takes about a tenth of a millisecond on a local network."""
RETRY_EVERY: Final = 3.0
"""Seconds between tries while Redis is away."""
PREFIX: Final = "magdagdon:limit:"
"""The keys of the buckets: ``magdagdon:limit:<limit>:<key>``, a hash of tokens and stamp."""

T = TypeVar("T")


class RedisUnavailable(Exception):
    """Redis did not answer (or is taken to be away until the next try)."""


def display_url(url: str) -> str:
    """The URL without its user and password, for log lines."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


class RedisLink:
    """One process's connection to Redis, which notes when Redis goes away and comes back.

    The client is made on first use in the running event loop and closed by :meth:`close`
    (the app's lifespan), so each event loop gets its own connections.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float = TIMEOUT,
        retry_every: float = RETRY_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """A link to the Redis at ``url``; nothing connects yet."""
        self.url = url
        self.where = display_url(url)
        self.timeout = timeout
        self.retry_every = retry_every
        self._clock = clock
        self._client: aioredis.Redis | None = None
        self._away_since: float | None = None
        self._next_try = 0.0

    @property
    def available(self) -> bool:
        """False from a failed call until one succeeds again."""
        return self._away_since is None

    def client(self) -> aioredis.Redis:
        """The client (made now if need be): no retries, short timeouts."""
        if self._client is None:
            self._client = aioredis.Redis.from_url(
                self.url,
                socket_timeout=self.timeout,
                socket_connect_timeout=self.timeout,
                retry=Retry(NoBackoff(), 0),
            )
        return self._client

    async def run(self, call: Callable[[aioredis.Redis], Awaitable[T]]) -> T:
        """``call(client)``'s answer; :class:`RedisUnavailable` at once while Redis is away
        (but for one try every :data:`RETRY_EVERY` seconds), or when it fails now."""
        if self._away_since is not None:
            now = self._clock()
            if now < self._next_try:
                raise RedisUnavailable(f"Redis at {self.where} is away")
            self._next_try = now + self.retry_every  # this request tries; the others go on
        client = self.client()
        try:
            answer = await call(client)
        except (RedisError, OSError) as exc:
            self._went_away(exc)
            # Every pooled connection was made before the outage: were one kept, the first
            # request to draw it after Redis is back would fail again, and the log flap.
            with contextlib.suppress(RedisError, OSError):
                await client.connection_pool.disconnect()
            raise RedisUnavailable(str(exc)) from exc
        if self._away_since is not None:
            away = self._clock() - self._away_since
            self._away_since = None
            log.warning(
                "Redis at %s answers again after %.0f s: rate limits and reviews are shared again",
                self.where,
                away,
            )
        return answer

    def _went_away(self, exc: BaseException) -> None:
        now = self._clock()
        self._next_try = now + self.retry_every
        if self._away_since is None:
            self._away_since = now
            log.error(
                "Redis at %s does not answer (%s: %s): each process keeps its own rate limits "
                "and reviews until it does; trying again every %g s",
                self.where,
                type(exc).__name__,
                exc,
                self.retry_every,
            )

    async def start(self) -> None:
        """Say in the log whether Redis answers (the server starts either way)."""
        try:
            await self.run(lambda client: client.ping())
        except RedisUnavailable:
            return
        log.info("rate limits and reviews are shared through Redis at %s", self.where)

    async def close(self) -> None:
        """Close the connections (a later call makes new ones)."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    async def get(self, key: str) -> bytes | None:
        """The value of ``key``; None when there is none or Redis is away."""
        try:
            value = await self.run(lambda client: client.get(key))
        except RedisUnavailable:
            return None
        return value.encode() if isinstance(value, str) else value

    async def set(self, key: str, value: bytes, ttl: float) -> None:
        """Set ``key`` for ``ttl`` seconds; nothing when Redis is away."""
        try:
            await self.run(lambda client: client.set(key, value, px=max(1, round(ttl * 1000))))
        except RedisUnavailable:
            return

    async def delete(self, *keys: str) -> bool:
        """Delete the keys; False when Redis is away (they stay until they expire)."""
        if not keys:
            return True
        try:
            await self.run(lambda client: client.delete(*keys))
        except RedisUnavailable:
            return False
        return True


BUCKETS: Final = """
-- Token buckets, as web/limits.py's RateLimiter keeps them in memory: KEYS are the buckets
-- and ARGV their rates (per second) and bursts, two numbers per key. In order, each bucket
-- refills for the time since it was last touched and gives a token; at the first without
-- one, it answers the seconds to wait and the rest are not counted. 0: all were allowed.
-- Redis's clock, so the hosts' clocks need not agree.
local time = redis.call('TIME')
local now = tonumber(time[1]) + tonumber(time[2]) / 1000000
for i, key in ipairs(KEYS) do
  local rate = tonumber(ARGV[2 * i - 1])
  local burst = tonumber(ARGV[2 * i])
  local state = redis.call('HMGET', key, 'tokens', 'stamp')
  local tokens = tonumber(state[1]) or burst
  local stamp = tonumber(state[2]) or now
  tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
  local wait = 0
  if tokens >= 1 then
    tokens = tokens - 1
  else
    wait = math.max(1, math.ceil((1 - tokens) / rate))
  end
  redis.call('HSET', key, 'tokens', string.format('%.17g', tokens),
             'stamp', string.format('%.6f', now))
  -- a bucket left alone this long is full again: forgetting it changes nothing
  redis.call('PEXPIRE', key, math.ceil(burst / rate * 1000) + 1000)
  if wait > 0 then
    return wait
  end
end
return 0
"""
_BUCKETS_SHA: Final = hashlib.sha1(BUCKETS.encode()).hexdigest()


class SharedLimits:
    """The rate limits of :data:`~magdagdon.web.limits.LIMITS` as token buckets in Redis,
    shared by every process and host: one atomic script per request, whatever the number of
    limits it counts against. While Redis is away, ``fallback`` (this process's buckets)."""

    def __init__(self, link: RedisLink, settings: Settings, fallback: Limits) -> None:
        """The limits the settings ask for, kept through ``link``."""
        self.link = link
        self.fallback = fallback
        self._params: dict[str, tuple[str, str]] = {}
        for name, limit in LIMITS.items():
            limiter = limit.limiter(settings)
            self._params[name] = (repr(limiter.rate), repr(limiter.burst))

    async def check(self, hits: Sequence[Hit]) -> int | None:
        """Count the events in order up to the first refused one: None if all are allowed,
        else the seconds to wait (see :class:`~magdagdon.web.limits.RateLimits`)."""
        if not hits:
            return None
        keys = [f"{PREFIX}{name}:{key}" for name, key in hits]
        args = [value for name, _ in hits for value in self._params[name]]

        async def buckets(client: aioredis.Redis) -> Any:
            try:
                return await client.evalsha(_BUCKETS_SHA, len(keys), *keys, *args)
            except NoScriptError:  # a new or restarted Redis: send the script itself
                return await client.eval(BUCKETS, len(keys), *keys, *args)

        try:
            wait = int(await self.link.run(buckets))
        except RedisUnavailable:
            return await self.fallback.check(hits)
        return wait or None


ROOMS_CHANNEL: Final = "magdagdon:rooms"
"""The pub/sub channel of live rooms' news: a message is the code of a room that changed."""


class RoomChannel:
    """Live rooms' news between server processes and hosts (``web/live.py``): a process that
    changed a room publishes its code; every process's subscriber wakes its own connections
    to that room, which read the room's new events from the database (the truth: a message is
    only a nudge, and one lost costs the connection's next regular read, never an event).

    While the subscription is down (Redis away or restarted) :attr:`subscribed` is False and
    the connections read the database every second as without Redis; once it is back every
    connection of the process is woken once, for whatever it may have missed.
    """

    def __init__(self, link: RedisLink, wake: Callable[[str | None], None]) -> None:
        """News through ``link``'s Redis; ``wake(code)`` wakes a room's connections (None:
        all of them)."""
        self.link = link
        self.wake = wake
        self.subscribed = False

    async def publish(self, code: str) -> None:
        """Say that room ``code`` changed (nothing when Redis is away). While this process's
        own subscription is up, Redis is there: the news go out at once, not on the link's
        schedule of tries after an outage (which would hold back the first news after a
        restart, each costing the others a read's wait)."""
        if self.subscribed:
            with contextlib.suppress(RedisError, OSError):
                await self.link.client().publish(ROOMS_CHANNEL, code)
            return
        with contextlib.suppress(RedisUnavailable):
            await self.link.run(lambda client: client.publish(ROOMS_CHANNEL, code))

    async def run(self) -> None:
        """Subscribe and wake the rooms named, until cancelled; subscribe again after a
        failure, every :attr:`RedisLink.retry_every` seconds."""
        while True:
            client = aioredis.Redis.from_url(
                self.link.url, socket_connect_timeout=self.link.timeout, retry=Retry(NoBackoff(), 0)
            )
            try:
                async with client.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await pubsub.subscribe(ROOMS_CHANNEL)
                    self.subscribed = True
                    self.wake(None)  # (what came while unsubscribed)
                    while True:
                        message = await pubsub.get_message(timeout=5.0)
                        if message is None:
                            await pubsub.ping()  # a dead connection is found out
                            continue
                        data = message.get("data")
                        if message.get("type") == "message" and isinstance(data, bytes):
                            self.wake(data.decode("ascii", "replace"))
            except (RedisError, OSError) as exc:
                if self.subscribed:
                    log.warning("live rooms' news from Redis stopped (%s): read each second", exc)
            finally:
                if self.subscribed:  # every connection back to reading each second, now
                    self.subscribed = False
                    self.wake(None)
                with contextlib.suppress(RedisError, OSError):
                    await client.aclose()
            await asyncio.sleep(self.link.retry_every)
