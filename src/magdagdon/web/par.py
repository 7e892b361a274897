"""The par of a daily game: the strong player's score on the day's dice, computed once per
daily in the background, by whichever worker claims it first (see
:meth:`~magdagdon.store.daily.Dailies.claim_par`).

The strong player decides on a :meth:`~magdagdon.engine.Game.search_copy` of the game, which
has no dice stream: it knows only what a player knows (the board, the dice rolled, the powers
left), never a roll to come.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from collections.abc import Callable
from datetime import date

from fastapi import FastAPI

from ..engine import Difficulty
from ..store import Store
from .coach_pool import Background
from .coach_work import play_par
from .deps import run_store

log = logging.getLogger("magdagdon.par")

HEARTBEAT = 10.0
"""Seconds between the renewals of a claim while its par is computed (a claim not renewed
for ``store.daily.PAR_CLAIM_STALE``, 40 s, is taken over: its worker died)."""
RETRY_AFTER = 15.0
"""Seconds before a process asks again for a par it could not claim (when a request wants
the par: a leaderboard, a finished daily). A worker that dies computing a par is replaced
within a minute: its claim is stale 40 s after its last renewal, and asked for again within
15 s after that."""
WORKER = f"{socket.gethostname()}:{os.getpid()}"


# The par is computed in the background, outside any request: each of its database calls has
# the database's timeout of its own (``budget``), not the deadline of the request that asked.


async def compute_par(app: FastAPI, day: date, difficulty: Difficulty) -> int | None:
    """Claim the daily's par and compute it; None when another worker has it in hand."""
    store: Store = app.state.store
    if not await run_store(
        store, lambda: store.claim_par(day, difficulty, WORKER), budget=store.db.timeout
    ):
        return None
    started = time.perf_counter()
    heartbeat = asyncio.create_task(_renew(store, day, difficulty))
    background: Background = app.state.background
    try:
        seed = await run_store(
            store, lambda: store.daily_seed(day, difficulty), budget=store.db.timeout
        )
        par = await background.process(play_par, difficulty, seed)
        await run_store(
            store, lambda: store.save_par(day, difficulty, par), budget=store.db.timeout
        )
    except Exception:
        # the claim goes (with this process's memory of asking), so the next request asks
        # again; a process stopped meanwhile leaves its claim to go stale instead
        app.state.par_asked.pop((day, difficulty), None)
        await run_store(
            store, lambda: store.release_par(day, difficulty, WORKER), budget=store.db.timeout
        )
        raise
    finally:
        heartbeat.cancel()
    took = time.perf_counter() - started
    log.info("par of daily %s %s: %d (%.1f s)", day, difficulty.value, par, took)
    return par


async def _renew(store: Store, day: date, difficulty: Difficulty) -> None:
    """Renew this worker's claim every :data:`HEARTBEAT` seconds until cancelled."""
    while True:
        await asyncio.sleep(HEARTBEAT)
        try:
            if not await run_store(
                store,
                lambda: store.renew_par_claim(day, difficulty, WORKER),
                budget=store.db.timeout,
            ):
                return  # taken over (this worker was too slow) or stored: nothing to keep
        except Exception:  # the database did not answer: try again at the next beat
            log.warning("the claim of the par of daily %s %s was not renewed", day, difficulty)


def start_par(app: FastAPI, day: date, difficulty: Difficulty) -> None:
    """Have the daily's par computed in the background unless this process asked recently
    (the database decides which worker computes it)."""
    if not app.state.settings.daily_par:
        return
    asked: dict[tuple[date, Difficulty], float] = app.state.par_asked
    key = (day, difficulty)
    now = time.monotonic()
    if key in asked and now - asked[key] < RETRY_AFTER:
        return
    asked[key] = now
    tasks: set[asyncio.Task[int | None]] = app.state.par_tasks
    background: Background = app.state.background
    # never refused (a daily's par: one a day and difficulty); the same daily's once
    task = background.submit(
        ("par", day, difficulty), lambda: compute_par(app, day, difficulty), bounded=False
    )
    tasks.add(task)
    task.add_done_callback(_finished(tasks))


def _finished(
    tasks: set[asyncio.Task[int | None]],
) -> Callable[[asyncio.Task[int | None]], None]:
    def done(task: asyncio.Task[int | None]) -> None:
        tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("the par could not be computed", exc_info=task.exception())

    return done
