"""A player's statistics: games per difficulty, their scores in figures and a histogram, the
last scores in order, and the streak of days with a finished daily game."""

from __future__ import annotations

import math
import statistics
from collections.abc import Container
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import select

from ..engine import Difficulty
from .db import Database
from .models import GameStatus, daily_results, games

RECENT = 20
"""Scores in a difficulty's trend."""
BINS = 10
"""At most this many bars in a histogram."""
_WIDTHS = (5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000)


@dataclass(frozen=True)
class Bin:
    """A histogram bar: scores from ``start`` (inclusive) to ``end`` (exclusive)."""

    start: int
    end: int
    count: int


@dataclass(frozen=True)
class DifficultyStats:
    """A player's games of one difficulty."""

    games: int
    finished: int
    mean: float | None
    median: float | None
    best: int | None
    histogram: list[Bin]
    recent: list[int]


@dataclass(frozen=True)
class DailyStats:
    """A player's daily games: how many finished, and the days in a row."""

    played: int
    streak: int
    best_streak: int


@dataclass(frozen=True)
class PlayerStats:
    """Everything the Statistics sheet shows."""

    difficulties: dict[Difficulty, DifficultyStats]
    daily: DailyStats


def histogram(scores: list[int]) -> list[Bin]:
    """Bars of one round width (5, 10, 20, 25, 50, …) covering the scores in at most
    :data:`BINS` bars, the first starting at a multiple of the width."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    for width in _WIDTHS:
        start = math.floor(low / width) * width
        if (high - start) // width + 1 <= BINS:
            break
    count = (high - start) // width + 1
    bars = [0] * count
    for score in scores:
        bars[(score - start) // width] += 1
    return [Bin(start + i * width, start + (i + 1) * width, n) for i, n in enumerate(bars)]


def streak_end(days: Container[date], today: date, open_day: date | None = None) -> date:
    """The last day of a current streak: today, or the day before for each day not played yet
    that is not over (today still to play; and within :data:`.dailyday.DAILY_GRACE` after
    midnight, yesterday too: ``open_day``, :func:`.dailyday.first_open_day`). A day breaks a
    streak only once it is over; a game counts for its own day, whenever it was finished."""
    first = today if open_day is None else min(open_day, today)
    day = today
    while day not in days and day >= first:
        day -= timedelta(days=1)
    return day


def streaks(days: set[date], today: date, open_day: date | None = None) -> tuple[int, int]:
    """The current streak (days in a row ending today, or before the days still to play:
    :func:`streak_end`) and the longest ever."""
    current = 0
    day = streak_end(days, today, open_day)
    while day in days:
        current += 1
        day -= timedelta(days=1)
    best = 0
    for day in days:
        if day - timedelta(days=1) not in days:  # the start of a run
            length = 1
            while day + timedelta(days=length) in days:
                length += 1
            best = max(best, length)
    return current, best


class Stats:
    """The store's statistics of a player (part of :class:`~magdagdon.store.Store`)."""

    db: Database

    def player_stats(
        self, player_id: int, today: date, open_day: date | None = None
    ) -> PlayerStats:
        """A player's statistics: all their games that saw an action, regular and daily (a
        daily is a game of its difficulty); abandoned ones are played and not finished. The
        daily streak counts each daily for its own day (``open_day``: :func:`streak_end`)."""
        with self.db.transaction() as c:
            records = c.execute(
                select(games.c.difficulty, games.c.status, games.c.score)
                # a game counts as played from its first action (not the one a first visit
                # or NEW GAME sets out, until its ROLL)
                .where(games.c.player_id == player_id, games.c.action_count > 0)
                .order_by(games.c.finished_at.asc(), games.c.created_at.asc())
            ).all()
            played_days = c.execute(
                select(daily_results.c.day).where(daily_results.c.player_id == player_id)
            ).all()
        per: dict[Difficulty, DifficultyStats] = {}
        for difficulty in Difficulty:
            mine = [r for r in records if r.difficulty == difficulty.value]
            scores = [r.score for r in mine if r.status == GameStatus.OVER and r.score is not None]
            per[difficulty] = DifficultyStats(
                games=len(mine),
                finished=len(scores),
                mean=statistics.fmean(scores) if scores else None,
                median=float(statistics.median(scores)) if scores else None,
                best=max(scores) if scores else None,
                histogram=histogram(scores),
                recent=scores[-RECENT:],
            )
        days = {date.fromisoformat(d) for (d,) in played_days}
        streak, best = streaks(days, today, open_day)
        return PlayerStats(
            per, DailyStats(played=len(played_days), streak=streak, best_streak=best)
        )
