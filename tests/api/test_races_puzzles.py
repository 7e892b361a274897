"""Puzzles under racing requests on two real server workers (SQLite and PostgreSQL): two
attempts of one player at a puzzle change the rating once, attempts at two puzzles at once
both count, and puzzles asked for at once are never the same one twice."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import httpx2
import pytest

from .test_api_puzzles import best_of, missing_plan, placing
from .test_races import at_once

pytestmark = pytest.mark.slow  # two real server workers


@pytest.fixture
def server(database_url: str) -> Iterator[str]:
    from ..utils.server import running_server

    with running_server(database_url, workers=2) as url:
        yield url


def device(url: str, cookies: httpx2.Cookies | None = None) -> httpx2.Client:
    return httpx2.Client(base_url=url, timeout=60, cookies=cookies)


def tabs(server: str, player: httpx2.Client, n: int) -> list[httpx2.Client]:
    """``n`` connections of one player (its cookie), which the two workers share."""
    return [device(server, player.cookies) for _ in range(n)]


def test_two_attempts_racing_rate_once(server: str) -> None:
    with device(server) as ann:
        puzzle = placing(ann)
        plans = [best_of(puzzle), missing_plan(puzzle)] * 3
        others = tabs(server, ann, len(plans))
        try:
            path = f"/api/puzzles/{puzzle['id']}/attempts"
            answers = at_once(
                [
                    partial(t.post, path, json={"actions": p})
                    for t, p in zip(others, plans, strict=True)
                ]
            )
        finally:
            for t in others:
                t.close()
        # (an attempt beyond the address's places in the coach's processes is refused at
        # once, before anything is graded or written: 429)
        assert {r.status_code for r in answers} <= {200, 429}, [r.text for r in answers]
        graded = [r.json() for r in answers if r.status_code == 200]
        assert len(graded) >= 2
        rated = [g for g in graded if g["rated"]]
        assert len(rated) == 1
        me = ann.get("/api/players/me/puzzles").json()["rating"]
        assert me["attempts"] == 1 and me["rating"] == rated[0]["player_rating"]["after"]


def test_attempts_at_two_puzzles_at_once_both_count(server: str) -> None:
    with device(server) as ben:
        first, second = placing(ben), placing(ben)
        others = tabs(server, ben, 2)
        try:
            answers = at_once(
                [
                    partial(
                        t.post, f"/api/puzzles/{p['id']}/attempts", json={"actions": best_of(p)}
                    )
                    for t, p in zip(others, (first, second), strict=True)
                ]
            )
        finally:
            for t in others:
                t.close()
        assert all(r.json()["rated"] and r.json()["solved"] for r in answers)
        me = ben.get("/api/players/me/puzzles").json()["rating"]
        assert me["attempts"] == 2 and me["solved"] == 2
        # the second update read the first's rating (none was lost)
        assert me["rating"] == max(r.json()["player_rating"]["after"] for r in answers)
        before = sorted(r.json()["player_rating"]["before"] for r in answers)
        assert before[0] == 1500.0 and before[1] > 1500.0


def test_puzzles_asked_at_once_are_all_different(server: str) -> None:
    with device(server) as cat:
        cat.get("/api/players/me")  # the cookie first
        others = tabs(server, cat, 8)
        try:
            answers = at_once(
                [partial(t.get, "/api/puzzles/next?difficulty=peaceful") for t in others]
            )
        finally:
            for t in others:
                t.close()
        assert [r.status_code for r in answers] == [200] * 8, [r.text for r in answers]
        ids = [r.json()["id"] for r in answers]
        assert len(set(ids)) == 8
