"""The reviews an app keeps: in this process, and through Redis for every process when
``MAGDAGDON_REDIS_URL`` is set (a review costs up to a few hundred ms of CPU, and a finished
game's review never changes, so one process's work serves every host)."""

from __future__ import annotations

from typing import Final, Protocol

from pydantic import ValidationError

from .. import __version__
from ..lru import LruCache
from .schemas import ReviewView

REVIEW_TTL: Final = 24 * 3600.0
"""Seconds a review stays in Redis (each process keeps its most recent ones as well)."""


class Remote(Protocol):
    """Values shared by every process (Redis); an unavailable one misses and forgets."""

    async def get(self, key: str) -> bytes | None:
        """The value of ``key``, or None (also when the store does not answer)."""
        ...

    async def set(self, key: str, value: bytes, ttl: float) -> None:
        """Keep ``value`` for ``ttl`` seconds (nothing happens when the store does not answer)."""
        ...

    async def delete(self, *keys: str) -> bool:
        """Delete the keys; False when the store does not answer."""
        ...


class ReviewCache:
    """Reviews by game id: the ``size`` most recent in this process, and every review for
    :data:`REVIEW_TTL` in ``remote`` when there is one. Remote entries are JSON, under a key
    that names this version of the server (another version may review differently)."""

    def __init__(self, size: int, remote: Remote | None = None) -> None:
        """An empty cache."""
        self._local = LruCache[str, ReviewView](size)
        self._remote = remote

    @staticmethod
    def key(game_id: str) -> str:
        """The remote key of a game's review."""
        return f"magdagdon:{__version__}:review:{game_id}"

    async def get(self, game_id: str) -> ReviewView | None:
        """The review of ``game_id`` if this process or the remote store has it."""
        found = self._local.get(game_id)
        if found is not None or self._remote is None:
            return found
        data = await self._remote.get(self.key(game_id))
        if data is None:
            return None
        try:
            found = ReviewView.model_validate_json(data)
        except ValidationError:  # not what this version writes: review again
            return None
        self._local.put(game_id, found)
        return found

    async def forget(self, game_ids: list[str]) -> bool:
        """Forget the reviews of these games, here and in the remote store (their player was
        deleted: a review holds the game's rolls, moves and boards). False when the remote
        store did not answer: there they expire after :data:`REVIEW_TTL`."""
        for game_id in game_ids:
            self._local.discard(game_id)
        if self._remote is None:
            return True
        return await self._remote.delete(*(self.key(g) for g in game_ids))

    async def put(self, game_id: str, review: ReviewView) -> None:
        """Keep the review of ``game_id`` here and in the remote store."""
        self._local.put(game_id, review)
        if self._remote is not None:
            await self._remote.set(self.key(game_id), review.model_dump_json().encode(), REVIEW_TTL)
