"""Daily games: every UTC day, one game per difficulty with the same dice for everybody.

A daily's seed is derived from a server secret (made on first use and kept in the database,
so every worker and host derives the same seed) and the day and difficulty: HMAC-SHA-256 of
``"magdagdon daily YYYY-MM-DD difficulty"`` keyed with the secret. Nobody can work it out
before the server reveals it once the day is over. A player gets one attempt per daily (a
unique index); it is played like any other game (:meth:`~.games.Games.act`), and when it ends
it enters its day's leaderboard, ``daily_results``, rather than the high scores.

The par, the strong player's score on the day's dice, is computed by whichever worker claims
the daily first in ``dailies`` (a primary key decides between workers asking at once; a claim
not renewed for ``PAR_CLAIM_STALE`` with no par yet is taken over: its worker died).
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import (
    ColumnElement,
    Connection,
    case,
    delete,
    func,
    insert,
    literal,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from ..engine import Difficulty, Game
from .db import Database
from .errors import DailyPlayed
from .models import (
    GameStatus,
    dailies,
    daily_results,
    daily_scores,
    games,
    players,
    secrets_table,
    utcnow,
)
from .rows import GameRow

EPOCH = date(2026, 11, 30)
"""Daily number n is the day ``EPOCH + n days``: 2026-12-01 is daily #1."""
BOARD_ROWS = 20
"""Rows of a daily leaderboard."""
_SECRET = "daily"
_ROTATED = "daily from "
"""The name of a key made by ``rotate_daily_secret``, followed by its first day."""


def count_daily_score(c: Connection, day: str, difficulty: str, score: int, ranked: bool) -> None:
    """Count one more player with ``score`` on a daily, ranked or not (the finishing game's
    transaction): an upsert, so players finishing with the same score at once add up."""
    dialect = sqlite if c.dialect.name == "sqlite" else postgresql
    statement = dialect.insert(daily_scores).values(
        day=day, difficulty=difficulty, score=score, ranked=ranked, players=1
    )
    c.execute(
        statement.on_conflict_do_update(
            index_elements=["day", "difficulty", "score", "ranked"],
            set_={"players": daily_scores.c.players + 1},
        )
    )


def uncount_daily_score(c: Connection, day: str, difficulty: str, score: int, ranked: bool) -> None:
    """Count one player fewer with ``score`` on a daily (a result that leaves its leaderboard)."""
    key = (
        daily_scores.c.day == day,
        daily_scores.c.difficulty == difficulty,
        daily_scores.c.score == score,
        daily_scores.c.ranked == ranked,
    )
    c.execute(update(daily_scores).where(*key).values(players=daily_scores.c.players - 1))
    c.execute(delete(daily_scores).where(*key, daily_scores.c.players <= 0))


def _daily_key(day: date, difficulty: Difficulty) -> tuple[ColumnElement[bool], ...]:
    """The ``dailies`` row of a daily."""
    return (dailies.c.day == day.isoformat(), dailies.c.difficulty == difficulty.value)


def daily_number(day: date) -> int:
    """The daily's number, counted from 2026-12-01 (#1)."""
    return (day - EPOCH).days


@dataclass(frozen=True)
class DailyEntry:
    """A player's game of one daily."""

    difficulty: Difficulty
    status: GameStatus
    game_id: str
    score: int | None


@dataclass(frozen=True)
class BoardRow:
    """One row of a daily leaderboard."""

    rank: int
    game_id: str
    player_id: int
    name: str | None
    score: int
    turns: int
    powers_used: int
    hints_used: int


@dataclass(frozen=True)
class Standing:
    """A player's place on a daily leaderboard: rank (1 + the number of better scores) and
    percentile (the share of players at or below the score, 1–100, rounded up)."""

    rank: int
    score: int
    percentile: int
    ranked: bool = True
    """False for a game that is not on the leaderboard (an anonymous player's, while only
    accounts are ranked): where it would stand among the ranked games."""
    game_id: str | None = None
    """The player's game of the daily."""


@dataclass(frozen=True)
class Leaderboard:
    """A daily's leaderboard: how many finished, the top rows, the asking player's standing."""

    players: int
    rows: list[BoardRow]
    me: Standing | None
    par: int | None
    ranked_only: bool = False
    """Only accounts' games are ranked (and counted in ``players``)."""


PAR_CLAIM_STALE = timedelta(seconds=40)
"""A par's claim not renewed for this long is taken over: its worker renews it every
``web.par.HEARTBEAT`` seconds while it computes, so a claim this old belongs to a worker that
died (SIGKILL, a lost host)."""


class Dailies:
    """The store's operations on daily games (part of :class:`~magdagdon.store.Store`)."""

    db: Database
    _secrets: dict[date, bytes]
    _row: Callable[..., GameRow]
    _insert_game: Callable[..., GameRow]

    # --- the dice ---------------------------------------------------------------------

    def daily_secret(self, day: date) -> bytes:
        """The server's daily key for ``day``: made on first use, the same for every worker
        and host; after :meth:`rotate_daily_secret`, the newest one whose first day is not
        after ``day`` (a day's key never changes once the day has begun)."""
        known = self._secrets.get(day)
        if known is not None:
            return known
        rows = self._secret_rows()
        if _SECRET not in rows:
            try:
                with self.db.transaction(write=True) as c:
                    c.execute(
                        insert(secrets_table).values(
                            name=_SECRET, value=secrets.token_hex(32), created_at=utcnow()
                        )
                    )
            except IntegrityError:  # another worker made it first: theirs is the one
                pass
            rows = self._secret_rows()
        if _SECRET not in rows:
            raise RuntimeError("the daily secret could not be stored")
        value = rows[_SECRET]
        for name in sorted(rows):  # "daily from YYYY-MM-DD" in the order of their days
            if name.startswith(_ROTATED) and date.fromisoformat(name[len(_ROTATED) :]) <= day:
                value = rows[name]
        secret = bytes.fromhex(value)
        if len(self._secrets) > 1000:
            self._secrets.clear()
        self._secrets[day] = secret
        return secret

    def _secret_rows(self) -> dict[str, str]:
        query = select(secrets_table.c.name, secrets_table.c.value).where(
            (secrets_table.c.name == _SECRET) | secrets_table.c.name.startswith(_ROTATED)
        )
        with self.db.transaction() as c:
            return {name: value for name, value in c.execute(query)}

    def rotate_daily_secret(self, today: date) -> date:
        """Replace the daily key from the day after ``today`` on (UTC); that first day.

        Today's dailies keep their dice (players may be in the middle of them, and every
        player of a daily must get the same dice), and past days keep their seeds (they are
        published: anyone can check a score with them). Every worker reads a day's key when
        it first needs it, so all of them take the new key from its first day."""
        first = today + timedelta(days=1)
        name = f"{_ROTATED}{first.isoformat()}"
        with self.db.transaction(write=True) as c:
            c.execute(delete(secrets_table).where(secrets_table.c.name == name))
            c.execute(
                insert(secrets_table).values(
                    name=name, value=secrets.token_hex(32), created_at=utcnow()
                )
            )
        return first

    def daily_seed(self, day: date, difficulty: Difficulty) -> bytes:
        """The seed of a daily: secret until the day is over (see the module docstring)."""
        message = f"magdagdon daily {day.isoformat()} {difficulty.value}".encode()
        return hmac.new(self.daily_secret(day), message, hashlib.sha256).digest()

    # --- playing ----------------------------------------------------------------------

    def start_daily(
        self, player_id: int, day: date, difficulty: Difficulty
    ) -> tuple[GameRow, bool]:
        """The player's game of a daily: a new one (True) or the one being played (False);
        :class:`DailyPlayed` once it is over (one attempt per daily). Regular games are not
        touched."""
        found = self._daily_game(player_id, day, difficulty)
        if found is None:
            game = Game.new(difficulty, seed=self.daily_seed(day, difficulty))
            now = utcnow()
            game_id = secrets.token_hex(12)
            try:
                with self.db.transaction(write=True) as c:
                    row = self._insert_game(
                        c, game_id, player_id, game, now, chosen=False, daily=day
                    )
                return row, True
            except IntegrityError:  # the same player started it at the same moment
                found = self._daily_game(player_id, day, difficulty)
                if found is None:
                    raise
        if found.status is GameStatus.OVER:
            raise DailyPlayed(found)
        return found, False

    def _daily_game(self, player_id: int, day: date, difficulty: Difficulty) -> GameRow | None:
        with self.db.transaction() as c:
            record = c.execute(
                select(games).where(
                    games.c.daily == day.isoformat(),
                    games.c.difficulty == difficulty.value,
                    games.c.player_id == player_id,
                )
            ).first()
        return self._row(record) if record is not None else None

    def daily_games(self, player_id: int | None, day: date) -> dict[Difficulty, DailyEntry]:
        """The player's games of a day's dailies, by difficulty (those not started are absent)."""
        if player_id is None:
            return {}
        with self.db.transaction() as c:
            records = c.execute(
                select(games.c.id, games.c.difficulty, games.c.status, games.c.score).where(
                    games.c.daily == day.isoformat(), games.c.player_id == player_id
                )
            ).all()
        return {
            Difficulty(r.difficulty): DailyEntry(
                Difficulty(r.difficulty), GameStatus(r.status), r.id, r.score
            )
            for r in records
        }

    # --- the leaderboard --------------------------------------------------------------

    def daily_leaderboard(
        self,
        day: date,
        difficulty: Difficulty,
        player_id: int | None,
        limit: int = BOARD_ROWS,
        *,
        ranked_only: bool = False,
    ) -> Leaderboard:
        """A daily's leaderboard: its best games (ties: the earlier first, sharing a rank), the
        number of players, the asking player's standing and, once they have finished it, the
        par. The rows are the head of ``ix_daily_results_board``; the number of players and of
        better scores are sums over ``daily_scores`` (one row per score reached, a few hundred
        however many play; see BENCHMARKS.md). With ``ranked_only`` only accounts' games are
        ranked and counted; an anonymous player's standing is where they would stand."""
        r, n = daily_results, daily_scores
        on_board = (r.c.day == day.isoformat(), r.c.difficulty == difficulty.value)
        counted: tuple[ColumnElement[bool], ...] = (
            n.c.day == day.isoformat(),
            n.c.difficulty == difficulty.value,
        )
        if ranked_only:
            counted = (*counted, n.c.ranked.is_(True))
        top = (
            select(r, players.c.name)
            .join(players, players.c.id == r.c.player_id)
            .where(*on_board, *((r.c.ranked.is_(True),) if ranked_only else ()))
            .order_by(r.c.score.desc(), r.c.finished_at.asc(), r.c.id.asc())
            .limit(limit)
        )
        with self.db.transaction() as c:
            # the player's own score first, then the number of players and of better scores in
            # one statement: on PostgreSQL each statement sees the database as it is when it
            # starts, so read in this order the counts always include the player's game
            mine = None
            if player_id is not None:
                mine = c.execute(
                    select(r.c.score, r.c.ranked, r.c.game_id).where(
                        r.c.player_id == player_id, *on_board
                    )
                ).first()
            above = mine.score if mine is not None else None
            better_sum = (
                func.coalesce(func.sum(case((n.c.score > above, n.c.players), else_=0)), 0)
                if above is not None
                else literal(0)
            )
            counts = c.execute(
                select(func.coalesce(func.sum(n.c.players), 0), better_sum).where(*counted)
            ).one()
            count, better = int(counts[0]), int(counts[1])
            records = c.execute(top).all()
            me = None
            if mine is not None:
                on = not ranked_only or bool(mine.ranked)
                # (a count can only lag behind, never hide the player's game); an unranked
                # game is set among the ranked ones, where it would stand
                if on:
                    count = max(count, better + 1)
                among = count if on else count + 1
                # the share at or below, rounded up: a player who finished is never at 0 %
                percentile = math.ceil(100 * (among - better) / among)
                me = Standing(
                    rank=better + 1,
                    score=mine.score,
                    percentile=percentile,
                    ranked=on,
                    game_id=mine.game_id,
                )
            par = self._par(c, day, difficulty) if me is not None else None
        rows: list[BoardRow] = []
        for i, rec in enumerate(records):
            rank = rows[-1].rank if rows and rows[-1].score == rec.score else i + 1
            rows.append(
                BoardRow(
                    rank=rank,
                    game_id=rec.game_id,
                    player_id=rec.player_id,
                    name=rec.name,
                    score=rec.score,
                    turns=rec.turns,
                    powers_used=rec.powers_used,
                    hints_used=rec.hints_used,
                )
            )
        return Leaderboard(players=count, rows=rows, me=me, par=par, ranked_only=ranked_only)

    # --- the par ------------------------------------------------------------------------

    def daily_par(self, day: date, difficulty: Difficulty) -> int | None:
        """The strong player's score on a daily's dice, once computed."""
        with self.db.transaction() as c:
            return self._par(c, day, difficulty)

    @staticmethod
    def _par(c: Connection, day: date, difficulty: Difficulty) -> int | None:
        par: int | None = c.scalar(select(dailies.c.par).where(*_daily_key(day, difficulty)))
        return par

    def claim_par(
        self,
        day: date,
        difficulty: Difficulty,
        worker: str,
        *,
        now: datetime | None = None,
        stale_after: timedelta = PAR_CLAIM_STALE,
    ) -> bool:
        """Claim the computing of a daily's par for ``worker``: True for exactly one of any
        number of workers asking at once; later, True again only when the par is still
        missing and the claim was not renewed (:meth:`renew_par_claim`) for ``stale_after``
        (its worker died)."""
        now = now or utcnow()
        try:
            with self.db.transaction(write=True) as c:
                c.execute(
                    insert(dailies).values(
                        day=day.isoformat(),
                        difficulty=difficulty.value,
                        par=None,
                        par_claimed_at=now,
                        par_claimed_by=worker[:64],
                    )
                )
            return True
        except IntegrityError:
            pass
        with self.db.transaction(write=True) as c:
            taken = c.execute(
                update(dailies)
                .where(
                    *_daily_key(day, difficulty),
                    dailies.c.par.is_(None),
                    dailies.c.par_claimed_at < now - stale_after,
                )
                .values(par_claimed_at=now, par_claimed_by=worker[:64])
            )
            return taken.rowcount == 1

    def renew_par_claim(
        self, day: date, difficulty: Difficulty, worker: str, *, now: datetime | None = None
    ) -> bool:
        """``worker`` is still computing the par: its claim is fresh again. False when the claim
        is no longer its own (taken over after it went stale) or the par is stored."""
        with self.db.transaction(write=True) as c:
            renewed = c.execute(
                update(dailies)
                .where(
                    *_daily_key(day, difficulty),
                    dailies.c.par.is_(None),
                    dailies.c.par_claimed_by == worker[:64],
                )
                .values(par_claimed_at=now or utcnow())
            )
            return renewed.rowcount == 1

    def release_par(self, day: date, difficulty: Difficulty, worker: str) -> None:
        """Give up ``worker``'s claim on a par it could not compute: the next to ask claims it."""
        with self.db.transaction(write=True) as c:
            c.execute(
                delete(dailies).where(
                    *_daily_key(day, difficulty),
                    dailies.c.par.is_(None),
                    dailies.c.par_claimed_by == worker[:64],
                )
            )

    def save_par(self, day: date, difficulty: Difficulty, par: int) -> None:
        """Store a daily's par (once: a par already there stays)."""
        with self.db.transaction(write=True) as c:
            c.execute(
                update(dailies)
                .where(*_daily_key(day, difficulty), dailies.c.par.is_(None))
                .values(par=par)
            )
