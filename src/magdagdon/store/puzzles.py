"""Puzzles and the player's finished games: what they are given, their attempts, their ratings.

A puzzle (:mod:`magdagdon.ai.puzzles`) is a position of a real game where one plan stands out.
Public puzzles come from the starter set shipped in the package (:func:`starter_puzzles`,
loaded by ``magdagdon migrate`` or on the first ask of a new server), from the coach's own
games and from the finished games of the server (``magdagdon puzzles mine``); a player's own
puzzles (``owner``) are the turns of their games where their plan lost the most, rated apart
(pool ``own``) and never counted against the public ones.

**Choosing.** The next puzzle is the one nearest the player's rating (a little jitter, so
players of one rating do not all meet the same), in the difficulty and with the theme asked,
never one the player was given before (``puzzle_served``: its primary key is the player and the
puzzle, so two workers choosing at once cannot give one twice: the loser chooses again) and
never one of their own games. It walks the ``(difficulty, rating, id)`` index from the
target up and down, so it costs the same with 100,000 puzzles as with 2,000. In STREAK the
target is not the rating but :data:`STREAK_START` plus :data:`STREAK_STEP` per puzzle solved in
a row. The daily puzzle is the same for everybody on a UTC day. A retired puzzle (a starter
puzzle a later starter set dropped, :func:`load_starter`) is never given again.

**Attempts.** Only a puzzle given to the player may be attempted (they cannot pick one whose
answer they learned elsewhere). The first attempt of a player at a puzzle is rated (Glicko-2,
:mod:`magdagdon.ratings`: the player wins against the puzzle when it is solved), unless it is
STREAK's; a second try changes nothing.

**Harvested answers** (an outside probe: ten throwaway players collected 51 answers, their
misses pushed those puzzles to where a winning account's were chosen, and the account climbed
1500 → 2134 skipping what it did not know). Three rules keep the rating honest: a puzzle's
rating moves only with the attempts of players who have made :data:`ESTABLISHED` rated
attempts (as lichess weighs its puzzles' votes), so throwaway players move nothing; the next
puzzle is one at random within :data:`BAND` of the target, so the choice follows neither the
puzzles' order nor what others were just given; and a rated puzzle given and not tried for
:data:`SKIPPED_AFTER` counts as missed (settled when the player next asks for one), so
skipping costs what missing does. A skipped puzzle's attempt has no actions.

The rating's row is taken first (``FOR UPDATE`` on PostgreSQL; SQLite has one writer) and a
unique index allows one first attempt per player and puzzle, so two attempts racing on two
workers rate once.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any, Final

from sqlalchemy import (
    Connection,
    and_,
    bindparam,
    case,
    delete,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from ..ai.puzzlecheck import position_key
from ..ai.puzzles import THEMES, Grade, Position, Puzzle, starter_puzzles
from ..engine import Difficulty
from ..ratings import Rating, attempt
from .db import Database
from .highscores import aware
from .models import (
    GameStatus,
    game_challenges,
    games,
    players,
    puzzle_attempts,
    puzzle_ratings,
    puzzle_served,
    puzzles,
    rooms,
    utcnow,
)

log = logging.getLogger(__name__)

STARTED: Final = "starter:"
"""The source of a starter puzzle begins so (then where it was found)."""
MODES: Final = ("rated", "streak", "daily", "own")
"""How a puzzle is asked: rated (the public pool, by rating), STREAK (harder each time, not
rated), the daily puzzle, the player's own."""
STREAK_START: Final = 1200.0
"""STREAK's first puzzle's rating."""
STREAK_STEP: Final = 40.0
"""…and how much harder each next one is."""
WINDOW: Final = 64
"""Puzzles read at a time while looking for the nearest ones not given before."""
NEAREST: Final = 8
"""The next puzzle is one of the nearest this many to the target, at random."""
JITTER: Final = 60.0
"""The target rating lies this much either side of the player's, at random (when no puzzle
lies within :data:`BAND` of it)."""
BAND: Final = 100.0
"""The next puzzle is one at random of those unseen within this much of the target rating:
the choice follows neither the order of the puzzles nor what other players were given."""
ESTABLISHED: Final = 20
"""Rated attempts a player has made before their attempts move a puzzle's rating: throwaway
players' misses cannot push puzzles towards the players they want to serve them to."""
SKIPPED_AFTER: Final = timedelta(minutes=10)
"""A rated puzzle given and not tried this long counts as missed: skipping the ones whose
answer a player does not know costs what a miss costs."""
SKIPS_COUNTED_FROM: Final = datetime(2026, 12, 4, tzinfo=UTC)
"""Puzzles given before this day (of the release that counts skips) stay free to skip, as
they were when they were given."""
HISTORY: Final = 200
"""Rated attempts the rating's history shows."""


class PuzzleNotFound(LookupError):
    """No such puzzle for this player (or none left to give)."""


def theme_mask(themes: Iterable[str]) -> int:
    """The themes as bits of :data:`~magdagdon.ai.puzzles.THEMES`."""
    return sum(1 << THEMES.index(t) for t in set(themes) if t in THEMES)


def puzzle_shape(position: Position) -> str:
    """The puzzle check's :func:`~magdagdon.ai.puzzlecheck.position_key` of a position (up to
    the board's 8 symmetries and the dice's order, the turn count left out), hashed: what
    makes two puzzles one."""
    return hashlib.sha256(json.dumps(position_key(position)).encode()).hexdigest()


def puzzle_key(puzzle: Puzzle, owner: int | None) -> str:
    """The puzzle's position with its owner, hashed: loaded once."""
    text = json.dumps([puzzle.position.to_dict(), owner], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class PuzzleRow:
    """A stored puzzle as the API shows it."""

    id: int
    difficulty: Difficulty
    position: dict[str, Any]
    best: list[dict[str, Any]]
    best_value: float
    second_value: float
    themes: list[str]
    rating: float
    owner: int | None
    mode: str = "rated"


@dataclass(frozen=True)
class AttemptResult:
    """What an attempt came to."""

    solved: bool
    best: list[dict[str, Any]]
    yours: float
    best_value: float
    rated: bool
    before: float
    after: float
    puzzle_rating: float
    streak: int
    themes: list[str]


@dataclass(frozen=True)
class FinishedGame:
    """One of the player's finished games, as MY GAMES lists it."""

    id: str
    difficulty: str
    score: int
    turns: int
    hints_used: int
    finished_at: datetime
    daily: str | None
    challenge: str | None
    past_daily: str | None = None
    """A past daily: the day whose dice it played again."""


def _row(r: Any, mode: str = "rated") -> PuzzleRow:
    return PuzzleRow(
        r.id,
        Difficulty(r.difficulty),
        dict(r.position),
        list(r.best),
        float(r.best_value),
        float(r.second_value),
        list(r.themes),
        float(r.rating),
        r.owner,
        mode,
    )


def _rating_row(c: Connection, player_id: int, pool: str, lock: bool) -> Any:
    """The player's rating row of a pool (made when missing), locked for the transaction."""
    query = select(puzzle_ratings).where(
        puzzle_ratings.c.player_id == player_id, puzzle_ratings.c.pool == pool
    )
    if not lock:
        return c.execute(query).first()
    c.execute(
        _insert(c)(puzzle_ratings)
        .values(
            player_id=player_id,
            pool=pool,
            rating=1500.0,
            deviation=350.0,
            volatility=0.06,
            attempts=0,
            solved=0,
            streak=0,
            best_streak=0,
            updated_at=utcnow(),
        )
        .on_conflict_do_nothing()  # (there, or made by a racing attempt meanwhile)
    )
    return c.execute(query.with_for_update()).one()


def _pool(player_id: int, difficulty: Difficulty, theme: str | None, mode: str) -> list[Any]:
    """The conditions on the puzzles a choice looks among: the difficulty, the public pool or
    (``own``) the player's own, and the theme asked."""
    where = [puzzles.c.difficulty == difficulty.value, puzzles.c.retired.is_(False)]
    where.append(puzzles.c.owner == player_id if mode == "own" else puzzles.c.owner.is_(None))
    if theme:
        where.append(puzzles.c.theme_mask.op("&")(1 << THEMES.index(theme)) != 0)
    return where


def _established(c: Connection, player_id: int) -> bool:
    """Whether the player has made :data:`ESTABLISHED` rated attempts of their own (puzzles
    skipped do not count: asking for puzzles and leaving them makes nobody established)."""
    made = c.scalar(
        select(func.count())
        .select_from(puzzle_attempts)
        .where(
            puzzle_attempts.c.player_id == player_id,
            puzzle_attempts.c.rated.is_(True),
            puzzle_attempts.c.skipped.is_(False),
        )
    )
    return int(made or 0) >= ESTABLISHED


def _open(c: Connection, player_id: int, mode: str, window: Sequence[Any]) -> list[Any]:
    """The puzzles of a window (rows with ``id``, ``source_player``, ``source_game``) that may
    be given to the player: never given before, not of their own games (but in ``own``), and
    not on a challenge's dice they have not played (:func:`_withheld`)."""
    given = set(
        c.execute(
            select(puzzle_served.c.puzzle_id).where(
                puzzle_served.c.player_id == player_id,
                puzzle_served.c.puzzle_id.in_([r.id for r in window]),
            )
        ).scalars()
    )
    withheld = _withheld(c, player_id, {r.source_game for r in window} - {None})
    return [
        r
        for r in window
        if r.id not in given
        and not (mode != "own" and r.source_player == player_id)
        and r.source_game not in withheld
    ]


def _withheld(c: Connection, player_id: int, sources: set[str]) -> set[str]:
    """Of these games (puzzles' sources), those on a challenge's dice that the player has not
    played to its end nor made: a puzzle from the challenger's game, or from a friend's game
    of it, would show the player the challenge's rolls before they play it."""
    if not sources:
        return set()
    challenged = c.execute(
        select(game_challenges.c.game_id.label("game"), game_challenges.c.code).where(
            game_challenges.c.game_id.in_(sources)
        )
    ).all()
    played = c.execute(
        select(games.c.id.label("game"), games.c.challenge.label("code")).where(
            games.c.id.in_(sources), games.c.challenge.is_not(None)
        )
    ).all()
    codes = {r.game: r.code for r in [*challenged, *played]}
    if not codes:
        return set()
    known = set(
        c.execute(
            select(game_challenges.c.code).where(
                game_challenges.c.code.in_(set(codes.values())),
                game_challenges.c.player_id == player_id,
            )
        ).scalars()
    ) | set(
        c.execute(
            select(games.c.challenge).where(
                games.c.challenge.in_(set(codes.values())),
                games.c.player_id == player_id,
                games.c.status == GameStatus.OVER.value,
            )
        ).scalars()
    )
    return {game for game, code in codes.items() if code not in known}


def _hold_player(c: Connection, player_id: int) -> None:
    """Take the player's row (``FOR KEY SHARE`` on PostgreSQL) before writing a row that names
    them: a sign-in's merge or a deletion of the player, which take it ``FOR UPDATE``, waits
    for this transaction or this one for it, and neither meets the other's rows half-way."""
    c.execute(select(players.c.id).where(players.c.id == player_id).with_for_update(key_share=True))


def _insert(c: Connection) -> Any:
    """INSERT … ON CONFLICT DO NOTHING of this database."""
    return pg_insert if c.dialect.name == "postgresql" else sqlite_insert


def insert_puzzles(
    c: Connection,
    found: Iterable[Puzzle],
    *,
    owner: int | None = None,
    source_player: int | None = None,
    source_game: str | None = None,
) -> int:
    """Add puzzles (those already there are skipped, and one of a position a pool already
    holds: the public puzzles, or the owner's, up to the board's symmetries and the dice's
    order, :func:`puzzle_shape`); how many were added."""
    rows = []
    for puzzle in found:
        position = puzzle.position.to_dict()
        rows.append(
            {
                "key": puzzle_key(puzzle, owner),
                "shape": puzzle_shape(puzzle.position),
                "difficulty": puzzle.position.difficulty.value,
                "owner": owner,
                "source": puzzle.source[:64],
                "source_player": source_player,
                "source_game": source_game,
                "position": position,
                "best": puzzle.best,
                "best_value": puzzle.best_value,
                "second_value": puzzle.second_value,
                "plans": puzzle.plans,
                "themes": puzzle.themes,
                "theme_mask": theme_mask(puzzle.themes),
                "check_figures": puzzle.check,
                "rating": 1500.0,
                "deviation": 350.0,
                "volatility": 0.06,
                "plays": 0,
                "solves": 0,
                "created_at": utcnow(),
            }
        )
    if not rows:
        return 0
    keys = [r["key"] for r in rows]
    shapes = [r["shape"] for r in rows]
    pool = puzzles.c.owner.is_(None) if owner is None else puzzles.c.owner == owner
    there: set[str] = set()  # keys
    held: set[str] = set()  # the pool's positions (shapes)
    for start in range(0, len(keys), 500):
        there |= set(
            c.execute(select(puzzles.c.key).where(puzzles.c.key.in_(keys[start : start + 500])))
            .scalars()
            .all()
        )
        held |= set(
            c.execute(
                select(puzzles.c.shape).where(
                    pool,
                    puzzles.c.retired.is_(False),
                    puzzles.c.shape.in_(shapes[start : start + 500]),
                )
            )
            .scalars()
            .all()
        )
    fresh = []
    for r in rows:  # (two games may have met the same position: it is one puzzle)
        if r["key"] not in there and r["shape"] not in held:
            there.add(str(r["key"]))
            held.add(str(r["shape"]))
            fresh.append(r)
    if fresh:  # (a racing miner's copy of the same position is skipped)
        c.execute(_insert(c)(puzzles).on_conflict_do_nothing(), fresh)
    return len(fresh)


def load_starter(db: Database) -> int:
    """Load the starter set unless it is there; how many puzzles were added (two processes
    loading at once: one loads, the other finds them).

    A database holding an older starter set (one whose puzzles were loaded without the check's
    figures: every puzzle of today's set is checked, ``ai.puzzlecheck``) is brought up to date
    in place: a position both sets hold gets today's answer, values, themes and figures but
    keeps its rating and its attempts; one that today's set dropped (a repeat, an answer the
    check did not confirm) is retired, never given again but kept with what players did; the
    new ones are added."""
    starter = and_(puzzles.c.source.startswith(STARTED), puzzles.c.owner.is_(None))
    with db.transaction() as c:
        if c.scalar(select(puzzles.c.id).where(starter).limit(1)) and not c.scalar(
            select(puzzles.c.id)
            .where(starter, puzzles.c.retired.is_(False), puzzles.c.check_figures.is_(None))
            .limit(1)
        ):
            return 0
    found = {
        puzzle_key(p, None): replace(p, source=f"{STARTED}{p.source}") for p in starter_puzzles()
    }
    with db.transaction(write=True) as c:  # (a racing loader's rows are skipped)
        older = {k: i for k, i in c.execute(select(puzzles.c.key, puzzles.c.id).where(starter))}
        kept = [
            {  # (a bound parameter may not take a column's name: each is the column's "new_")
                "new_id": older[key],
                "new_best": p.best,
                "new_best_value": p.best_value,
                "new_second_value": p.second_value,
                "new_plans": p.plans,
                "new_themes": p.themes,
                "new_theme_mask": theme_mask(p.themes),
                "new_check_figures": p.check,
                "new_source": p.source[:64],
                "new_shape": puzzle_shape(p.position),
            }
            for key, p in found.items()
            if key in older
        ]
        if kept:
            changed: dict[str, Any] = {
                k.removeprefix("new_"): bindparam(k) for k in kept[0] if k != "new_id"
            }
            c.execute(
                update(puzzles)
                .where(puzzles.c.id == bindparam("new_id"))
                .values({**changed, "retired": False}),
                kept,
            )
        dropped = [ident for key, ident in older.items() if key not in found]
        for start in range(0, len(dropped), 500):
            c.execute(
                update(puzzles)
                .where(puzzles.c.id.in_(dropped[start : start + 500]))
                .values(retired=True)
            )
        added = insert_puzzles(c, [p for key, p in found.items() if key not in older])
    if older:
        log.info(
            "brought the starter set up to date: %d puzzles kept with new figures, %d retired",
            len(kept),
            len(dropped),
        )
    _analyze(db)
    return added


def _analyze(db: Database) -> None:
    """On PostgreSQL, the planner's statistics of the puzzles' tables brought up to date after
    a bulk load (until autovacuum gets to it, a table it has never seen looks empty to the
    planner, which then sorts every puzzle of a difficulty instead of walking the index)."""
    if db.is_postgresql:
        with db.engine.connect() as c:
            c.execute(text("ANALYZE puzzles"))
            c.execute(text("ANALYZE puzzle_served"))
            c.commit()


class Puzzles:
    """The store's operations on puzzles and on the player's finished games (part of
    :class:`~magdagdon.store.Store`)."""

    db: Database

    # --- choosing -----------------------------------------------------------------------------

    def _ensure_puzzles(self) -> None:
        if not getattr(self, "_puzzles_loaded", False):
            load_starter(self.db)
            self._puzzles_loaded = True

    def next_puzzle(
        self,
        player_id: int,
        difficulty: Difficulty | None = None,
        theme: str | None = None,
        mode: str = "rated",
        rng: random.Random | None = None,
    ) -> PuzzleRow:
        """The next puzzle for the player (module docstring), now given to them;
        PuzzleNotFound when none is left."""
        if mode not in ("rated", "streak", "own"):
            raise ValueError(f"unknown mode {mode!r}")
        self._ensure_puzzles()
        if mode == "rated":
            self.settle_skipped(player_id)
        pool = "own" if mode == "own" else "public"
        chance = rng or random
        for _ in range(8):
            with self.db.transaction() as c:
                rating = _rating_row(c, player_id, pool, lock=False)
                if mode == "streak":
                    streak = rating.streak if rating is not None else 0
                    target = STREAK_START + STREAK_STEP * streak
                else:
                    target = rating.rating if rating is not None else 1500.0
                levels = [difficulty] if difficulty else list(Difficulty)
                banded: list[int] = []
                for level in levels:
                    banded += self._in_band(c, player_id, level, theme, mode, target, chance)
                near: list[tuple[float, int]] = []
                if not banded:
                    target += chance.uniform(-JITTER, JITTER)
                    for level in levels:
                        near += self._near(c, player_id, level, theme, mode, target)
            if not banded and not near:
                raise PuzzleNotFound("no puzzle left")
            # one at random of the unseen ones within the band; else of the nearest few:
            # players of one rating (a new server's puzzles are all 1500) do not all reach
            # for the same one
            best = (0.0, chance.choice(banded)) if banded else chance.choice(sorted(near)[:NEAREST])
            try:
                with self.db.transaction(write=True) as c:
                    _hold_player(c, player_id)
                    c.execute(
                        insert(puzzle_served).values(
                            player_id=player_id, puzzle_id=best[1], mode=mode, served_at=utcnow()
                        )
                    )
                    row = c.execute(select(puzzles).where(puzzles.c.id == best[1])).one()
                return _row(row, mode)
            except IntegrityError:
                continue  # given to the player by another worker just now: choose again
        raise PuzzleNotFound("no puzzle left")

    @staticmethod
    def _in_band(
        c: Connection,
        player_id: int,
        difficulty: Difficulty,
        theme: str | None,
        mode: str,
        target: float,
        chance: random.Random | Any,
    ) -> list[int]:
        """Some unseen puzzles within :data:`BAND` of the target, from a random point of the
        ids on (and round again from the first): ids. At most :data:`WINDOW` puzzles of the
        band are read each way, so it costs the same however many puzzles there are; a band
        so sparse that none is found leaves the choice to :meth:`_near`."""
        where = _pool(player_id, difficulty, theme, mode)
        where.append(puzzles.c.rating.between(target - BAND, target + BAND))
        low, high = c.execute(select(func.min(puzzles.c.id), func.max(puzzles.c.id))).one()
        if low is None:
            return []
        pivot = chance.randint(low, high)
        for side in (puzzles.c.id >= pivot, puzzles.c.id < pivot):
            window = c.execute(
                select(puzzles.c.id, puzzles.c.source_player, puzzles.c.source_game)
                .where(*where, side)
                .order_by(puzzles.c.id)
                .limit(WINDOW)
            ).all()
            if not window:
                continue
            found = [r.id for r in _open(c, player_id, mode, window)]
            if found:
                return found[:NEAREST]
        return []

    @staticmethod
    def _near(
        c: Connection,
        player_id: int,
        difficulty: Difficulty,
        theme: str | None,
        mode: str,
        target: float,
    ) -> list[tuple[float, int]]:
        """The nearest unseen puzzles above and below the target (:data:`NEAREST` each way):
        (distance, id) pairs. Each way walks the index in windows of :data:`WINDOW` puzzles
        (keyset paging on ``(rating, id)``), the ones given to the player taken out of each
        window by their primary key: the database never reads more than the windows, whatever
        its planner's statistics say."""
        where = _pool(player_id, difficulty, theme, mode)
        out: list[tuple[float, int]] = []
        for upward in (True, False):
            found: list[tuple[float, int]] = []
            mark: tuple[float, int] | None = None
            while len(found) < NEAREST:
                rating, ident = puzzles.c.rating, puzzles.c.id
                if upward:
                    side = rating >= target
                    after = (
                        or_(rating > mark[0], and_(rating == mark[0], ident > mark[1]))
                        if mark
                        else None
                    )
                    order: tuple[Any, Any] = (rating, ident)
                else:
                    side = rating < target
                    after = (
                        or_(rating < mark[0], and_(rating == mark[0], ident < mark[1]))
                        if mark
                        else None
                    )
                    order = (rating.desc(), ident.desc())
                query = select(ident, rating, puzzles.c.source_player, puzzles.c.source_game)
                query = query.where(*where, side)
                if after is not None:
                    query = query.where(after)
                window = c.execute(query.order_by(*order).limit(WINDOW)).all()
                if not window:
                    break
                for r in _open(c, player_id, mode, window):
                    found.append((abs(r.rating - target), r.id))
                mark = (window[-1].rating, window[-1].id)
                if len(window) < WINDOW:
                    break
            out += found[:NEAREST]
        return out

    def daily_puzzle(self, player_id: int, day: date) -> PuzzleRow:
        """The day's puzzle (the same for everybody), given to the player."""
        self._ensure_puzzles()
        digest = int.from_bytes(hashlib.sha256(f"puzzle {day.isoformat()}".encode()).digest()[:8])
        with self.db.transaction(write=True) as c:
            _hold_player(c, player_id)
            low, high = c.execute(
                select(func.min(puzzles.c.id), func.max(puzzles.c.id)).where(
                    puzzles.c.owner.is_(None)
                )
            ).one()
            if low is None:
                raise PuzzleNotFound("no puzzle")
            pick = low + digest % (high - low + 1)
            # everybody's, so never one on a challenge's dice (module docstring)
            public = and_(
                puzzles.c.owner.is_(None),
                puzzles.c.retired.is_(False),
                or_(
                    puzzles.c.source_game.is_(None),
                    puzzles.c.source_game.not_in(select(game_challenges.c.game_id)),
                ),
            )
            row = c.execute(
                select(puzzles).where(public, puzzles.c.id >= pick).order_by(puzzles.c.id).limit(1)
            ).first()
            if row is None:  # (a gap at the end)
                row = c.execute(select(puzzles).where(public).order_by(puzzles.c.id)).first()
            if row is None:
                raise PuzzleNotFound("no puzzle")
            c.execute(  # (given already, in any mode: it stays as it was)
                _insert(c)(puzzle_served)
                .values(player_id=player_id, puzzle_id=row.id, mode="daily", served_at=utcnow())
                .on_conflict_do_nothing()
            )
        return _row(row, "daily")

    def given_puzzle(self, player_id: int, puzzle_id: int) -> PuzzleRow:
        """A puzzle the player was given (to show it again: a reload); PuzzleNotFound else."""
        with self.db.transaction() as c:
            row = c.execute(
                select(puzzles, puzzle_served.c.mode)
                .join(puzzle_served, puzzle_served.c.puzzle_id == puzzles.c.id)
                .where(puzzles.c.id == puzzle_id, puzzle_served.c.player_id == player_id)
            ).first()
        if row is None:
            raise PuzzleNotFound(str(puzzle_id))
        return _row(row, row.mode)

    # --- attempts -----------------------------------------------------------------------------

    def settle_skipped(self, player_id: int, now: datetime | None = None) -> int:
        """Count the player's rated puzzles given more than :data:`SKIPPED_AFTER` ago and never
        tried as missed (each a rated attempt with no actions); how many."""
        now = now or utcnow()
        tried = (
            select(puzzle_attempts.c.id)
            .where(
                puzzle_attempts.c.player_id == player_id,
                puzzle_attempts.c.puzzle_id == puzzle_served.c.puzzle_id,
            )
            .exists()
        )
        skipped = select(puzzle_served.c.puzzle_id).where(
            puzzle_served.c.player_id == player_id,
            puzzle_served.c.mode == "rated",
            puzzle_served.c.served_at < now - SKIPPED_AFTER,
            puzzle_served.c.served_at >= SKIPS_COUNTED_FROM,
            ~tried,
        )
        with self.db.transaction() as c:
            if not c.execute(skipped.limit(1)).first():
                return 0
        count = 0
        try:
            with self.db.transaction(write=True) as c:
                _hold_player(c, player_id)
                chosen = skipped.order_by(puzzle_served.c.puzzle_id)  # (locks in id order)
                for puzzle_id in c.execute(chosen).scalars().all():
                    count += self._skip(c, player_id, puzzle_id, now)
        except IntegrityError:  # one was tried meanwhile (a racing attempt): settled next time
            return 0
        return count

    @staticmethod
    def _skip(c: Connection, player_id: int, puzzle_id: int, now: datetime) -> int:
        """One puzzle given and never tried, counted as a rated miss (the caller's
        transaction, the player held)."""
        mine = _rating_row(c, player_id, "public", lock=True)
        puzzle = c.execute(
            select(puzzles.c.rating, puzzles.c.deviation, puzzles.c.volatility)
            .where(puzzles.c.id == puzzle_id)
            .with_for_update()
        ).one()
        before = Rating(mine.rating, mine.deviation, mine.volatility)
        after, puzzle_after = attempt(before, Rating(*puzzle), False)
        c.execute(
            update(puzzle_ratings)
            .where(puzzle_ratings.c.player_id == player_id, puzzle_ratings.c.pool == "public")
            .values(
                rating=after.rating,
                deviation=after.deviation,
                volatility=after.volatility,
                attempts=puzzle_ratings.c.attempts + 1,
                updated_at=now,
            )
        )
        changed: dict[str, Any] = {"plays": puzzles.c.plays + 1}
        if _established(c, player_id):
            changed |= {
                "rating": puzzle_after.rating,
                "deviation": puzzle_after.deviation,
                "volatility": puzzle_after.volatility,
            }
        c.execute(update(puzzles).where(puzzles.c.id == puzzle_id).values(**changed))
        c.execute(
            insert(puzzle_attempts).values(
                puzzle_id=puzzle_id,
                player_id=player_id,
                mode="rated",
                actions=[],
                solved=False,
                yours=0.0,
                first_try=True,
                rated=True,
                skipped=True,
                rating_before=before.rating,
                rating_after=after.rating,
                created_at=now,
            )
        )
        return 1

    def attempt_puzzle(
        self, player_id: int, row: PuzzleRow, actions: list[dict[str, Any]], grade: Grade
    ) -> AttemptResult:
        """Record the player's attempt at a puzzle given them (``row``, from
        :meth:`given_puzzle`), graded outside any transaction (``grade``)."""
        for first_allowed in (True, False):
            try:
                return self._record(player_id, row, actions, grade, first_allowed)
            except IntegrityError:
                continue  # a first attempt of a racing request landed first
        raise RuntimeError("attempt not recorded")  # pragma: no cover

    def _record(
        self,
        player_id: int,
        row: PuzzleRow,
        actions: list[dict[str, Any]],
        grade: Grade,
        first_allowed: bool,
    ) -> AttemptResult:
        pool = "own" if row.owner is not None else "public"
        mode = row.mode
        now = utcnow()
        with self.db.transaction(write=True) as c:
            _hold_player(c, player_id)
            mine = _rating_row(c, player_id, pool, lock=True)
            tried = c.scalar(
                select(puzzle_attempts.c.id)
                .where(
                    puzzle_attempts.c.player_id == player_id,
                    puzzle_attempts.c.puzzle_id == row.id,
                    puzzle_attempts.c.first_try.is_(True),
                )
                .limit(1)
            )
            first = first_allowed and tried is None
            # (STREAK is not rated, nor the daily puzzle: its answer is everybody's by night)
            rated = first and mode not in ("streak", "daily")
            before = Rating(mine.rating, mine.deviation, mine.volatility)
            after = before
            puzzle = c.execute(
                select(puzzles.c.rating, puzzles.c.deviation, puzzles.c.volatility)
                .where(puzzles.c.id == row.id)
                .with_for_update()
            ).one()
            puzzle_after = Rating(puzzle.rating, puzzle.deviation, puzzle.volatility)
            values: dict[str, Any] = {"updated_at": now}
            if rated:
                moved, puzzle_moved = attempt(before, puzzle_after, grade.solved)
                after = moved
                if _established(c, player_id):  # (module docstring)
                    puzzle_after = puzzle_moved
                values |= {
                    "rating": after.rating,
                    "deviation": after.deviation,
                    "volatility": after.volatility,
                    "attempts": puzzle_ratings.c.attempts + 1,
                    "solved": puzzle_ratings.c.solved + int(grade.solved),
                }
            streak = mine.streak
            if mode == "streak" and first:
                streak = streak + 1 if grade.solved else 0
                values |= {"streak": streak, "best_streak": max(mine.best_streak, streak)}
            c.execute(
                update(puzzle_ratings)
                .where(puzzle_ratings.c.player_id == player_id, puzzle_ratings.c.pool == pool)
                .values(**values)
            )
            if first:
                changed: dict[str, Any] = {
                    "plays": puzzles.c.plays + 1,
                    "solves": puzzles.c.solves + int(grade.solved),
                }
                if rated:
                    changed |= {
                        "rating": puzzle_after.rating,
                        "deviation": puzzle_after.deviation,
                        "volatility": puzzle_after.volatility,
                    }
                c.execute(update(puzzles).where(puzzles.c.id == row.id).values(**changed))
            c.execute(
                insert(puzzle_attempts).values(
                    puzzle_id=row.id,
                    player_id=player_id,
                    mode=mode,
                    actions=actions,
                    solved=grade.solved,
                    yours=grade.yours,
                    first_try=first,
                    rated=rated,
                    rating_before=before.rating if rated else None,
                    rating_after=after.rating if rated else None,
                    created_at=now,
                )
            )
        return AttemptResult(
            grade.solved,
            row.best,
            grade.yours,
            row.best_value,
            rated,
            before.rating,
            after.rating,
            puzzle_after.rating,
            streak,
            row.themes,
        )

    # --- the player's side --------------------------------------------------------------------

    def puzzle_summary(self, player_id: int) -> dict[str, Any]:
        """The player's ratings (each pool), their history, and what they solved."""
        with self.db.transaction() as c:
            ratings = {
                r.pool: r
                for r in c.execute(
                    select(puzzle_ratings).where(puzzle_ratings.c.player_id == player_id)
                ).all()
            }
            history = c.execute(
                select(
                    puzzle_attempts.c.created_at,
                    puzzle_attempts.c.rating_after,
                    puzzle_attempts.c.solved,
                )
                .join(puzzles, puzzles.c.id == puzzle_attempts.c.puzzle_id)
                .where(
                    puzzle_attempts.c.player_id == player_id,
                    puzzle_attempts.c.rated.is_(True),
                    puzzles.c.owner.is_(None),
                )
                .order_by(puzzle_attempts.c.id.desc())
                .limit(HISTORY)
            ).all()
            counts = c.execute(
                select(
                    puzzles.c.difficulty,
                    puzzles.c.owner.is_not(None).label("own"),
                    func.count(),
                    func.sum(case((puzzle_attempts.c.solved.is_(True), 1), else_=0)),
                )
                .join(puzzles, puzzles.c.id == puzzle_attempts.c.puzzle_id)
                .where(
                    puzzle_attempts.c.player_id == player_id,
                    puzzle_attempts.c.first_try.is_(True),
                )
                .group_by(puzzles.c.difficulty, puzzles.c.owner.is_not(None))
            ).all()
            own_left = c.scalar(
                select(func.count())
                .select_from(puzzles)
                .where(
                    puzzles.c.owner == player_id,
                    ~select(puzzle_served.c.puzzle_id)
                    .where(
                        puzzle_served.c.player_id == player_id,
                        puzzle_served.c.puzzle_id == puzzles.c.id,
                    )
                    .exists(),
                )
            )

        def rating(pool: str) -> dict[str, Any]:
            r = ratings.get(pool)
            if r is None:
                return {
                    "rating": 1500.0,
                    "deviation": 350.0,
                    "attempts": 0,
                    "solved": 0,
                    "streak": 0,
                    "best_streak": 0,
                }
            return {
                "rating": round(r.rating, 1),
                "deviation": round(r.deviation, 1),
                "attempts": r.attempts,
                "solved": r.solved,
                "streak": r.streak,
                "best_streak": r.best_streak,
            }

        solved: dict[str, dict[str, dict[str, int]]] = {"public": {}, "own": {}}
        for difficulty, own, tried, won in counts:
            solved["own" if own else "public"][difficulty] = {
                "attempts": int(tried),
                "solved": int(won or 0),
            }
        return {
            "rating": rating("public"),
            "own": {**rating("own"), "left": int(own_left or 0)},
            "history": [
                {
                    "at": aware(h.created_at).isoformat(),
                    "rating": round(h.rating_after, 1),
                    "solved": bool(h.solved),
                }
                for h in reversed(history)
            ],
            "solved": solved,
        }

    def finished_games(
        self,
        player_id: int,
        limit: int,
        before: str | None = None,
        difficulty: Difficulty | None = None,
    ) -> tuple[list[FinishedGame], str | None]:
        """The player's finished games, newest first, ``limit`` of them from the one after
        ``before`` (a game id, the last of the page before); and the cursor of the next page
        (None: no more). LookupError when ``before`` is not one of their finished games."""
        with self.db.transaction() as c:
            # the player and what their devices' sign-ins left behind
            player_ids = [
                player_id,
                *c.execute(select(players.c.id).where(players.c.merged_into == player_id))
                .scalars()
                .all(),
            ]
            where = [games.c.player_id.in_(player_ids), games.c.status == GameStatus.OVER]
            if difficulty is not None:
                where.append(games.c.difficulty == difficulty.value)
            if before is not None:
                mark = c.execute(
                    select(games.c.finished_at, games.c.id).where(
                        games.c.id == before, games.c.player_id.in_(player_ids)
                    )
                ).first()
                if mark is None or mark.finished_at is None:
                    raise LookupError(before)
                where.append(
                    or_(
                        games.c.finished_at < mark.finished_at,
                        and_(games.c.finished_at == mark.finished_at, games.c.id < mark.id),
                    )
                )
            rows = c.execute(
                select(
                    games.c.id,
                    games.c.difficulty,
                    games.c.score,
                    games.c.turns,
                    games.c.hints_used,
                    games.c.finished_at,
                    games.c.daily,
                    games.c.challenge,
                    games.c.past_daily,
                )
                .where(*where)
                .order_by(games.c.finished_at.desc(), games.c.id.desc())
                .limit(limit + 1)
            ).all()
        found = [
            FinishedGame(
                r.id,
                r.difficulty,
                int(r.score or 0),
                r.turns,
                r.hints_used,
                aware(r.finished_at),
                r.daily,
                r.challenge,
                r.past_daily,
            )
            for r in rows[:limit]
        ]
        return found, (found[-1].id if len(rows) > limit else None)

    # --- mining -------------------------------------------------------------------------------

    def unmined_games(
        self, player_id: int | None, limit: int, open_day: date
    ) -> list[tuple[str, int]]:
        """Finished games not yet searched for puzzles (a player's, or anybody's), newest
        first: (game id, player id). A daily waits until its day is over (its dice are
        everybody's until then): a day before ``open_day`` (:func:`.dailyday.first_open_day`);
        a live room's game until the room is over."""
        with self.db.transaction() as c:
            query = select(games.c.id, games.c.player_id).where(
                games.c.status == GameStatus.OVER,
                games.c.puzzles_mined.is_(False),
                or_(games.c.daily.is_(None), games.c.daily < open_day.isoformat()),
                # a live room's game waits for the room's end (its dice are the others' too)
                or_(
                    games.c.room.is_(None),
                    games.c.room.in_(select(rooms.c.code).where(rooms.c.phase == "over")),
                ),
            )
            if player_id is not None:
                query = query.where(games.c.player_id == player_id)
            rows = c.execute(
                query.order_by(games.c.finished_at.desc(), games.c.id).limit(limit)
            ).all()
        return [(r.id, r.player_id) for r in rows]

    def store_mined(
        self, game_id: str, public: list[Puzzle], own: list[Puzzle], open_day: date
    ) -> tuple[int, int]:
        """The puzzles found in a finished game (public ones, and the player's own), and the
        game marked searched; (public, own) added. Nothing when the game is gone (deleted
        meanwhile) or was searched already (by a racing miner). A challenge's game gives only
        its player's own puzzles (its dice are the challenge's), and so does a daily whose day
        is not over (a day from ``open_day`` on, :func:`.dailyday.first_open_day`)."""
        with self.db.transaction(write=True) as c:
            found = c.execute(
                select(games.c.player_id, games.c.daily, games.c.challenge).where(
                    games.c.id == game_id
                )
            ).first()
            if found is None:
                return 0, 0
            _hold_player(c, found.player_id)
            marked = c.execute(
                update(games)
                .where(games.c.id == game_id, games.c.puzzles_mined.is_(False))
                .values(puzzles_mined=True)
                .returning(games.c.player_id)
            ).first()
            if marked is None:
                return 0, 0
            owner = marked.player_id
            secret = found.challenge is not None or (
                found.daily is not None and found.daily >= open_day.isoformat()
            )
            added = (
                0
                if secret
                else insert_puzzles(c, public, source_player=owner, source_game=game_id),
                insert_puzzles(c, own, owner=owner, source_player=owner, source_game=game_id),
            )
        return added

    # --- the player's data (export, deletion, sign-in) ------------------------------------------

    @staticmethod
    def export_puzzles(c: Connection, ids: list[int]) -> dict[str, Any]:
        """What is stored of the player's puzzles: ratings, attempts, own puzzles."""

        def when(moment: datetime | None) -> str | None:
            return aware(moment).isoformat() if moment is not None else None

        ratings = c.execute(select(puzzle_ratings).where(puzzle_ratings.c.player_id.in_(ids))).all()
        attempts = c.execute(
            select(puzzle_attempts, puzzles.c.position)
            .join(puzzles, puzzles.c.id == puzzle_attempts.c.puzzle_id)
            .where(puzzle_attempts.c.player_id.in_(ids))
            .order_by(puzzle_attempts.c.id)
        ).all()
        own = c.execute(
            select(puzzles.c.id, puzzles.c.position, puzzles.c.source_game)
            .where(puzzles.c.owner.in_(ids))
            .order_by(puzzles.c.id)
        ).all()
        served = c.execute(
            select(puzzle_served)
            .where(puzzle_served.c.player_id.in_(ids))
            .order_by(puzzle_served.c.served_at, puzzle_served.c.puzzle_id)
        ).all()
        found_in = c.execute(
            select(puzzles.c.id, puzzles.c.source_game)
            .where(puzzles.c.source_player.in_(ids), puzzles.c.owner.is_(None))
            .order_by(puzzles.c.id)
        ).all()
        return {
            "ratings": [
                {
                    "pool": r.pool,
                    "rating": r.rating,
                    "deviation": r.deviation,
                    "volatility": r.volatility,
                    "attempts": r.attempts,
                    "solved": r.solved,
                    "streak": r.streak,
                    "best_streak": r.best_streak,
                    "updated_at": when(r.updated_at),
                }
                for r in ratings
            ],
            "attempts": [
                {
                    "puzzle_id": a.puzzle_id,
                    "position": a.position,
                    "mode": a.mode,
                    "actions": a.actions,
                    "solved": a.solved,
                    "expected": a.yours,
                    "rated": a.rated,
                    "skipped": a.skipped,
                    "rating_before": a.rating_before,
                    "rating_after": a.rating_after,
                    "at": when(a.created_at),
                }
                for a in attempts
            ],
            "own_puzzles": [
                {"id": p.id, "position": p.position, "game_id": p.source_game} for p in own
            ],
            "given": [
                {"puzzle_id": g.puzzle_id, "mode": g.mode, "at": when(g.served_at)} for g in served
            ],
            "found_in_your_games": [
                {"puzzle_id": f.id, "game_id": f.source_game} for f in found_in
            ],
        }

    @staticmethod
    def delete_puzzles(c: Connection, ids: list[int]) -> None:
        """Delete the player's attempts, ratings, puzzles given and own puzzles; public
        puzzles found in their games stay, no longer naming them."""
        own = select(puzzles.c.id).where(puzzles.c.owner.in_(ids))
        c.execute(
            delete(puzzle_attempts).where(
                or_(puzzle_attempts.c.player_id.in_(ids), puzzle_attempts.c.puzzle_id.in_(own))
            )
        )
        c.execute(
            delete(puzzle_served).where(
                or_(puzzle_served.c.player_id.in_(ids), puzzle_served.c.puzzle_id.in_(own))
            )
        )
        c.execute(delete(puzzle_ratings).where(puzzle_ratings.c.player_id.in_(ids)))
        c.execute(delete(puzzles).where(puzzles.c.owner.in_(ids)))
        c.execute(
            update(puzzles)
            .where(puzzles.c.source_player.in_(ids))
            .values(source_player=None, source_game=None)
        )

    @staticmethod
    def merge_puzzles(c: Connection, source: int, target: int) -> None:
        """A device's anonymous player signs in to an account: its puzzles join the account's.
        Puzzles given to both stay given once; a puzzle both tried keeps the account's first
        attempt as the first; a rating the account has is kept (the device's is dropped),
        else the device's becomes the account's."""
        both = select(puzzle_served.c.puzzle_id).where(puzzle_served.c.player_id == target)
        c.execute(
            delete(puzzle_served).where(
                puzzle_served.c.player_id == source, puzzle_served.c.puzzle_id.in_(both)
            )
        )
        c.execute(
            update(puzzle_served)
            .where(puzzle_served.c.player_id == source)
            .values(player_id=target)
        )
        tried = select(puzzle_attempts.c.puzzle_id).where(
            puzzle_attempts.c.player_id == target, puzzle_attempts.c.first_try.is_(True)
        )
        c.execute(
            update(puzzle_attempts)
            .where(puzzle_attempts.c.player_id == source, puzzle_attempts.c.puzzle_id.in_(tried))
            .values(first_try=False)
        )
        c.execute(
            update(puzzle_attempts)
            .where(puzzle_attempts.c.player_id == source)
            .values(player_id=target)
        )
        kept = select(puzzle_ratings.c.pool).where(puzzle_ratings.c.player_id == target)
        c.execute(
            delete(puzzle_ratings).where(
                puzzle_ratings.c.player_id == source, puzzle_ratings.c.pool.in_(kept)
            )
        )
        c.execute(
            update(puzzle_ratings)
            .where(puzzle_ratings.c.player_id == source)
            .values(player_id=target)
        )
        c.execute(update(puzzles).where(puzzles.c.owner == source).values(owner=target))
        c.execute(
            update(puzzles).where(puzzles.c.source_player == source).values(source_player=target)
        )


export_puzzles = Puzzles.export_puzzles
delete_puzzles = Puzzles.delete_puzzles
merge_puzzles = Puzzles.merge_puzzles


def benchmark_choose(url: str, count: int, players: int, asks: int) -> dict[str, float]:
    """Fill a database with ``count`` puzzles (the starter set's positions, rated at random)
    and ``players`` rated players, each given 30 puzzles; time ``asks`` choices of the next
    puzzle: milliseconds (p50, p99, max)."""
    from .db import Database
    from .players import Players

    db = Database(url)
    db.migrate()
    base = starter_puzzles()
    rng = random.Random(5)
    with db.transaction(write=True) as c:
        rows = []
        for i in range(count):
            p = base[i % len(base)]
            rows.append(
                {
                    "key": f"bench-{i}",
                    "difficulty": p.position.difficulty.value,
                    "owner": None,
                    "source": "bench",
                    "position": p.position.to_dict(),
                    "best": p.best,
                    "best_value": p.best_value,
                    "second_value": p.second_value,
                    "plans": p.plans,
                    "themes": p.themes,
                    "theme_mask": theme_mask(p.themes),
                    "rating": rng.gauss(1500, 300),
                    "deviation": 80.0,
                    "volatility": 0.06,
                    "plays": 0,
                    "solves": 0,
                    "created_at": utcnow(),
                }
            )
        for start in range(0, len(rows), 5000):
            c.execute(insert(puzzles), rows[start : start + 5000])
    store: Any = type("BenchStore", (Puzzles, Players), {})()
    store.db = db
    store._puzzles_loaded = True
    ids = []
    for _ in range(players):
        ref, _ = store.create_player()
        ids.append(ref.player_id)
    with db.transaction(write=True) as c:
        c.execute(
            insert(puzzle_ratings),
            [
                {
                    "player_id": pid,
                    "pool": "public",
                    "rating": rng.gauss(1500, 300),
                    "deviation": 80.0,
                    "volatility": 0.06,
                    "attempts": 30,
                    "solved": 15,
                    "streak": 0,
                    "best_streak": 0,
                    "updated_at": utcnow(),
                }
                for pid in ids
            ],
        )
        all_ids = list(c.execute(select(puzzles.c.id)).scalars())
        served = []
        for pid in ids:
            for puzzle_id in rng.sample(all_ids, 30):
                served.append(
                    {
                        "player_id": pid,
                        "puzzle_id": puzzle_id,
                        "mode": "rated",
                        "served_at": utcnow(),
                    }
                )
        for start in range(0, len(served), 5000):
            c.execute(insert(puzzle_served), served[start : start + 5000])
    _analyze(db)  # (as autovacuum would, soon after such a load)
    times: list[float] = []
    for _ in range(asks):
        pid = rng.choice(ids)
        difficulty = rng.choice(list(Difficulty))
        began = time.perf_counter()
        store.next_puzzle(pid, difficulty, rng=rng)
        times.append((time.perf_counter() - began) * 1000)
    db.dispose()
    times.sort()
    return {
        "p50": times[len(times) // 2],
        "p99": times[int(len(times) * 0.99)],
        "max": times[-1],
    }
