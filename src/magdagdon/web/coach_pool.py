"""The coach's work (hints, reviews, puzzle grading; the par, a challenge's coach score and
the search of a player's games for puzzles) in processes of its own.

The strong player's search is CPU work that holds Python's interpreter lock: run on a thread
of the server process, forty reviews at once made every other player's actions wait (an
outside probe measured their p99 going from 16 ms to 3.7 s). Here it runs in worker
processes, so the server process only waits for answers and the game's requests never queue
behind a search.

**Interactive work** (a hint, a review, a puzzle graded: a player waits for it) runs in
``MAGDAGDON_COACH_PROCESSES`` processes per server process. It is bounded: at most
``processes + MAGDAGDON_COACH_QUEUE`` jobs are in hand at once (running or waiting), and at
most ``MAGDAGDON_ADDRESS_COACH_AT_ONCE`` of them for one address. Past those a request is
refused at once, before any work: 429 ``rate_limited`` for the address, 503 ``coach_busy``
when the whole pool is full, each with ``Retry-After``.

**Background work** (:class:`Background`: a daily's par, a challenge's coach score, a
player's finished games searched for their own puzzles: nobody waits for it) has processes of
its own (``MAGDAGDON_BACKGROUND_PROCESSES``, at a lower priority still), so interactive work
never waits behind it: an outside probe queued 231 challenges' scores from one address and
another player's hint took 112 s. Its queue is bounded in total
(``MAGDAGDON_BACKGROUND_QUEUE``) and per owner (``MAGDAGDON_BACKGROUND_AT_ONCE`` for each of
the player, the address and the network that asked), and work for the same thing (the same
challenge, the same game) is queued once. Work refused is not lost: what asked for it asks
again later (a challenge's results without a coach score, the next look at the player's
puzzles). A daily's par is never refused (one per daily and day, whichever worker claims it).

**Searches go last.** A search of a player's games for puzzles (``low``) takes from a few
seconds to a minute of CPU a game, where a par or a coach score takes under one: a search
waiting for a process lets any other waiting work go first, and searches hold at most half of
the queue, so a room's or a challenge's coach score never queues behind (nor is refused for)
a crowd of searches.
"""

from __future__ import annotations

import asyncio
import logging
import math
import multiprocessing
import time
from collections import deque
from collections.abc import Awaitable, Callable, Hashable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, TypeVar

from .coach_work import BACKGROUND_NICENESS, INTERACTIVE_NICENESS, start_child
from .errors import ApiError

log = logging.getLogger("magdagdon.coach")
T = TypeVar("T")


def _executor(processes: int, niceness: int) -> ProcessPoolExecutor:
    # forkserver: each coach process is forked from a fork server, a fresh interpreter started
    # once per server process that has imported what the coach needs (forking the server
    # itself, with its threads and event loop running, is unsafe). A process then starts in
    # about 20 ms of CPU, where a fresh interpreter for each took 0.2-0.4 s.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([start_child.__module__])
    return ProcessPoolExecutor(
        processes, mp_context=context, initializer=start_child, initargs=(niceness,)
    )


async def _run_in(pool: ProcessPoolExecutor, work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` in one of the pool's processes. The job is handed over on a thread: a
    process the pool starts for it is asked of the fork server, and that waits for the fork
    (for the fork server's own start too, the first time: about 0.15 s in which the event loop
    would serve nobody). A process that cannot be started (the fork server gone, its socket
    removed by a cleaner of temporary files) is a broken pool, as a process that died is."""
    try:
        future = await asyncio.to_thread(pool.submit, work, *args)
    except (OSError, EOFError) as exc:
        raise BrokenProcessPool(f"a coach process could not be started: {exc}") from exc
    return await asyncio.wrap_future(future)


class CoachPool:
    """Worker processes for the coach, bounded in total and per address (module docstring).

    Used from the server's event loop only (its counts need no lock). The processes start
    with the first job and are replaced if one dies."""

    def __init__(self, processes: int, queue: int, per_address: int) -> None:
        self.processes = processes
        self.capacity = processes + queue
        self.per_address = per_address
        self.in_flight = 0
        """Jobs submitted and not finished."""
        self.held = 0
        """Hints and reviews in hand (:meth:`slot`), whether their job started or not."""
        self._by_address: dict[str, int] = {}
        self._pool: ProcessPoolExecutor | None = None
        self._seconds = 0.5  # a job's recent duration (moving average), for Retry-After

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = _executor(self.processes, INTERACTIVE_NICENESS)
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
        """``work(*args)`` in a coach process (a hint, a review or a grading within its
        :meth:`slot`)."""
        self.in_flight += 1
        started = time.monotonic()
        pool = self._executor()
        try:
            result: T = await _run_in(pool, work, *args)
        except BrokenProcessPool:
            log.error("a coach process died: starting new ones")
            if self._pool is pool:  # (not a newer one another job started meanwhile)
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


class BackgroundRefused(Exception):
    """Background work not queued: its owner, or the whole queue, has no room now."""

    def __init__(self, owner: str | None) -> None:
        super().__init__(owner or "queue full")
        self.owner = owner
        """The owner (player, address or network key) that has no room; None: the queue."""


class Background:
    """Processes for work nobody waits for, apart from the interactive coach (module
    docstring): bounded in total and per owner, the same work queued once.

    A job is an async function (it may read the database, has its CPU work done with
    :meth:`process`, and stores the result); it holds its place from :meth:`submit` until it
    ends. Used from the server's event loop only (its counts need no lock). At most
    ``processes`` pieces of work are in the processes at once; the others wait their turn in
    the order they came, ``low`` work (a search) after all the rest.
    """

    def __init__(self, processes: int, queue: int, per_owner: int) -> None:
        self.processes = processes
        self.capacity = processes + queue
        self.per_owner = per_owner
        self._jobs: dict[Hashable, asyncio.Task[Any]] = {}
        self._owners: dict[Hashable, tuple[str, ...]] = {}
        self._by_owner: dict[str, int] = {}
        self._low: set[Hashable] = set()
        self._free = processes
        self._waiting: tuple[deque[asyncio.Future[None]], deque[asyncio.Future[None]]] = (
            deque(),
            deque(),
        )
        self._pool: ProcessPoolExecutor | None = None
        self._generation = 0  # (a turn taken before close is not given back after it)

    @property
    def waiting(self) -> int:
        """Work waiting for a process."""
        return sum(not turn.done() for line in self._waiting for turn in line)

    @property
    def low_capacity(self) -> int:
        """Searches (``low`` jobs) that may be in hand at once: half of the queue."""
        return max(1, self.capacity // 2)

    @property
    def queued(self) -> int:
        """Jobs in hand (running or waiting)."""
        return len(self._jobs)

    def owned(self, owner: str) -> int:
        """Jobs in hand that ``owner`` asked for."""
        return self._by_owner.get(owner, 0)

    def __contains__(self, key: Hashable) -> bool:
        """Whether the job ``key`` is in hand."""
        return key in self._jobs

    def submit(
        self,
        key: Hashable,
        job: Callable[[], Awaitable[T]],
        *,
        owners: Sequence[str] = (),
        bounded: bool = True,
        low: bool = False,
    ) -> asyncio.Task[T]:
        """Start the job ``key`` (or give the one of that key already in hand), counted
        against each of ``owners`` until it ends; its task (await it through
        :func:`asyncio.shield` where the waiter may be cancelled). :class:`BackgroundRefused`,
        with nothing started, when an owner or (``bounded``) the whole queue has no room, or
        (``low``: a search) the searches already hold :attr:`low_capacity`."""
        found = self._jobs.get(key)
        if found is not None:
            return found
        if bounded:
            if len(self._jobs) >= self.capacity:
                raise BackgroundRefused(None)
            if low and len(self._low) >= self.low_capacity:
                raise BackgroundRefused(None)
            for owner in owners:
                if self._by_owner.get(owner, 0) >= self.per_owner:
                    raise BackgroundRefused(owner)
        task: asyncio.Task[T] = asyncio.ensure_future(job())
        self._jobs[key] = task
        self._owners[key] = tuple(owners)
        if low:
            self._low.add(key)
        for owner in owners:
            self._by_owner[owner] = self._by_owner.get(owner, 0) + 1
        task.add_done_callback(lambda done: self._done(key, done))
        return task

    def _done(self, key: Hashable, task: asyncio.Task[Any]) -> None:
        if self._jobs.get(key) is not task:
            return  # (dropped by close: its places were given back then)
        del self._jobs[key]
        self._low.discard(key)
        for owner in self._owners.pop(key, ()):
            left = self._by_owner[owner] - 1
            if left:
                self._by_owner[owner] = left
            else:
                del self._by_owner[owner]

    async def _turn(self, low: bool) -> None:
        """Wait for a free process: first come, first served, ``low`` after all the rest."""
        if self._free > 0 and not any(self._waiting):
            self._free -= 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        line = self._waiting[1 if low else 0]
        line.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._give_back()  # (given the turn just as it was cancelled: passed on)
            elif turn in line:  # (not emptied by close meanwhile)
                line.remove(turn)
            raise

    def _give_back(self) -> None:
        """A process is free again: to the first waiting (not ``low`` first), else kept."""
        for line in self._waiting:
            while line:
                turn = line.popleft()
                if not turn.done():
                    turn.set_result(None)
                    return
        self._free += 1

    async def process(self, work: Callable[..., T], *args: Any, low: bool = False) -> T:
        """``work(*args)`` in a background process, when one is free (``low``: when no other
        work waits for one)."""
        await self._turn(low)
        generation = self._generation
        try:
            if self._pool is None:
                self._pool = _executor(self.processes, BACKGROUND_NICENESS)
            pool = self._pool
            try:
                return await _run_in(pool, work, *args)
            except BrokenProcessPool:
                log.error("a background process died: starting new ones")
                if self._pool is pool:  # (not a newer one another job started meanwhile)
                    self._reset()
                raise
        finally:
            if generation == self._generation:
                self._give_back()

    def _reset(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the processes (the server is stopping); jobs not finished are dropped, and the
        next event loop (an app started again, in tests) begins afresh."""
        for task in list(self._jobs.values()):
            task.cancel()
        self._jobs.clear()
        self._owners.clear()
        self._by_owner.clear()
        self._low.clear()
        self._free = self.processes
        self._waiting = (deque(), deque())
        self._generation += 1
        self._reset()
