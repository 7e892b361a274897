"""A small thread-safe least-recently-used cache, shared by the store and the web layer.

>>> cache: LruCache[str, int] = LruCache(2)
>>> cache.put("a", 1); cache.put("b", 2); cache.get("a"); cache.put("c", 3)
1
>>> cache.get("b") is None, cache.get("a"), cache.get("c")
(True, 1, 3)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LruCache(Generic[K, V]):
    """Up to ``size`` entries; the least recently used goes first. ``copy`` (if given) is
    applied on the way in and out, for values the callers may change."""

    def __init__(self, size: int, copy: Callable[[V], V] | None = None) -> None:
        """An empty cache."""
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self._size = size
        self._copy = copy

    def get(self, key: K) -> V | None:
        """The value of ``key`` (now the most recently used), or None."""
        with self._lock:
            value = self._entries.get(key)
            if value is None:
                return None
            self._entries.move_to_end(key)
        return self._copy(value) if self._copy else value

    def put(self, key: K, value: V) -> None:
        """Remember ``value`` for ``key``."""
        stored = self._copy(value) if self._copy else value
        with self._lock:
            self._entries[key] = stored
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def discard(self, key: K) -> None:
        """Forget ``key``'s entry, if there is one."""
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()
