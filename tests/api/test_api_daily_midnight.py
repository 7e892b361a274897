"""The daily never eats a game (issue 45, item 3): a daily started before its day ends can be
finished until two hours after midnight UTC and counts for its own day; the day stays hidden
(its seed, its games to others, its leaderboard open) until then, and is over from then on.

The clock moves by the test server's headers, never by waiting: each step sets the moment
(``X-Magdagdon-Test-Now``) and, for a server that knows only days, that moment's day
(``X-Magdagdon-Test-Date``), so the same steps on a server without the grace fail where it
would eat the game (the ROLL after midnight, 409 ``daily_ended``).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from magdagdon.engine import Difficulty
from magdagdon.settings import Settings
from magdagdon.web.app import create_app
from magdagdon.web.deps import TEST_DATE_HEADER

from ..utils.api import ViewPlayer, act, play_to_end, play_turn

NOW_HEADER = "X-Magdagdon-Test-Now"
DAY = "2026-12-05"  # daily #5
NEXT = "2026-12-06"


def at(client: TestClient, moment: str) -> TestClient:
    """Move ``client``'s clock to ``moment`` (UTC, ``YYYY-MM-DDTHH:MM:SS``); the client."""
    client.headers[NOW_HEADER] = f"{moment}Z"
    client.headers[TEST_DATE_HEADER] = moment[:10]
    return client


@pytest.fixture
def app(settings: Settings) -> Any:
    """One app (one server process) on the test's database."""
    return create_app(settings)


@pytest.fixture
def players(app: Any) -> Iterator[list[TestClient]]:
    """Three players with their own cookies and clocks."""
    with TestClient(app) as a, TestClient(app) as b, TestClient(app) as c:
        yield [a, b, c]


def next_move(view: dict[str, Any]) -> dict[str, Any]:
    """The body of an action that plays on from ``view``."""
    return {"version": view["version"], "action": ViewPlayer().next_action(view)}


def code(r: Any) -> str:
    """An error answer's code."""
    return str(r.json()["error"]["code"])


def test_a_daily_started_before_midnight_is_finished_after_it_and_counts_for_its_day(
    app: Any, players: list[TestClient]
) -> None:
    a, b, c = players
    # 23:49 on DAY: a starts the day's daily and plays three turns
    at(a, f"{DAY}T23:49:00")
    r = a.post("/api/daily/peaceful")
    assert r.status_code == 201, r.json()
    view = r.json()
    assert view["daily"] == {"date": DAY, "number": 5, "finish_by": f"{NEXT}T02:00:00Z"}
    for _ in range(3):
        view = play_turn(a, view)
    assert view["turns"] == 3 and view["phase"] == "roll"
    today = a.get("/api/daily").json()
    assert today["ends_at"] == f"{NEXT}T00:00:00Z"
    assert today["finish_by"] == f"{NEXT}T02:00:00Z"
    assert today["unfinished"] == []  # (today's is in games)
    # c starts the other daily a minute before midnight and leaves it
    at(c, f"{DAY}T23:59:00")
    left = act(c, c.post("/api/daily/survival").json(), {"type": "roll"})

    # 00:00:10: the ROLL of the fourth turn is played (it was 409 daily_ended)
    at(a, f"{NEXT}T00:00:10")
    r = a.post(
        f"/api/games/{view['id']}/actions",
        json={"version": view["version"], "action": {"type": "roll"}},
    )
    assert r.status_code == 200, r.json()
    view = r.json()
    # the daily list is the new day's, and says the unfinished one is to CONTINUE
    today = a.get("/api/daily").json()
    assert today["date"] == NEXT and today["number"] == 6
    assert [g["status"] for g in today["games"]] == ["new", "new", "new"]
    assert today["ends_at"] == "2026-12-07T00:00:00Z"
    assert today["unfinished"] == [
        {
            "date": DAY,
            "number": 5,
            "difficulty": "peaceful",
            "game_id": view["id"],
            "finish_by": f"{NEXT}T02:00:00Z",
        }
    ]
    # DAY's daily can no longer be started: PLAY starts the new day's, another game
    at(b, f"{NEXT}T00:00:20")
    r = b.post("/api/daily/peaceful")
    assert r.status_code == 201 and r.json()["daily"]["date"] == NEXT
    r = a.post("/api/daily/peaceful")
    assert r.status_code == 201 and r.json()["id"] != view["id"]
    assert r.json()["daily"]["date"] == NEXT

    # 00:30: DAY is not over: its leaderboard open, its seed hidden
    at(b, f"{NEXT}T00:30:00")
    board = b.get(f"/api/daily/{DAY}/peaceful/leaderboard").json()
    assert board["ended"] is False and board["seed"] is None

    # 01:30: a finishes it; it is on DAY's leaderboard, and DAY is in a's streak
    at(a, f"{NEXT}T01:30:00")
    over = play_to_end(a, view)
    score = over["final_score"]["total"]
    board = a.get(f"/api/daily/{DAY}/peaceful/leaderboard").json()
    assert board["players"] == 1 and board["me"]["score"] == score
    assert board["rows"][0]["game_id"] == view["id"] and board["ended"] is False
    assert a.get(f"/api/daily/{NEXT}/peaceful/leaderboard").json()["me"] is None
    stats = a.get("/api/players/me/stats").json()["daily"]
    assert stats["played"] == 1 and stats["streak"] == 1
    # its own player watches it at once; not a challenge while DAY's dice are secret
    assert a.get(f"/api/games/{view['id']}/frames").status_code == 200
    r = a.post("/api/challenges", json={"game_id": view["id"]})
    assert r.status_code == 409 and code(r) == "daily_not_over"
    assert a.get("/api/daily").json()["unfinished"] == []  # finished: nothing to continue
    # 01:45: nobody else may watch it yet, nor see the seed
    at(b, f"{NEXT}T01:45:00")
    for path in ("replay", "frames", "review"):
        r = b.get(f"/api/games/{view['id']}/{path}")
        assert r.status_code == 409 and code(r) == "daily_not_over", (path, r.json())
    board = b.get(f"/api/daily/{DAY}/peaceful/leaderboard").json()
    assert board["ended"] is False and board["seed"] is None and board["players"] == 1

    # 01:59:59: c's game still plays
    at(c, f"{NEXT}T01:59:59")
    r = c.post(
        f"/api/games/{left['id']}/actions",
        json={"version": left["version"], "action": ViewPlayer().next_action(left)},
    )
    assert r.status_code == 200, r.json()
    left = r.json()

    # 02:00:01: DAY is over. c's unfinished game ended; the seed and the games are public
    at(c, f"{NEXT}T02:00:01")
    r = c.post(
        f"/api/games/{left['id']}/actions",
        json={"version": left["version"], "action": ViewPlayer().next_action(left)},
    )
    assert r.status_code == 409 and code(r) == "daily_ended"
    assert "02:00 UTC" in r.json()["error"]["message"]
    assert c.get("/api/daily").json()["unfinished"] == []
    at(b, f"{NEXT}T02:00:01")
    board = b.get(f"/api/daily/{DAY}/peaceful/leaderboard").json()
    seed = app.state.store.daily_seed(date.fromisoformat(DAY), Difficulty.PEACEFUL)
    assert board["ended"] is True and board["seed"] == seed.hex()
    for path in ("replay", "frames", "review"):
        assert b.get(f"/api/games/{view['id']}/{path}").status_code == 200, path
    at(a, f"{NEXT}T02:00:01")
    assert a.post("/api/challenges", json={"game_id": view["id"]}).status_code == 201
    # the next day, DAY still counts: a streak of one (NEXT is still to play)
    at(a, f"{NEXT}T12:00:00")
    assert a.get("/api/players/me/stats").json()["daily"]["streak"] == 1


def test_the_bound_is_two_hours_after_midnight_utc(app: Any, players: list[TestClient]) -> None:
    """The moment header's zone is honoured; DAY ends at NEXT 00:00 and is over at 02:00 UTC."""
    a, _, _ = players
    a.headers[NOW_HEADER] = f"{DAY}T23:30:00-01:00"  # 00:30 UTC the next day
    view = a.post("/api/daily/nightmare").json()
    assert view["daily"]["date"] == NEXT
    at(a, f"{DAY}T20:00:00")
    earlier = act(a, a.post("/api/daily/nightmare").json(), {"type": "roll"})
    a.headers[NOW_HEADER] = f"{NEXT}T03:59:59+02:00"  # 01:59:59 UTC
    r = a.post(f"/api/games/{earlier['id']}/actions", json=next_move(earlier))
    assert r.status_code == 200, r.json()
    a.headers[NOW_HEADER] = f"{NEXT}T02:00:00+00:00"
    r = a.post(f"/api/games/{earlier['id']}/actions", json=next_move(r.json()))
    assert r.status_code == 409 and code(r) == "daily_ended"
    r = a.get(f"/api/games/{earlier['id']}/hint")
    assert r.status_code == 409 and code(r) == "daily_ended"
    r = a.get("/api/daily", headers={NOW_HEADER: "not a moment"})
    assert r.status_code == 422
    assert datetime.fromisoformat(a.get("/api/daily").json()["finish_by"]).hour == 2


def test_a_day_breaks_a_streak_only_once_it_is_over() -> None:
    """At 00:30 yesterday is not over (its daily may still be finished): a streak up to the
    day before it holds; at 02:00 it is broken."""
    from magdagdon.store import first_open_day
    from magdagdon.store.stats import streaks

    day = date.fromisoformat(DAY)
    before = {date.fromisoformat("2026-12-03"), date.fromisoformat("2026-12-04")}
    late = datetime.fromisoformat(f"{NEXT}T00:30:00+00:00")
    over = datetime.fromisoformat(f"{NEXT}T02:00:00+00:00")
    today = late.date()
    assert first_open_day(late) == day and first_open_day(over) == today
    assert streaks(before, today, first_open_day(late)) == (2, 2)
    assert streaks(before, today, first_open_day(over)) == (0, 2)
    assert streaks({*before, day}, today, first_open_day(over)) == (3, 3)  # DAY counts
    assert streaks(before, day) == (2, 2)  # (during DAY, as ever)
