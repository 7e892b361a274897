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

from anyio import to_thread
from fastapi import FastAPI

from ..ai import coach
from ..engine import Difficulty, Game, Phase
from ..store import Store
from .deps import run_store

log = logging.getLogger("magdagdon.par")

RETRY_AFTER = 660.0
"""Seconds before a worker asks again for a par it could not claim: longer than a claim's
``stale_after`` (10 minutes), after which a claim with no par is taken over (its worker died
without releasing it)."""
WORKER = f"{socket.gethostname()}:{os.getpid()}"


def play_par(difficulty: Difficulty, seed: bytes) -> int:
    """The strong player's final score on these dice, deciding on what a player sees."""
    game = Game.new(difficulty, seed=seed)
    player = coach.new_player()
    while game.phase is not Phase.OVER:
        for action in player.turn(game.search_copy()):
            game.apply(action)
    return game.score().total


async def compute_par(app: FastAPI, day: date, difficulty: Difficulty) -> int | None:
    """Claim the daily's par and compute it; None when another worker has it in hand."""
    store: Store = app.state.store
    if not await run_store(store, lambda: store.claim_par(day, difficulty, WORKER)):
        return None
    started = time.perf_counter()
    try:
        seed = await run_store(store, lambda: store.daily_seed(day, difficulty))
        limiter = app.state.coach_threads
        par = await to_thread.run_sync(play_par, difficulty, seed, limiter=limiter)
        await run_store(store, lambda: store.save_par(day, difficulty, par))
    except Exception:
        # the claim goes (with this process's memory of asking), so the next request asks
        # again; a process stopped meanwhile leaves its claim to go stale instead
        app.state.par_asked.pop((day, difficulty), None)
        await run_store(store, lambda: store.release_par(day, difficulty, WORKER))
        raise
    took = time.perf_counter() - started
    log.info("par of daily %s %s: %d (%.1f s)", day, difficulty.value, par, took)
    return par


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
    task = asyncio.create_task(compute_par(app, day, difficulty))
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
