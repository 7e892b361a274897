"""The coach's processes: work runs outside the server process, bounded per address and in
total, refused at once (with Retry-After) when there is no room, and a dead process replaced."""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from magdagdon.engine import Difficulty, Game
from magdagdon.web.coach_pool import CoachPool, hint_dict
from magdagdon.web.errors import ApiError


def _sleep(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def _niceness() -> int:
    return os.nice(0)


def _die() -> None:
    os._exit(3)


def test_work_runs_in_another_process_below_the_games_priority() -> None:
    async def main() -> None:
        pool = CoachPool(1, 0, 1)
        try:
            assert await pool.run(_sleep, 0) != os.getpid()
            assert await pool.run(_niceness) >= min(19, os.nice(0) + 10)
            game = Game.new(Difficulty.PEACEFUL, seed=1)
            game.roll()
            advice = await pool.run(hint_dict, game)
            assert advice["plan"][-1] == {"type": "confirm"} and advice["expected_score"] > 0
            assert pool.in_flight == 0
        finally:
            pool.close()

    asyncio.run(main())


def test_an_address_and_the_pool_are_bounded_and_told_when_to_come_back() -> None:
    pool = CoachPool(1, 1, 2)  # one process, one waiting: two in hand
    with pool.slot("a"), pool.slot("a"):
        with pytest.raises(ApiError) as refused, pool.slot("a"):
            pass
        assert refused.value.status == 429 and refused.value.code == "rate_limited"
        assert refused.value.headers and int(refused.value.headers["Retry-After"]) >= 1
        with pytest.raises(ApiError) as busy, pool.slot("b"):
            pass
        assert busy.value.status == 503 and busy.value.code == "coach_busy"
        assert busy.value.headers and int(busy.value.headers["Retry-After"]) >= 1
    assert pool.held == 0
    with pool.slot("b"), pool.slot("c"):  # room again
        assert pool.held == 2
    with pytest.raises(ValueError), pool.slot("d"):  # a failed request gives its place back
        raise ValueError
    assert pool.held == 0


def test_the_par_waits_its_turn_behind_a_full_pool() -> None:
    async def main() -> None:
        pool = CoachPool(1, 0, 1)
        try:
            with pool.slot("a"):
                hint = asyncio.create_task(pool.run(_sleep, 0.5))
                par = asyncio.create_task(pool.run(_sleep, 0))  # never refused
                await asyncio.gather(hint, par)
            assert pool.in_flight == pool.held == 0
        finally:
            pool.close()

    asyncio.run(main())


def test_a_process_that_dies_is_replaced() -> None:
    async def main() -> None:
        pool = CoachPool(1, 0, 1)
        try:
            with pytest.raises(ApiError) as died:
                await pool.run(_die)
            assert died.value.status == 503
            assert await pool.run(_sleep, 0) > 0
        finally:
            pool.close()

    asyncio.run(main())
