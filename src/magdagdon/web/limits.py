"""Rate limits, and the per-turn bound of the rules (R17) as the API applies it.

Rate limits: token buckets per player and per address (answers 429 with Retry-After).

Without ``MAGDAGDON_REDIS_URL`` each server process keeps its own buckets (:class:`Limits`),
so with N processes a client can reach up to N times a limit: the limits are set to stop
floods and runaway scripts, not to meter people. With it the buckets are shared through Redis
(``web/shared.py``), the same buckets in one place, and these are the fallback while Redis
is away.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from ..engine import TURN_ACTIONS as TURN_ACTIONS  # the bound (R17), where it was
from ..engine import Action, Game
from ..settings import Settings


def check_turn_bound(game: Game, action: Action) -> None:
    """Raise ``RuleViolation("turn_action_limit")`` for an action that a turn past
    :data:`~magdagdon.engine.TURN_ACTIONS` does not accept: the engine's rule R17
    (:meth:`Game.bound_violation <magdagdon.engine.Game.bound_violation>`), which
    :meth:`Game.apply <magdagdon.engine.Game.apply>` enforces too; checked first here so that
    nothing is stored of a refused action."""
    problem = game.bound_violation(action)
    if problem is not None:
        raise problem


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


@dataclass(frozen=True)
class Limit:
    """One rate limit: the setting that holds its rate, the setting's unit in seconds, and
    the burst (how much may be spent at once) in units of that rate."""

    setting: str
    unit: float
    burst: float

    def limiter(self, settings: Settings) -> RateLimiter:
        """The limiter for these settings."""
        rate: float = getattr(settings, self.setting)
        return RateLimiter(rate / self.unit, self.burst * rate)


SECOND: Final = 1.0
MINUTE: Final = 60.0
HOUR: Final = 3600.0
LIMITS: Final = {
    "actions_per_player": Limit("player_actions_per_second", SECOND, 3),
    "actions_per_address": Limit("address_actions_per_second", SECOND, 3),
    "games_per_player": Limit("player_games_per_minute", MINUTE, 1),
    "games_per_address": Limit("address_games_per_minute", MINUTE, 1),
    "players_per_address": Limit("address_players_per_minute", MINUTE, 20),
    "accounts_per_address": Limit("address_accounts_per_hour", HOUR, 0.5),
    "sign_ins_per_address": Limit("address_sign_ins_per_hour", HOUR, 0.5),
    "sign_ins_per_network": Limit("network_sign_ins_per_hour", HOUR, 0.5),
    "codes_per_account": Limit("account_codes_per_hour", HOUR, 0.5),
    # challenges' and league invites' codes looked up (guessable, as transfer codes are)
    "links_per_address": Limit("address_links_per_hour", HOUR, 0.5),
    "links_per_network": Limit("network_links_per_hour", HOUR, 0.5),
    # puzzles given and attempted (a bound on harvesting answers with throwaway players)
    "puzzles_per_player": Limit("player_puzzles_per_hour", HOUR, 0.25),
    "puzzles_per_address": Limit("address_puzzles_per_hour", HOUR, 0.25),
    "puzzles_per_network": Limit("network_puzzles_per_hour", HOUR, 0.25),
    # challenges made (each has the coach play its dice in the background)
    "challenges_per_player": Limit("player_challenges_per_hour", HOUR, 0.25),
    "challenges_per_address": Limit("address_challenges_per_hour", HOUR, 0.25),
    # live rooms made (each holds its members' games turn by turn)
    "rooms_per_player": Limit("player_rooms_per_hour", HOUR, 0.25),
    "rooms_per_address": Limit("address_rooms_per_hour", HOUR, 0.25),
    # finished games searched for the player's own puzzles (background work too)
    "searches_per_player": Limit("player_searches_per_hour", HOUR, 0.25),
    "searches_per_address": Limit("address_searches_per_hour", HOUR, 0.25),
    "coach_per_player": Limit("player_coach_per_minute", MINUTE, 1 / 3),
    "coach_per_address": Limit("address_coach_per_minute", MINUTE, 1 / 3),
    # replays: as many as hints and reviews (a finished game's log, to anyone)
    "replays_per_player": Limit("player_coach_per_minute", MINUTE, 1 / 3),
    "replays_per_address": Limit("address_coach_per_minute", MINUTE, 1 / 3),
}
"""Every rate limit by name: its rate's setting, and its burst (README's table)."""


Hit = tuple[str, str]
"""One event against a limit: the name of a :data:`LIMITS` entry and the key (a player's id,
an address)."""


class RateLimits(Protocol):
    """What the app's ``state.limits`` offers: :class:`Limits` or the shared limits."""

    async def check(self, hits: Sequence[Hit]) -> int | None:
        """Count the events in order up to the first refused one: None if all are allowed,
        else the seconds to wait (the events after a refused one are not counted)."""
        ...


class Limits:
    """The limiters of one process, by the names of :data:`LIMITS`."""

    def __init__(self, settings: Settings) -> None:
        """The limiters the settings ask for."""
        self._limiters = {name: limit.limiter(settings) for name, limit in LIMITS.items()}

    def hit(self, name: str, key: str) -> int | None:
        """Count one event for ``key`` against the limit ``name``: None if allowed, else the
        seconds to wait."""
        return self._limiters[name].hit(key)

    def check_now(self, hits: Sequence[Hit]) -> int | None:
        """:meth:`check`, without the event loop (for callers that are not async)."""
        for name, key in hits:
            wait = self.hit(name, key)
            if wait is not None:
                return wait
        return None

    async def check(self, hits: Sequence[Hit]) -> int | None:
        """Count the events in order up to the first refused one: None if all are allowed,
        else the seconds to wait. In memory, so it never waits."""
        return self.check_now(hits)
