"""Rate limits: token buckets per player and per address (answers 429 with Retry-After).

Each server process keeps its own buckets, so with N workers a client can reach up to N
times a limit: the limits are set to stop floods and runaway scripts, not to meter people.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass


@dataclass
class _Bucket:
    tokens: float
    stamp: float


class RateLimiter:
    """Allows ``rate`` events per second for each key, in bursts of up to ``burst``."""

    def __init__(self, rate: float, burst: float, max_keys: int = 100_000) -> None:
        """A limiter; ``rate`` per second, ``burst`` at once."""
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self._buckets: dict[str, _Bucket] = {}
        self._lock = threading.Lock()

    def hit(self, key: str, now: float | None = None) -> int | None:
        """Count one event for ``key``: None if allowed, else the seconds to wait."""
        now = time.monotonic() if now is None else now
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                if len(self._buckets) >= self.max_keys:
                    self._forget_full(now)
                bucket = self._buckets[key] = _Bucket(self.burst, now)
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.stamp) * self.rate)
            bucket.stamp = now
            if bucket.tokens >= 1:
                bucket.tokens -= 1
                return None
            return max(1, math.ceil((1 - bucket.tokens) / self.rate))

    def _forget_full(self, now: float) -> None:
        # Buckets that have refilled completely carry no information: drop them.
        full = [
            k
            for k, b in self._buckets.items()
            if b.tokens + (now - b.stamp) * self.rate >= self.burst
        ]
        for key in full:
            del self._buckets[key]
        if len(self._buckets) >= self.max_keys:  # still full: start afresh rather than grow
            self._buckets.clear()


@dataclass
class Limits:
    """The limiters of one app."""

    actions_per_player: RateLimiter
    actions_per_address: RateLimiter
    games_per_player: RateLimiter
    games_per_address: RateLimiter
    players_per_address: RateLimiter
    coach_per_player: RateLimiter
    coach_per_address: RateLimiter
