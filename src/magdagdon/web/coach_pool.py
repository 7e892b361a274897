"""The coach's work (hints, reviews, the daily's par) in processes of its own.

The strong player's search is CPU work that holds Python's interpreter lock: run on a thread
of the server process, forty reviews at once made every other player's actions wait (an
outside probe measured their p99 going from 16 ms to 3.7 s). Here it runs in a pool of
worker processes (``MAGDAGDON_COACH_PROCESSES`` per server process), so the server process
only waits for answers and the game's requests never queue behind a search.

The pool is bounded: at most ``processes + MAGDAGDON_COACH_QUEUE`` jobs are in hand at once
(running or waiting), and at most ``MAGDAGDON_ADDRESS_COACH_AT_ONCE`` of them for one
address. Past those a request is refused at once, before any work: 429 ``rate_limited`` for
the address, 503 ``coach_busy`` when the whole pool is full, each with ``Retry-After``. A
daily's par is never refused (one per daily and day, whichever worker claims it).
"""

from __future__ import annotations

import asyncio
import logging
import math
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

from ..ai import coach
from ..engine import Game
from .errors import ApiError
from .workers import exit_with_parent

log = logging.getLogger("magdagdon.coach")
T = TypeVar("T")


def _start_child() -> None:
    """In each coach process: yield the CPU to the game's requests (a lower priority), end
    with the server process, and load the strong player now (its weights and tables), not
    during the first hint."""
    with suppress(OSError):
        os.nice(10)
    exit_with_parent()
    coach.new_player()


def hint_dict(game: Game) -> dict[str, Any]:
    """The coach's hint for ``game``, as the API's JSON (run in a coach process)."""
    return coach.hint(game).to_dict()


def review_dicts(game: Game) -> list[dict[str, Any]]:
    """The coach's review of a finished ``game``, turn by turn (run in a coach process)."""
    return [turn.to_dict() for turn in coach.review(game)]


class CoachPool:
    """Worker processes for the coach, bounded in total and per address (module docstring).

    Used from the server's event loop only (its counts need no lock). The processes start
    with the first job and are replaced if one dies."""

    def __init__(self, processes: int, queue: int, per_address: int) -> None:
        self.processes = processes
        self.capacity = processes + queue
        self.per_address = per_address
        self.in_flight = 0
        """Jobs submitted and not finished (the par's included)."""
        self.held = 0
        """Hints and reviews in hand (:meth:`slot`), whether their job started or not."""
        self._by_address: dict[str, int] = {}
        self._pool: ProcessPoolExecutor | None = None
        self._seconds = 0.5  # a job's recent duration (moving average), for Retry-After

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn: a fresh interpreter (forking a process with threads and an event loop
            # running is unsafe), which imports only what the coach needs.
            self._pool = ProcessPoolExecutor(
                self.processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_child,
            )
        return self._pool

    def _retry_after(self) -> int:
        waits = (max(self.held, self.in_flight) / self.processes) * self._seconds
        return max(1, math.ceil(waits))

    def _refusal(self, status: int, code: str, why: str) -> ApiError:
        wait = str(self._retry_after())
        return ApiError(
            status, code, f"{why}: try again in {wait} s.", headers={"Retry-After": wait}
        )

    @contextmanager
    def slot(self, address: str) -> Iterator[None]:
        """Hold a place for one hint or review of ``address`` while the request lasts;
        refused at once (429 or 503, with ``Retry-After``) when there is none, before the
        request does any other work."""
        if self._by_address.get(address, 0) >= self.per_address:
            raise self._refusal(
                429, "rate_limited", "Your hints and reviews are still being worked on"
            )
        if self.held >= self.capacity:
            raise self._refusal(503, "coach_busy", "The coach is busy with other players")
        self.held += 1
        self._by_address[address] = self._by_address.get(address, 0) + 1
        try:
            yield
        finally:
            self.held -= 1
            left = self._by_address[address] - 1
            if left:
                self._by_address[address] = left
            else:
                del self._by_address[address]

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in a coach process (a hint or review within its :meth:`slot`; the
        par, which is never refused, waits its turn)."""
        self.in_flight += 1
        started = time.monotonic()
        try:
            future = self._executor().submit(work, *args)
            result: T = await asyncio.wrap_future(future)
        except BrokenProcessPool:
            log.error("a coach process died: starting new ones")
            self._reset()
            raise ApiError(
                503,
                "coach_busy",
                "The coach stopped while working: try again.",
                headers={"Retry-After": "1"},
            ) from None
        finally:
            self.in_flight -= 1
        took = time.monotonic() - started
        self._seconds = 0.8 * self._seconds + 0.2 * took
        return result

    def _reset(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the processes (the server is stopping); jobs not started are dropped."""
        self._reset()
