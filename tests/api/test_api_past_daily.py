"""Past dailies (issue 45, item 4): a calendar of the days gone by per difficulty, and any
past day the player did not finish playable on its dice once the day is over, outside that
day's leaderboard, the daily streak, the leagues and the high scores, and set at its end beside
the day's leaderboard, par and friends.

The clock moves by the test server's headers (``X-Magdagdon-Test-Now``), never by waiting.
"""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from ..utils.api import new_game, play_to_end, play_turn
from .test_api_daily_midnight import app, at, code, players

__all__ = ["app", "players"]  # (the fixtures, shared with the midnight rule's tests)

DAY = "2026-12-02"  # daily #2
LATER = "2026-12-05T12:00:00"  # DAY is long over; 12-04 is over; 12-05 is today


def days(client: TestClient, difficulty: str = "peaceful", **query: str) -> dict[str, Any]:
    """The calendar's days by date."""
    r = client.get(f"/api/daily/past/{difficulty}", params=query)
    assert r.status_code == 200, r.json()
    return {d["date"]: d for d in r.json()["days"]}


def befriend(challenger: TestClient, friend: TestClient) -> None:
    """``friend`` plays a challenge of ``challenger``'s (which makes them friends); both end
    with no regular game in progress."""
    game = play_to_end(challenger, new_game(challenger, "peaceful", seed=11, abandon=True))
    made = challenger.post("/api/challenges", json={"game_id": game["id"]})
    assert made.status_code == 201, made.json()
    view = friend.post(f"/api/challenges/{made.json()['code']}/games", json={})
    assert view.status_code == 201, view.json()
    play_to_end(friend, view.json())


def test_a_past_day_is_played_on_its_dice_outside_its_leaderboard_and_beside_it(
    players: list[TestClient],
) -> None:
    ann, ben, _ = players
    befriend(ann, ben)
    # ann plays DAY's daily on its day
    at(ann, f"{DAY}T10:00:00")
    daily = play_to_end(ann, ann.post("/api/daily/peaceful").json())
    assert daily["daily"]["date"] == DAY
    # days later ben, who did not play it, has a regular game going and opens the calendar
    at(ann, LATER)
    at(ben, LATER)
    going = play_turn(ben, new_game(ben, "survival", seed=5, abandon=True))
    mine = days(ben)
    assert list(mine) == ["2026-12-01", DAY, "2026-12-03", "2026-12-04", "2026-12-05"]
    assert mine[DAY] == {
        "date": DAY,
        "number": 2,
        "state": "open",
        "score": None,
        "game_id": None,
        "par": None,
    }
    assert mine["2026-12-04"]["state"] == "open"  # over since 02:00 today
    assert mine["2026-12-05"]["state"] == "not_over"  # today's is the daily, not a past one
    assert (
        days(ann)[DAY]["state"] == "played" and days(ann)[DAY]["score"] == daily["score"]["total"]
    )
    board_before = ann.get(f"/api/daily/{DAY}/peaceful/leaderboard").json()
    # ben plays DAY's dice: a past daily, the same dice as ann's daily
    r = ben.post(f"/api/daily/{DAY}/peaceful")
    assert r.status_code == 201, r.json()
    past = r.json()
    assert past["past_daily"] == {"date": DAY, "number": 2} and past["daily"] is None
    assert past["version"] == 0
    again = ben.post(f"/api/daily/{DAY}/peaceful")
    assert again.status_code == 200 and again.json()["id"] == past["id"]  # continued
    assert days(ben)[DAY]["state"] == "past_active"
    # the regular game was not touched
    current = ben.get("/api/games/current").json()
    assert current["id"] == going["id"] and current["version"] == going["version"]
    over = play_to_end(ben, past)
    seeds = {ann.get(f"/api/games/{g}/replay").json()["seed"] for g in (daily["id"], over["id"])}
    assert len(seeds) == 1  # the day's dice
    assert over["status"] == "over" and over["past_daily"]["date"] == DAY
    assert over["places"] is None  # not in the high scores
    score = over["score"]["total"]
    # outside the day's leaderboard, the streak and the high scores
    board = ben.get(f"/api/daily/{DAY}/peaceful/leaderboard").json()
    assert board["players"] == board_before["players"] == 1
    assert [row["game_id"] for row in board["rows"]] == [daily["id"]]
    assert board["me"] is None
    better = 1 if daily["score"]["total"] > score else 0
    assert board["past"] == {
        "game_id": over["id"],
        "score": score,
        "rank": better + 1,
        "percentile": 100 if not better else 50,
    }
    assert board["friends"] == [
        {"name": None, "score": daily["score"]["total"], "game_id": daily["id"], "past": False}
    ]
    stats = ben.get("/api/players/me/stats").json()
    assert stats["daily"]["played"] == 0 and stats["daily"]["streak"] == 0
    assert over["id"] not in ben.get("/api/highscores/peaceful").text
    exported = {g["id"]: g for g in ben.get("/api/players/me/export").json()["games"]}
    assert exported[over["id"]]["past_daily"] == DAY and exported[over["id"]]["daily"] is None
    assert exported[over["id"]]["seed"] is not None  # the day's dice are public
    theirs = ann.get(f"/api/daily/{DAY}/peaceful/leaderboard").json()
    assert theirs["friends"] == [
        {"name": None, "score": score, "game_id": over["id"], "past": True}
    ]
    assert theirs["past"] is None
    # played now: the calendar says so, and the day is not played twice
    assert days(ben)[DAY] | {"par": None} == {
        "date": DAY,
        "number": 2,
        "state": "past_played",
        "score": score,
        "game_id": over["id"],
        "par": None,
    }
    r = ben.post(f"/api/daily/{DAY}/peaceful")
    assert r.status_code == 409 and code(r) == "daily_played"
    assert r.json()["game"]["id"] == over["id"]
    r = ann.post(f"/api/daily/{DAY}/peaceful")
    assert r.status_code == 409 and code(r) == "daily_played"
    assert r.json()["game"]["id"] == daily["id"]
    # the other difficulties of the day are still open
    assert days(ben, "survival")[DAY]["state"] == "open"


def test_a_day_opens_as_a_past_daily_only_once_it_is_over(players: list[TestClient]) -> None:
    ann, ben, _ = players
    # 01:30 on 12-05: 12-04 is not over (its dailies can be finished until 02:00)
    at(ann, "2026-12-05T01:30:00")
    r = ann.post("/api/daily/2026-12-04/peaceful")
    assert r.status_code == 409 and code(r) == "daily_not_over"
    assert "02:00 UTC on 2026-12-05" in r.json()["error"]["message"]
    assert days(ann)["2026-12-04"]["state"] == "not_over"
    r = ann.post("/api/daily/2026-12-05/peaceful")  # today's: the daily itself
    assert r.status_code == 409 and code(r) == "daily_not_over"
    for day in ("2026-11-30", "2026-12-06", "2026-02-30"):  # before #1, tomorrow, no such day
        r = ann.post(f"/api/daily/{day}/peaceful")
        assert r.status_code == 404 and code(r) == "daily_not_found", day
    assert ann.post("/api/daily/2026-12-4/peaceful").status_code == 422
    assert ann.post("/api/daily/2026-12-03/easy").status_code == 422
    at(ann, "2026-12-05T02:00:00")
    assert ann.post("/api/daily/2026-12-04/peaceful").status_code == 201
    # a daily started and left unfinished on its day can be played as a past daily after it
    at(ben, "2026-12-03T23:00:00")
    left = play_turn(ben, ben.post("/api/daily/nightmare").json())
    at(ben, "2026-12-05T03:00:00")
    assert days(ben, "nightmare")["2026-12-03"] == {
        "date": "2026-12-03",
        "number": 3,
        "state": "unfinished",
        "score": None,
        "game_id": left["id"],
        "par": None,
    }
    r = ben.post("/api/daily/2026-12-03/nightmare")
    assert r.status_code == 201 and r.json()["id"] != left["id"]
    assert days(ben, "nightmare")["2026-12-03"]["state"] == "past_active"


def test_the_calendar_is_a_month_from_daily_one_to_today(players: list[TestClient]) -> None:
    ann, _, _ = players
    at(ann, "2027-02-10T12:00:00")
    r = ann.get("/api/daily/past/survival").json()
    assert r["month"] == "2027-02" and r["today"] == "2027-02-10"
    assert [d["number"] for d in r["days"]] == list(range(63, 73))
    assert r["previous"] == "2027-01" and r["next"] is None
    december = ann.get("/api/daily/past/survival", params={"month": "2026-12"}).json()
    assert [d["date"] for d in december["days"]][:1] == ["2026-12-01"]
    assert len(december["days"]) == 31 and december["previous"] is None
    assert december["next"] == "2027-01"
    assert {d["state"] for d in december["days"]} == {"open"}
    for month in ("2026-11", "2027-03"):
        r = ann.get("/api/daily/past/survival", params={"month": month})
        assert r.status_code == 404 and code(r) == "daily_not_found"
    for month in ("2026-13", "x"):
        r = ann.get("/api/daily/past/survival", params={"month": month})
        assert r.status_code in (404, 422), month
    # nobody asked: no player is made, every day says what it is
    with TestClient(ann.app) as fresh:
        at(fresh, "2027-02-10T12:00:00")
        assert {d["state"] for d in days(fresh, "survival").values()} == {"open", "not_over"}
        assert "set-cookie" not in fresh.get("/api/daily/past/survival").headers
