"""Past dailies: a day's dice played again once the day is over.

Once a daily's day is over (:mod:`.dailyday`: its dice are public), any player who did not
finish that day's daily may play its dice as a *past daily*: a game with the day's seed whose
``games.past_daily`` names the day. It is nobody's regular game (it neither blocks nor ends
one) and not the day's daily: it stays out of the day's leaderboard, the daily streak, the
leagues and the high scores, and it is shown as a past daily everywhere. At its end it is set
beside the day's leaderboard (where its score would stand), the day's par and the player's
friends' scores on the same dice.

One finished game per player, day and difficulty: a day whose daily or past daily the player
finished is played (:class:`~.errors.DailyPlayed`); an unfinished past daily is continued.
Two requests starting the same past daily at once may both make one (no unique index: a
device's games and an account's are merged on sign-in without a clash); the newest is
continued and the other stays unfinished, nothing lost.

A player's *friends* are the people they share a league with and the people they played a
challenge with (either way); a friend's game of a day is their daily or their past daily.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from sqlalchemy import Connection, Select, and_, case, func, or_, select, union

from ..engine import Difficulty, Game
from .db import Database
from .errors import DailyPlayed
from .models import (
    GameStatus,
    dailies,
    daily_scores,
    game_challenges,
    games,
    league_members,
    players,
    utcnow,
)
from .rows import GameRow

CALENDAR_DAYS = 42
"""The most days one calendar request answers (six weeks: a month's grid)."""


@dataclass(frozen=True)
class PastDay:
    """A player's game of one day's daily of a difficulty: the daily itself or a past daily."""

    day: date
    game_id: str
    status: GameStatus
    score: int | None
    past: bool
    """True: played as a past daily (after the day); False: the day's daily."""


@dataclass(frozen=True)
class FriendScore:
    """A friend's finished game of a day's dice."""

    player_id: int
    name: str | None
    score: int
    game_id: str
    past: bool
    """True: a past daily (not on the day's leaderboard)."""


def friends_of(player_id: int) -> Select[tuple[int]]:
    """The ids of a player's friends (see the module docstring), the player left out."""
    mine = league_members.alias("mine")
    theirs = league_members.alias("theirs")
    in_leagues = (
        select(theirs.c.player_id)
        .join(mine, mine.c.league_id == theirs.c.league_id)
        .where(mine.c.player_id == player_id)
    )
    # played one of my challenges
    played_mine = (
        select(games.c.player_id)
        .join(game_challenges, game_challenges.c.code == games.c.challenge)
        .where(game_challenges.c.player_id == player_id)
    )
    # made a challenge I played
    made_played = (
        select(game_challenges.c.player_id)
        .join(games, games.c.challenge == game_challenges.c.code)
        .where(games.c.player_id == player_id)
    )
    every = union(in_leagues, played_mine, made_played).subquery()
    return select(every.c[0]).where(every.c[0] != player_id)


class PastDailies:
    """The store's operations on past dailies (part of :class:`~magdagdon.store.Store`)."""

    db: Database
    _row: Callable[..., GameRow]
    _insert_game: Callable[..., GameRow]
    daily_seed: Callable[[date, Difficulty], bytes]

    def start_past_daily(
        self, player_id: int, day: date, difficulty: Difficulty
    ) -> tuple[GameRow, bool]:
        """The player's past daily of ``day``: a new game on the day's dice (True) or the one
        being played (False); :class:`DailyPlayed` with the finished game if the player
        finished that day's daily or past daily. The caller makes sure the day is over."""
        with self.db.transaction() as c:
            records = c.execute(
                select(games)
                .where(
                    games.c.player_id == player_id,
                    games.c.difficulty == difficulty.value,
                    or_(games.c.daily == day.isoformat(), games.c.past_daily == day.isoformat()),
                )
                .order_by(games.c.created_at.desc())
            ).all()
        for record in records:
            if record.status == GameStatus.OVER:
                raise DailyPlayed(self._row(record))
        for record in records:
            if record.past_daily is not None and record.status == GameStatus.ACTIVE:
                return self._row(record), False
        game = Game.new(difficulty, seed=self.daily_seed(day, difficulty))
        with self.db.transaction(write=True) as c:
            row = self._insert_game(
                c, secrets.token_hex(12), player_id, game, utcnow(), chosen=True, past_daily=day
            )
        return row, True

    def daily_calendar(
        self, player_id: int | None, difficulty: Difficulty, first: date, last: date
    ) -> dict[date, PastDay]:
        """The player's games of the dailies of ``first``…``last`` (at most
        :data:`CALENDAR_DAYS`) of a difficulty, by day: a finished game before an unfinished
        one (the day's daily before a past daily), a past daily being played before a daily
        left unfinished on its day."""
        if player_id is None or last < first:
            return {}
        first = max(first, last - timedelta(days=CALENDAR_DAYS - 1))
        span = (first.isoformat(), last.isoformat())
        with self.db.transaction() as c:
            records = c.execute(
                select(
                    games.c.id,
                    games.c.daily,
                    games.c.past_daily,
                    games.c.status,
                    games.c.score,
                    games.c.created_at,
                ).where(
                    games.c.player_id == player_id,
                    games.c.difficulty == difficulty.value,
                    or_(games.c.daily.between(*span), games.c.past_daily.between(*span)),
                    games.c.status != GameStatus.ABANDONED,
                )
            ).all()
        found: dict[date, PastDay] = {}

        def rank(entry: PastDay) -> tuple[bool, bool]:
            # finished first (the daily before a past daily); then a past daily being played
            # before a daily left unfinished on its day
            over = entry.status is GameStatus.OVER
            return (over, not entry.past if over else entry.past)

        for r in records:
            day = date.fromisoformat(r.daily or r.past_daily)
            entry = PastDay(
                day=day,
                game_id=r.id,
                status=GameStatus(r.status),
                score=r.score,
                past=r.past_daily is not None,
            )
            known = found.get(day)
            if known is None or rank(entry) > rank(known):
                found[day] = entry
        return found

    def daily_friends(self, player_id: int, day: date, difficulty: Difficulty) -> list[FriendScore]:
        """The player's friends' finished games of a day's dice (their daily or past daily),
        best first; each friend once (their daily before their past daily)."""
        with self.db.transaction() as c:
            return _friends_scores(c, player_id, day, difficulty)

    def daily_pars(self, difficulty: Difficulty, days: list[date]) -> dict[date, int]:
        """The pars known of the dailies of ``days`` of a difficulty, by day."""
        if not days:
            return {}
        with self.db.transaction() as c:
            records = c.execute(
                select(dailies.c.day, dailies.c.par).where(
                    dailies.c.difficulty == difficulty.value,
                    dailies.c.day.in_([d.isoformat() for d in days]),
                    dailies.c.par.is_not(None),
                )
            ).all()
        return {date.fromisoformat(r.day): r.par for r in records}

    def past_daily_standing(
        self, day: date, difficulty: Difficulty, score: int, *, ranked_only: bool
    ) -> tuple[int, int, int]:
        """Where a past daily's ``score`` would stand on its day's leaderboard
        (:func:`past_standing`)."""
        with self.db.transaction() as c:
            return past_standing(c, day, difficulty, score, ranked_only=ranked_only)


def _friends_scores(
    c: Connection, player_id: int, day: date, difficulty: Difficulty
) -> list[FriendScore]:
    records = c.execute(
        select(
            games.c.id,
            games.c.player_id,
            games.c.score,
            games.c.past_daily,
            games.c.finished_at,
            players.c.name,
        )
        .join(players, players.c.id == games.c.player_id)
        .where(
            games.c.player_id.in_(friends_of(player_id)),
            games.c.difficulty == difficulty.value,
            games.c.status == GameStatus.OVER,
            or_(
                games.c.daily == day.isoformat(),
                and_(games.c.past_daily == day.isoformat(), games.c.daily.is_(None)),
            ),
        )
        .order_by(games.c.past_daily.is_not(None), games.c.finished_at)
    ).all()
    best: dict[int, FriendScore] = {}
    for r in records:
        if r.player_id not in best:
            best[r.player_id] = FriendScore(
                player_id=r.player_id,
                name=r.name,
                score=r.score,
                game_id=r.id,
                past=r.past_daily is not None,
            )
    return sorted(best.values(), key=lambda f: (-f.score, f.past))


def past_standing(
    c: Connection, day: date, difficulty: Difficulty, score: int, *, ranked_only: bool
) -> tuple[int, int, int]:
    """Where ``score`` would stand on a day's leaderboard that it is not on: its rank (1 + the
    better scores), the leaderboard's players, and its percentile among them and it (the
    share at or below, rounded up, as for an unranked game: :meth:`.daily.Dailies.
    daily_leaderboard`)."""
    n = daily_scores
    counted = [n.c.day == day.isoformat(), n.c.difficulty == difficulty.value]
    if ranked_only:
        counted.append(n.c.ranked.is_(True))
    count, better = c.execute(
        select(
            func.coalesce(func.sum(n.c.players), 0),
            func.coalesce(func.sum(case((n.c.score > score, n.c.players), else_=0)), 0),
        ).where(*counted)
    ).one()
    among = int(count) + 1
    return int(better) + 1, int(count), math.ceil(100 * (among - int(better)) / among)
