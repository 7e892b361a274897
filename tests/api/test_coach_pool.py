"""The coach's processes: work runs outside the server process, bounded per address and in
total, refused at once (with Retry-After) when there is no room, and a dead process replaced;
background work in processes of its own, bounded per owner and in all, the same work once."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from magdagdon.engine import Difficulty, Game
from magdagdon.web.coach_pool import Background, BackgroundRefused, CoachPool
from magdagdon.web.coach_work import hint_dict
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


class _Unstartable:
    """A pool whose processes cannot be started (its fork server's socket removed)."""

    def submit(self, *args: object) -> None:
        raise FileNotFoundError("/tmp/pymp-gone/listener-1")

    def shutdown(self, **options: object) -> None:
        pass


def test_a_process_that_cannot_be_started_is_a_503_and_the_pool_starts_again() -> None:
    async def main() -> None:
        pool = CoachPool(1, 0, 1)
        try:
            pool._pool = _Unstartable()  # type: ignore[assignment]
            with pytest.raises(ApiError) as refused:
                await pool.run(_sleep, 0)
            assert refused.value.status == 503 and refused.value.code == "coach_busy"
            assert await pool.run(_sleep, 0) != os.getpid()  # a new pool, its own processes
        finally:
            pool.close()

    asyncio.run(main())


# --- background work: processes of its own, bounded, the same work once ---------------------


def _wait_for(path: str) -> int:
    """Block until ``path`` exists (a gate the test opens), then the process's id."""
    while not os.path.exists(path):
        time.sleep(0.01)
    return os.getpid()


def test_interactive_work_never_waits_behind_background_work(tmp_path: Path) -> None:
    """Background processes busy with work that cannot finish yet: a hint still runs, on the
    interactive pool, and only then is the background let go (an order, not a timing)."""
    gate = str(tmp_path / "open")

    async def main() -> None:
        pool, background = CoachPool(1, 0, 1), Background(1, 8, 8)
        try:
            jobs = [
                background.submit(i, lambda: background.process(_wait_for, gate)) for i in range(3)
            ]
            game = Game.new(Difficulty.PEACEFUL, seed=1)
            game.roll()
            with pool.slot("another address"):
                advice = await asyncio.wait_for(pool.run(hint_dict, game), 120)
            assert advice["expected_score"] > 0
            assert not any(job.done() for job in jobs)  # the background is still held
            Path(gate).touch()
            pids = await asyncio.wait_for(asyncio.gather(*jobs), 120)
            assert os.getpid() not in pids and background.queued == 0
            assert await background.process(_niceness) >= min(19, os.nice(0) + 13)
        finally:
            pool.close()
            background.close()

    asyncio.run(main())


def test_background_work_is_bounded_per_owner_and_in_all_and_done_once() -> None:
    async def main() -> None:
        background = Background(1, 2, 2)  # one running and two waiting: three in hand
        never: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def job() -> None:
            await never

        try:
            first = background.submit("a", job, owners=["player 1", "address x"])
            assert background.submit("a", job, owners=["player 1"]) is first  # once
            background.submit("b", job, owners=["player 2", "address x"])
            with pytest.raises(BackgroundRefused) as refused:
                background.submit("c", job, owners=["player 3", "address x"])
            assert refused.value.owner == "address x"
            assert background.queued == 2 and "c" not in background
            background.submit("c", job, owners=["player 3", "address y"])
            with pytest.raises(BackgroundRefused) as full:
                background.submit("d", job, owners=["player 4"])
            assert full.value.owner is None
            background.submit("par", job, bounded=False)  # a daily's par: never refused
            assert background.queued == 4 and background.owned("address x") == 2
            first.cancel()
            await asyncio.gather(first, return_exceptions=True)  # its place given back first
            assert "a" not in background and background.owned("address x") == 1
            assert background.owned("player 1") == 0
        finally:
            background.close()

    asyncio.run(main())


def test_a_coach_score_goes_before_the_searches_waiting_and_searches_hold_half_the_queue(
    tmp_path: Path,
) -> None:
    """A search of a player's games (``low``) waiting for the process lets a coach score that
    came after it go first, and searches cannot fill the queue: a room's coach score waited
    minutes behind other players' searches (an order, not a timing)."""
    first, second = str(tmp_path / "first"), str(tmp_path / "second")

    async def main() -> None:
        background = Background(1, 4, 8)  # five in hand, two of them searches at most
        try:
            running = background.submit(
                "search 1", lambda: background.process(_wait_for, first, low=True), low=True
            )
            waiting = background.submit(
                "search 2", lambda: background.process(_wait_for, second, low=True), low=True
            )
            with pytest.raises(BackgroundRefused) as refused:
                background.submit("search 3", lambda: background.process(os.getpid), low=True)
            assert refused.value.owner is None and background.queued == 2
            while background.waiting < 1:  # the first search in the process, the second next
                await asyncio.sleep(0.01)
            score = background.submit("room score", lambda: background.process(os.getpid))
            Path(first).touch()
            assert await asyncio.wait_for(running, 120) != os.getpid()
            await asyncio.wait_for(score, 120)  # the second search still waits for its gate
            assert not waiting.done()
            Path(second).touch()
            await asyncio.wait_for(waiting, 120)
            assert background.queued == 0
            background.submit("search 3", lambda: background.process(os.getpid), low=True)
        finally:
            background.close()

    asyncio.run(main())
