"""A player's statistics: the histogram, the streak, and GET /api/players/me/stats."""

from __future__ import annotations

import statistics
from datetime import date, timedelta
from itertools import pairwise

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from magdagdon.store import stats
from magdagdon.store.stats import BINS, histogram, streaks
from magdagdon.web.deps import TEST_DATE_HEADER

from ..utils.api import act, new_game, play_to_end

TODAY = date(2026, 12, 20)


@given(st.lists(st.integers(-200, 700), min_size=1, max_size=200))
def test_the_histogram_holds_every_score_once_in_bars_of_one_round_width(
    scores: list[int],
) -> None:
    bars = histogram(scores)
    width = bars[0].end - bars[0].start
    assert width in (5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000)
    assert 1 <= len(bars) <= BINS
    assert bars[0].start % width == 0
    assert all(b.end - b.start == width for b in bars)
    assert all(a.end == b.start for a, b in pairwise(bars))
    assert sum(b.count for b in bars) == len(scores)
    for b in bars:
        assert b.count == sum(b.start <= s < b.end for s in scores)
    assert bars[0].count and bars[-1].count  # no empty bar at either end


def test_histogram_examples() -> None:
    assert histogram([]) == []
    assert [(b.start, b.end, b.count) for b in histogram([342])] == [(340, 345, 1)]
    found = [(b.start, b.count) for b in histogram([-15, 120, 333, 441])]
    counts = [1, 0, 0, 1, 0, 0, 0, 1, 0, 1]  # ten bars of 50 from -50: width 25 needs 20
    assert found == list(zip(range(-50, 450, 50), counts, strict=True))


def days(*offsets: int) -> set[date]:
    """Days counted back from :data:`TODAY`."""
    return {TODAY - timedelta(days=n) for n in offsets}


def test_streaks() -> None:
    assert streaks(set(), TODAY) == (0, 0)
    assert streaks(days(0), TODAY) == (1, 1)
    assert streaks(days(1, 2, 3), TODAY) == (3, 3)  # today still to play: the streak holds
    assert streaks(days(0, 1, 2, 5, 6, 7, 8), TODAY) == (3, 4)
    assert streaks(days(2, 3), TODAY) == (0, 2)  # yesterday missed: broken


def test_the_stats_endpoint(client: TestClient) -> None:
    empty = client.get("/api/players/me/stats").json()
    assert set(empty["difficulties"]) == {"peaceful", "survival", "nightmare"}
    assert empty["difficulties"]["peaceful"] == {
        "games": 0,
        "finished": 0,
        "mean": None,
        "median": None,
        "best": None,
        "histogram": [],
        "recent": [],
    }
    assert empty["daily"] == {"played": 0, "streak": 0, "best_streak": 0}

    scores = [
        play_to_end(client, new_game(client, "nightmare", seed=s))["final_score"]["total"]
        for s in range(3)
    ]
    started = new_game(client, "nightmare", seed=9)
    act(client, started, {"type": "roll"})  # played, not finished
    new_game(client, "nightmare", seed=10, abandon=True)  # abandons it; no action: not played
    for day in (TODAY - timedelta(days=1), TODAY):
        client.headers[TEST_DATE_HEADER] = day.isoformat()
        daily = client.post("/api/daily/nightmare").json()
        scores.append(play_to_end(client, daily)["final_score"]["total"])
    found = client.get("/api/players/me/stats").json()
    nightmare = found["difficulties"]["nightmare"]
    assert nightmare["games"] == 6 and nightmare["finished"] == 5
    assert nightmare["mean"] == statistics.fmean(scores)
    assert nightmare["median"] == statistics.median(scores)
    assert nightmare["best"] == max(scores)
    assert nightmare["recent"] == scores  # oldest first
    assert sum(b["count"] for b in nightmare["histogram"]) == 5
    assert set(nightmare["histogram"][0]) == {"from", "to", "count"}
    assert found["difficulties"]["peaceful"]["games"] == 0
    assert found["daily"] == {"played": 2, "streak": 2, "best_streak": 2}


def test_recent_keeps_the_last_ones(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stats, "RECENT", 3)  # the last 20 in the app: 3 here, to play fewer
    scores = [
        play_to_end(client, new_game(client, "nightmare", seed=s))["final_score"]["total"]
        for s in range(5)
    ]
    found = client.get("/api/players/me/stats").json()["difficulties"]["nightmare"]
    assert found["recent"] == scores[-3:]
    assert found["finished"] == 5
