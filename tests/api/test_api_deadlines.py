"""A request's database deadline (issue 32, items 3 and 4): a request answered 503 has changed
nothing (the database abandons its work at the deadline; the answer waits for the outcome),
one deadline for the whole request, every 503 with Retry-After; a stall of one table does not
take the threads of requests that never touch it, and /api/ready answers within its budget."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from fastapi.testclient import TestClient

from magdagdon.settings import Settings
from magdagdon.web.app import create_app
from magdagdon.web.routes.health import READY_BUDGET

from ..conftest import TEST_ORIGIN
from ..utils.api import new_game, play_to_end
from ..utils.locks import table_held

TIMEOUT = 2.0
"""The database timeout of these tests' servers (seconds)."""
LATE = TIMEOUT + 1.0 + 1.5
"""The latest a 503 may come: the deadline, the outcome's grace (deps.OUTCOME_GRACE) and
room for a loaded machine."""


@pytest.fixture
def app(database_url: str) -> Any:
    return create_app(
        Settings(
            database_url=database_url,
            database_timeout=TIMEOUT,
            allow_test_seeds=True,
            rate_limits=False,
            public_origin=TEST_ORIGIN,
            daily_ranks="everyone",
        )
    )


def timed(call: Callable[[], Any]) -> tuple[Any, float]:
    start = time.monotonic()
    answer = call()
    return answer, time.monotonic() - start


def test_a_code_redeemed_while_the_database_stalls_is_a_503_that_changed_nothing(
    app: Any, database_url: str
) -> None:
    with TestClient(app) as phone, TestClient(app) as laptop:
        play_to_end(laptop, new_game(laptop, "peaceful", seed=3))
        code = phone.post("/api/account/transfer-codes").json()["code"]
        cookie = dict(laptop.cookies)
        with table_held(database_url, "transfer_codes"):
            r, took = timed(
                lambda: laptop.post("/api/account/sign-in/transfer", json={"code": code})
            )
            assert r.status_code == 503 and r.json()["error"]["code"] == "database_unavailable"
            assert int(r.headers["Retry-After"]) > 0
            assert took < LATE
            time.sleep(TIMEOUT)  # what would have gone on after the answer had time to
        # nothing happened: the code is unused, the device not signed in nor merged
        assert dict(laptop.cookies) == cookie
        assert laptop.get("/api/players/me").json()["account"] is False
        assert (
            phone.get("/api/players/me/stats").json()["difficulties"]["peaceful"]["finished"] == 0
        )
        r = laptop.post("/api/account/sign-in/transfer", json={"code": code})
        assert r.status_code == 200 and r.json()["merged"]["games"] == 1


def test_a_deletion_answered_503_deleted_nothing(app: Any, database_url: str) -> None:
    with TestClient(app) as phone:
        phone.put("/api/players/me", json={"name": "Jääb"})
        play_to_end(phone, new_game(phone, "survival", seed=4))
        with table_held(database_url, "transfer_codes"):
            r, took = timed(lambda: phone.delete("/api/players/me"))
            assert r.status_code == 503 and "Retry-After" in r.headers and took < LATE
            time.sleep(TIMEOUT)
        assert phone.get("/api/players/me").json()["name"] == "Jääb"
        assert phone.get("/api/players/me/stats").json()["difficulties"]["survival"]["finished"]
        assert phone.delete("/api/players/me").status_code == 204


def test_one_deadline_for_the_whole_request(app: Any, database_url: str) -> None:
    """A request whose every statement waits just under the timeout does not take a timeout
    per statement: its deadline is one, from its first database work."""
    with TestClient(app) as phone:
        phone.put("/api/players/me", json={"name": "Üks"})
        with table_held(database_url, "sessions"):
            r, took = timed(lambda: phone.post("/api/account/transfer-codes"))
        assert r.status_code == 503 and took < LATE


def test_a_stalled_table_does_not_stop_requests_that_do_not_touch_it(
    app: Any, database_url: str
) -> None:
    """PostgreSQL, the sessions table locked: every request with a cookie waits for it (and
    answers 503 at its deadline), but requests without one keep answering at once, and so
    does /api/ready."""
    if not database_url.startswith("postgresql"):
        pytest.skip("a lock on one table: PostgreSQL (SQLite locks the whole file for writes)")
    with TestClient(app) as reader:
        play_to_end(reader, new_game(reader, "peaceful", seed=6))
        cookies = [TestClient(app, cookies=dict(reader.cookies)) for _ in range(12)]
        anonymous = TestClient(app)
        answers: dict[str, list[tuple[int, float]]] = {"cookie": [], "plain": [], "ready": []}
        with table_held(database_url, "sessions"):
            start = threading.Barrier(len(cookies) + 1)

            def with_cookie(client: TestClient) -> None:
                start.wait()
                r, took = timed(lambda: client.get("/api/players/me"))
                answers["cookie"].append((r.status_code, took))

            threads = [threading.Thread(target=with_cookie, args=(c,)) for c in cookies]
            for t in threads:
                t.start()
            start.wait()
            time.sleep(0.3)  # every session thread is waiting on the lock now
            for _ in range(3):
                r, took = timed(lambda: anonymous.get("/api/highscores/peaceful"))
                answers["plain"].append((r.status_code, took))
            r, took = timed(lambda: anonymous.get("/api/ready"))
            answers["ready"].append((r.status_code, took))
            for t in threads:
                t.join()
        assert all(status == 200 and took < 1.5 for status, took in answers["plain"]), answers
        assert all(status == 200 and took < READY_BUDGET for status, took in answers["ready"])
        assert {status for status, _ in answers["cookie"]} == {503}, answers
        assert all(took < LATE + TIMEOUT * 2 for _, took in answers["cookie"]), answers
        assert reader.get("/api/players/me").status_code == 200  # and all is well after


def test_a_stopping_server_waits_for_the_database_work_its_tasks_left(settings: Settings) -> None:
    """A task cancelled while its database work runs abandons the thread (run_store), which
    goes on: the server's shutdown waits for that work before it closes the database, so that
    nothing writes after it stopped (a test's next step found its SQLite file locked by a
    daily's par still being claimed after the app had stopped)."""
    from magdagdon.web.deps import run_store

    running, release = threading.Event(), threading.Event()
    finished: list[str] = []

    def work() -> None:
        running.set()
        assert release.wait(60)
        finished.append("written")

    app = create_app(settings)
    with TestClient(app) as client:
        portal = client.portal
        assert portal is not None
        task = portal.start_task_soon(partial(run_store, app.state.store, work, budget=120.0))
        assert running.wait(60)
        task.cancel()  # the request went away: its thread goes on
        # the work ends once the shutdown has begun: the shutdown must wait for it
        threading.Timer(0.2, release.set).start()
    assert finished == ["written"]
