"""The par of a daily is computed once, however many workers ask for it at the same moment."""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import date, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import httpx2
import pytest
from sqlalchemy import create_engine, text

from magdagdon.engine import Difficulty
from magdagdon.store import Database, Store
from magdagdon.store.daily import PAR_CLAIM_STALE
from magdagdon.store.models import utcnow
from magdagdon.web.par import HEARTBEAT, RETRY_AFTER

from ..utils.server import server_process
from .test_races import at_once

DAY = date(2026, 12, 7)


def stores(url: str, n: int) -> list[Store]:
    """``n`` stores on one database, as ``n`` worker processes have."""
    Database(url).migrate()
    return [Store(Database(url, timeout=10)) for _ in range(n)]


def test_one_claim_of_many_at_once(database_url: str) -> None:
    workers = stores(database_url, 8)
    claims = [
        partial(w.claim_par, DAY, Difficulty.SURVIVAL, f"worker {i}") for i, w in enumerate(workers)
    ]
    won = [i for i, claimed in enumerate(at_once(claims)) if claimed]
    assert len(won) == 1
    # asked again later, nobody takes it while the claim is fresh
    assert not any(s.claim_par(DAY, Difficulty.SURVIVAL, "late") for s in workers)
    # the other difficulties and days are claims of their own
    assert workers[0].claim_par(DAY, Difficulty.PEACEFUL, "worker 0")
    assert workers[1].claim_par(DAY + timedelta(days=1), Difficulty.SURVIVAL, "worker 1")


def test_a_stale_claim_is_taken_over_once_and_a_par_stays(database_url: str) -> None:
    first, second, third = stores(database_url, 3)
    assert first.claim_par(DAY, Difficulty.NIGHTMARE, "died")
    later = utcnow() + timedelta(minutes=11)  # its worker never stored the par
    assert second.claim_par(DAY, Difficulty.NIGHTMARE, "second", now=later)
    assert not third.claim_par(DAY, Difficulty.NIGHTMARE, "third", now=later)
    second.save_par(DAY, Difficulty.NIGHTMARE, 300)
    first.save_par(DAY, Difficulty.NIGHTMARE, 999)  # the first worker woke up: too late
    assert third.daily_par(DAY, Difficulty.NIGHTMARE) == 300
    much_later = later + timedelta(hours=1)
    assert not third.claim_par(DAY, Difficulty.NIGHTMARE, "third", now=much_later)


def test_a_released_claim_is_claimed_again_at_once(database_url: str) -> None:
    first, second = stores(database_url, 2)
    assert first.claim_par(DAY, Difficulty.PEACEFUL, "first")
    second.release_par(DAY, Difficulty.PEACEFUL, "second")  # not its claim: nothing happens
    assert not second.claim_par(DAY, Difficulty.PEACEFUL, "second")
    first.release_par(DAY, Difficulty.PEACEFUL, "first")  # its computation failed
    assert second.claim_par(DAY, Difficulty.PEACEFUL, "second")
    second.save_par(DAY, Difficulty.PEACEFUL, 400)
    second.release_par(DAY, Difficulty.PEACEFUL, "second")  # a par once stored stays
    assert first.daily_par(DAY, Difficulty.PEACEFUL) == 400


def test_the_secret_is_made_once_for_every_worker(database_url: str) -> None:
    workers = stores(database_url, 6)
    seeds = at_once([partial(w.daily_seed, DAY, Difficulty.PEACEFUL) for w in workers])
    assert len(seeds) == 6 and len(set(seeds)) == 1
    assert workers[0].daily_seed(DAY, Difficulty.SURVIVAL) != seeds[0]
    assert workers[0].daily_seed(DAY + timedelta(days=1), Difficulty.PEACEFUL) != seeds[0]


@pytest.mark.slow  # two real server workers
def test_two_workers_asked_at_once_compute_the_par_once(database_url: str, tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    day = "2026-12-08"
    with server_process(database_url, workers=2, log=log, log_level="info") as server:
        clients = [
            httpx2.Client(base_url=server.url, timeout=30, headers={"X-Magdagdon-Test-Date": day})
            for _ in range(16)
        ]
        try:
            answers = at_once([partial(c.post, "/api/daily/survival") for c in clients])
            assert [r.status_code for r in answers] == [201] * 16
            engine = create_engine(database_url)
            query = text("SELECT par, par_claimed_by FROM dailies WHERE day = :day")
            # the par's own process runs below the tests' priority: on a loaded machine it
            # takes long, so the bound is far (it only stops a test that would hang)
            deadline = time.monotonic() + 600
            rows: Sequence[Any] = []
            while time.monotonic() < deadline:
                with engine.connect() as connection:
                    rows = connection.execute(query, {"day": day}).all()
                if rows and rows[0].par is not None:
                    break
                time.sleep(0.1)
            engine.dispose()
            assert len(rows) == 1 and rows[0].par is not None
            time.sleep(1)  # a second computation, were there one, would be logged by now
        finally:
            for c in clients:
                c.close()
    computed = [line for line in log.read_text().splitlines() if "par of daily" in line]
    assert len(computed) == 1, computed
    assert f"{day} survival: {rows[0].par}" in computed[0]


def test_a_renewed_claim_is_kept_and_a_dead_workers_is_taken_over(database_url: str) -> None:
    first, second = stores(database_url, 2)
    start = utcnow()
    assert first.claim_par(DAY, Difficulty.SURVIVAL, "first", now=start)
    stale = PAR_CLAIM_STALE + timedelta(seconds=1)
    # renewed while it computes: never stale for the others
    assert first.renew_par_claim(DAY, Difficulty.SURVIVAL, "first", now=start + stale)
    assert not second.claim_par(DAY, Difficulty.SURVIVAL, "second", now=start + stale)
    assert not second.renew_par_claim(DAY, Difficulty.SURVIVAL, "second")  # not its claim
    # its worker died: no renewal, and the claim is taken over once stale
    later = start + 2 * stale
    assert second.claim_par(DAY, Difficulty.SURVIVAL, "second", now=later)
    assert not first.renew_par_claim(DAY, Difficulty.SURVIVAL, "first")  # too late
    assert PAR_CLAIM_STALE + timedelta(seconds=RETRY_AFTER) < timedelta(minutes=1)
    assert timedelta(seconds=HEARTBEAT * 3) <= PAR_CLAIM_STALE


@pytest.mark.slow  # waits for the claim to go stale
def test_the_par_of_a_worker_that_died_is_computed_within_a_minute(
    database_url: str, tmp_path: Path
) -> None:
    """A worker claimed the par and died (SIGKILL: no release, no renewal) 30 s ago; a live
    server asked for the daily takes the claim over and stores the par within a minute of the
    death."""
    day = date(2026, 12, 9)
    (store,) = stores(database_url, 1)
    died = utcnow() - timedelta(seconds=30)
    assert store.claim_par(day, Difficulty.SURVIVAL, "lost-host:4242", now=died)
    log = tmp_path / "server.log"
    headers = {"X-Magdagdon-Test-Date": day.isoformat()}
    with (
        server_process(database_url, log=log, log_level="info") as server,
        httpx2.Client(base_url=server.url, timeout=30, headers=headers) as client,
    ):
        par = None
        while par is None and utcnow() - died < timedelta(seconds=90):
            assert client.post("/api/daily/survival").status_code in (200, 201)
            time.sleep(1)
            par = store.daily_par(day, Difficulty.SURVIVAL)
        stored_after = utcnow() - died
    assert par is not None, log.read_text()[-2000:]
    assert stored_after < timedelta(seconds=60) + timedelta(seconds=15)  # the par's own time
    (line,) = [line for line in log.read_text().splitlines() if "par of daily" in line]
    assert f"{day} survival: {par}" in line
