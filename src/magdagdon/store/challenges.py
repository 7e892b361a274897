"""Challenges: a finished game's dice offered to friends through a link.

A challenge is made from one of the challenger's finished games (a daily only once its day
is over: until then its dice are everybody's daily). Its code is ten letters of
:data:`CODE_LETTERS` (31**10, about 8 * 10**14 codes), drawn by :mod:`secrets`. Whoever opens
the link plays a new game whose seed is the challenger's game's: the engine's dice are a pure
function of (seed, turn, slot) (docs/design.md, "Dice stream"), so every player of the
challenge meets the same roll on every turn and the same outcome of the same REROLL, whatever
they chose before. A player plays a challenge once (a unique index on the game's
``challenge`` and its player); the game counts in their statistics and never enters the high
scores: its dice were known to the challenger.

The results are the challenger's game and every finished game of the challenge, ranked, each
with the turn where it parted from the challenger's (the first turn that left another shape on
the board, or another count of powers used: :func:`parted_at`),
and the coach's score on the same dice (``par``, computed once in the background). Only the
challenger and a player whose game of the challenge is over may read them.

A game started as a REMATCH of a challenge (``games.rematch_of``) is a regular game on fresh
dice; when it ends it becomes a challenge of its own, ``reply_to`` the first: the first
challenger finds it in their list.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal

from sqlalchemy import Connection, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..engine import Difficulty, Game
from .db import Database
from .errors import GameNotFound
from .highscores import aware
from .models import GameStatus, game_challenges, games, players, utcnow
from .rows import GameRow

CODE_LETTERS = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""The letters of a challenge's or an invite's code: no 0/O, 1/I/L (read aloud, copied by
hand)."""
CODE_LENGTH = 10
"""Letters in a code: 31**10 ≈ 8.2 * 10**14 of them."""


def new_code() -> str:
    """A fresh random code (a challenge's, a league's invite)."""
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))


def normal_code(text: str) -> str:
    """A code as typed or pasted: upper case, without spaces or dashes."""
    return "".join(ch for ch in text.upper() if ch not in " -")


def answer_challenge(c: Connection, game_id: str, reply_to: str) -> None:
    """A REMATCH game just ended (the caller's transaction): it becomes a challenge that
    answers ``reply_to`` (nothing if that challenge is gone)."""
    owner = c.scalar(select(games.c.player_id).where(games.c.id == game_id))
    if (
        owner is None
        or c.scalar(select(game_challenges.c.code).where(game_challenges.c.code == reply_to))
        is None
    ):
        return
    Challenges._insert_challenge(c, game_id, owner, reply_to)


class ChallengeNotFound(LookupError):
    """No challenge has this code."""


class NotFinished(Exception):
    """A challenge asked of a game that is not over (or a daily whose day is not)."""

    def __init__(self, daily: bool) -> None:
        super().__init__("the daily's day is not over" if daily else "the game is not over")
        self.daily = daily


class AlreadyPlayed(Exception):
    """The player has a game of this challenge already (or made it)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"already played: game {game_id}")
        self.game_id = game_id


class PlayFirst(Exception):
    """The results of a challenge asked before one's own game of it is over."""


@dataclass(frozen=True)
class Challenge:
    """A challenge as anybody who opens its link sees it: no seed, board, roll or score."""

    code: str
    difficulty: Difficulty
    by: str | None
    by_player: int
    players: int
    created_at: datetime
    reply_to: str | None = None


@dataclass(frozen=True)
class ResultRow:
    """One finished game of a challenge (the challenger's too)."""

    rank: int
    name: str | None
    player_id: int
    game_id: str
    score: int
    turns: int
    powers_used: int
    hints_used: int
    finished_at: datetime
    board: str
    challenger: bool
    parted_at: int | None
    """The first turn (1-based) whose actions differ from the challenger's game; None for the
    challenger's own game and for a game that made every choice the same."""


@dataclass(frozen=True)
class Results:
    """A challenge's table, for its challenger or a player who finished it."""

    challenge: Challenge
    rows: list[ResultRow]
    par: int | None
    seed: bytes


@dataclass(frozen=True)
class MyChallenge:
    """A challenge in the player's list: made by them, played by them, or answering theirs."""

    challenge: Challenge
    role: str
    """``made`` (mine), ``played`` (a friend's I took) or ``reply`` (a REMATCH of mine)."""
    score: int | None
    """My score on it (the challenger's game's score for ``made``)."""
    game_id: str | None
    status: str | None
    unseen: int
    """News in it: players who finished it since I last looked (``made``); 1 for a ``reply``
    I have not looked at yet."""


@dataclass(frozen=True)
class NewsItem:
    """One thing a player's challenges hold that they have not seen, said as the news says
    it: a friend finished my challenge ("Anu played your challenge: 117 to your 96"), or
    answered it with a REMATCH ("Anu challenged you back")."""

    kind: Literal["played", "reply"]
    code: str
    """The challenge: mine that was played, or the REMATCH that answers mine."""
    difficulty: Difficulty
    who: str | None
    """The friend's name (None: they gave none)."""
    score: int | None
    """``played``: the friend's score."""
    against: int | None
    """``played``: my score on the same dice."""
    at: datetime


def shared_ranks(values: list[int]) -> list[int]:
    """The ranks of values listed best first: equal values share a rank (1, 1, 3)."""
    ranks: list[int] = []
    for n, value in enumerate(values):
        ranks.append(ranks[-1] if n and values[n - 1] == value else n + 1)
    return ranks


Shape = tuple[tuple[int, int, str], ...]
"""A board's filled squares (row, column, what) up to where they stand: :func:`shape`."""


def turn_ends(game: Game) -> list[tuple[Shape, int]]:
    """What each turn of a finished game left (its log replayed from its seed): the board as a
    shape (:func:`shape`) and the powers used so far, a turn each."""
    replay = Game.new(game.difficulty, seed=game.seed)
    ends: list[tuple[Shape, int]] = []
    for action in game.actions:
        replay.apply(action)
        if replay.turns > len(ends):
            ends.append((shape(str(replay.board)), replay.powers_used))
    return ends


def shape(board: str) -> Shape:
    """A board's filled squares (values and RUINs) up to where they stand: the least of its
    eight turnings and mirrorings, each moved to the top left corner. The same numbers in the
    same shape one row apart, or mirrored, are one shape (the same play of the same dice)."""
    rows = board.split("/")
    filled = [(r, c, ch) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != "."]
    if not filled:
        return ()
    forms = []
    for turn in (False, True):
        for flip_r in (False, True):
            for flip_c in (False, True):
                moved = []
                for r, c, ch in filled:
                    r2, c2 = (c, r) if turn else (r, c)
                    moved.append((-r2 if flip_r else r2, -c2 if flip_c else c2, ch))
                top = min(r for r, _, _ in moved)
                left = min(c for _, c, _ in moved)
                forms.append(tuple(sorted((r - top, c - left, ch) for r, c, ch in moved)))
    return min(forms)


def parted_at(
    mine: list[tuple[Shape, int]],
    theirs: list[tuple[Shape, int]],
) -> int | None:
    """The first turn (1-based) where two games of the same dice parted: the turn left
    another shape on the board (:func:`shape`: turned, mirrored or moved is the same) or
    another count of powers used. Placing the same dice in another order, or the same shape
    one row lower, is no parting (:func:`turn_ends` gives each game's turns)."""
    for n in range(max(len(mine), len(theirs))):
        a = mine[n] if n < len(mine) else None
        b = theirs[n] if n < len(theirs) else None
        if a != b:
            return n + 1
    return None


class Challenges:
    """The store's operations on challenges (part of :class:`~magdagdon.store.Store`)."""

    db: Database
    finished_game: Callable[[str], GameRow]
    _insert_game: Callable[..., GameRow]

    def create_challenge(
        self, player_id: int, game_id: str, open_day: date
    ) -> tuple[Challenge, bool]:
        """The challenge of one of the player's finished games: a new one (True), or the one
        made of it before (False). A game of a challenge gives that challenge (passed on to
        more friends). :class:`GameNotFound` if it is not the player's game;
        :class:`NotFinished` if it is not over, or is a daily whose day is not (a day from
        ``open_day`` on, :func:`.dailyday.first_open_day`)."""
        with self.db.transaction(write=True) as c:
            record = c.execute(
                select(games.c.id, games.c.status, games.c.daily, games.c.challenge).where(
                    games.c.id == game_id, games.c.player_id == player_id
                )
            ).first()
            if record is None:
                raise GameNotFound(game_id)
            if record.challenge is not None:
                found = self._challenge(c, record.challenge)
                if found is not None:
                    return found, False
            if record.status != GameStatus.OVER:
                raise NotFinished(daily=False)
            if record.daily is not None and date.fromisoformat(record.daily) >= open_day:
                raise NotFinished(daily=True)
            code = c.scalar(
                select(game_challenges.c.code).where(game_challenges.c.game_id == game_id)
            )
            new = code is None
            if code is None:
                code = self._insert_challenge(c, game_id, player_id, None)
            found = self._challenge(c, code)
        assert found is not None
        return found, new

    @staticmethod
    def _insert_challenge(c: Connection, game_id: str, player_id: int, reply_to: str | None) -> str:
        """A new challenge of a finished game (the caller's transaction): its code."""
        difficulty = c.scalar(select(games.c.difficulty).where(games.c.id == game_id))
        code = new_code()
        c.execute(
            insert(game_challenges).values(
                code=code,
                game_id=game_id,
                player_id=player_id,
                difficulty=difficulty,
                reply_to=reply_to,
                created_at=utcnow(),
            )
        )
        return code

    def challenge(self, code: str) -> Challenge:
        """The challenge as its link shows it; :class:`ChallengeNotFound`."""
        with self.db.transaction() as c:
            found = self._challenge(c, code)
        if found is None:
            raise ChallengeNotFound(code)
        return found

    @staticmethod
    def _challenge(c: Connection, code: str) -> Challenge | None:
        record = c.execute(
            select(game_challenges, players.c.name)
            .join(players, players.c.id == game_challenges.c.player_id)
            .where(game_challenges.c.code == code)
        ).first()
        if record is None:
            return None
        played = c.scalar(
            select(func.count())
            .select_from(games)
            .where(games.c.challenge == code, games.c.status == GameStatus.OVER)
        )
        return Challenge(
            code=record.code,
            difficulty=Difficulty(record.difficulty),
            by=record.name,
            by_player=record.player_id,
            players=int(played or 0),
            created_at=aware(record.created_at),
            reply_to=record.reply_to,
        )

    def start_challenge(self, player_id: int, code: str) -> GameRow:
        """A new game of the challenge for the player, on the challenger's dice;
        :class:`ChallengeNotFound`, or :class:`AlreadyPlayed` (with the game: the player's
        game of it, or the challenger's own). The player's regular game is not touched."""
        with self.db.transaction() as c:
            source = c.execute(
                select(
                    game_challenges.c.game_id,
                    game_challenges.c.player_id,
                    game_challenges.c.difficulty,
                    games.c.seed,
                )
                .join(games, games.c.id == game_challenges.c.game_id)
                .where(game_challenges.c.code == code)
            ).first()
            if source is None:
                raise ChallengeNotFound(code)
            if source.player_id == player_id:
                raise AlreadyPlayed(source.game_id)
            mine = self._challenge_game(c, code, player_id)
        if mine is not None:
            raise AlreadyPlayed(mine)
        game = Game.new(Difficulty(source.difficulty), seed=bytes.fromhex(source.seed))
        game_id = secrets.token_hex(12)
        try:
            with self.db.transaction(write=True) as c:
                return self._insert_game(
                    c, game_id, player_id, game, utcnow(), chosen=False, challenge=code
                )
        except IntegrityError:  # the same player started it at the same moment
            with self.db.transaction() as c:
                mine = self._challenge_game(c, code, player_id)
            if mine is None:
                raise
            raise AlreadyPlayed(mine) from None

    def challenge_game_of(self, code: str, player_id: int) -> str | None:
        """The player's game of the challenge (None: not started)."""
        with self.db.transaction() as c:
            return self._challenge_game(c, code, player_id)

    def challenge_made_of(self, game_id: str) -> str | None:
        """The code of the challenge made of a finished game (a REMATCH's, sent back when it
        ended), or None."""
        with self.db.transaction() as c:
            found: str | None = c.scalar(
                select(game_challenges.c.code).where(game_challenges.c.game_id == game_id)
            )
        return found

    @staticmethod
    def _challenge_game(c: Connection, code: str, player_id: int) -> str | None:
        found: str | None = c.scalar(
            select(games.c.id).where(games.c.challenge == code, games.c.player_id == player_id)
        )
        return found

    def challenge_results(self, code: str, player_id: int | None) -> Results:
        """The challenge's table: the challenger's game and every finished game of it, best
        first (ties: the earlier finished first), each with where it parted from the
        challenger's. :class:`ChallengeNotFound`; :class:`PlayFirst` unless the player made
        it or has finished their game of it."""
        with self.db.transaction() as c:
            found = self._visible(c, code, player_id)
            source = c.execute(
                select(game_challenges.c.game_id, game_challenges.c.par).where(
                    game_challenges.c.code == code
                )
            ).one()
            records = c.execute(
                select(games, players.c.name)
                .join(players, players.c.id == games.c.player_id)
                .where(
                    (games.c.id == source.game_id)
                    | ((games.c.challenge == code) & (games.c.status == GameStatus.OVER))
                )
                .order_by(games.c.score.desc(), games.c.finished_at, games.c.id)
            ).all()
        challenger = self.finished_game(source.game_id)
        theirs = turn_ends(challenger.game)
        rows: list[ResultRow] = []
        ranks = shared_ranks([int(r.score or 0) for r in records])
        for r, rank in zip(records, ranks, strict=True):
            own = r.id == source.game_id
            played = challenger if own else self.finished_game(r.id)
            split = None if own else parted_at(theirs, turn_ends(played.game))
            rows.append(
                ResultRow(
                    rank=rank,
                    name=r.name,
                    player_id=r.player_id,
                    game_id=r.id,
                    score=int(r.score or 0),
                    turns=r.turns,
                    powers_used=r.powers_used,
                    hints_used=r.hints_used,
                    finished_at=aware(r.finished_at),
                    board=str(played.game.board),
                    challenger=own,
                    parted_at=split,
                )
            )
        return Results(found, rows, source.par, challenger.seed)

    def visible_challenge(self, code: str, player_id: int | None) -> Challenge:
        """The challenge, for its challenger or a player who finished their game of it:
        :class:`ChallengeNotFound`, :class:`PlayFirst` (its table and REMATCH are theirs)."""
        with self.db.transaction() as c:
            return self._visible(c, code, player_id)

    def _visible(self, c: Connection, code: str, player_id: int | None) -> Challenge:
        found = self._challenge(c, code)
        if found is None:
            raise ChallengeNotFound(code)
        if player_id != found.by_player:
            mine = c.scalar(
                select(games.c.status).where(
                    games.c.challenge == code, games.c.player_id == player_id
                )
            )
            if mine != GameStatus.OVER:
                raise PlayFirst(code)
        return found

    def challenge_seed(self, code: str) -> tuple[Difficulty, bytes]:
        """The challenge's difficulty and dice (for its par, computed on the server)."""
        with self.db.transaction() as c:
            record = c.execute(
                select(games.c.difficulty, games.c.seed)
                .join(game_challenges, game_challenges.c.game_id == games.c.id)
                .where(game_challenges.c.code == code)
            ).first()
        if record is None:
            raise ChallengeNotFound(code)
        return Difficulty(record.difficulty), bytes.fromhex(record.seed)

    def save_challenge_par(self, code: str, par: int) -> None:
        """Keep the coach's score on the challenge's dice (the first computed stays)."""
        with self.db.transaction(write=True) as c:
            c.execute(
                update(game_challenges)
                .where(game_challenges.c.code == code, game_challenges.c.par.is_(None))
                .values(par=par)
            )

    def my_challenges(self, player_id: int, limit: int = 50) -> list[MyChallenge]:
        """The challenges the player made, took, or that answer theirs, newest first."""
        with self.db.transaction() as c:
            made = c.execute(
                select(game_challenges, games.c.score, games.c.status)
                .join(games, games.c.id == game_challenges.c.game_id)
                .where(game_challenges.c.player_id == player_id)
                .order_by(game_challenges.c.created_at.desc())
                .limit(limit)
            ).all()
            played = c.execute(
                select(games.c.challenge, games.c.id, games.c.score, games.c.status)
                .where(games.c.player_id == player_id, games.c.challenge.is_not(None))
                .order_by(games.c.created_at.desc())
                .limit(limit)
            ).all()
            mine_codes = select(game_challenges.c.code).where(
                game_challenges.c.player_id == player_id
            )
            replies = c.execute(
                select(game_challenges.c.code, game_challenges.c.reply_seen)
                .where(game_challenges.c.reply_to.in_(mine_codes))
                .order_by(game_challenges.c.created_at.desc())
                .limit(limit)
            ).all()
            taken = {r.challenge for r in played}
            out: list[MyChallenge] = []
            for r in made:
                found = self._challenge(c, r.code)
                assert found is not None
                unseen = max(0, found.players - r.seen)
                out.append(MyChallenge(found, "made", r.score, r.game_id, "over", unseen))
            for r in played:
                found = self._challenge(c, r.challenge)
                if found is None:  # its challenger deleted their data
                    continue
                out.append(MyChallenge(found, "played", r.score, r.id, r.status, 0))
            for code, seen in replies:
                if code in taken:
                    continue
                found = self._challenge(c, code)
                assert found is not None
                out.append(MyChallenge(found, "reply", None, None, None, 0 if seen else 1))
        out.sort(key=lambda entry: entry.challenge.created_at, reverse=True)
        return out[:limit]

    def news(self, player_id: int) -> list[NewsItem]:
        """What the player has not seen of their challenges, on whichever device they look,
        newest first."""
        mine = select(game_challenges.c.code).where(game_challenges.c.player_id == player_id)
        with self.db.transaction() as c:
            made = {
                r.code: r
                for r in c.execute(
                    select(
                        game_challenges.c.code,
                        game_challenges.c.seen,
                        game_challenges.c.difficulty,
                        games.c.score,
                    )
                    .join(games, games.c.id == game_challenges.c.game_id)
                    .where(game_challenges.c.player_id == player_id)
                )
            }
            plays = c.execute(
                select(games.c.challenge, games.c.score, games.c.finished_at, players.c.name)
                .join(players, players.c.id == games.c.player_id)
                .where(games.c.challenge.in_(mine), games.c.status == GameStatus.OVER)
                .order_by(games.c.finished_at, games.c.id)
            ).all()
            replies = c.execute(
                select(
                    game_challenges.c.code,
                    game_challenges.c.difficulty,
                    game_challenges.c.created_at,
                    players.c.name,
                )
                .join(players, players.c.id == game_challenges.c.player_id)
                .where(
                    game_challenges.c.reply_to.in_(mine),
                    game_challenges.c.reply_seen.is_(False),
                    ~select(games.c.id)
                    .where(
                        games.c.challenge == game_challenges.c.code,
                        games.c.player_id == player_id,
                    )
                    .exists(),
                )
            ).all()
        items: list[NewsItem] = []
        finished: dict[str, int] = {}
        for play in plays:  # the first ``seen`` of each challenge's plays were looked at
            finished[play.challenge] = finished.get(play.challenge, 0) + 1
            challenge = made[play.challenge]
            if finished[play.challenge] > challenge.seen:
                items.append(
                    NewsItem(
                        "played",
                        play.challenge,
                        Difficulty(challenge.difficulty),
                        play.name,
                        play.score,
                        challenge.score,
                        aware(play.finished_at),
                    )
                )
        for reply in replies:
            items.append(
                NewsItem(
                    "reply",
                    reply.code,
                    Difficulty(reply.difficulty),
                    reply.name,
                    None,
                    None,
                    aware(reply.created_at),
                )
            )
        items.sort(key=lambda item: item.at, reverse=True)
        return items

    def saw_challenges(self, player_id: int) -> None:
        """The player has looked at who played their challenges, and at the REMATCHes that
        answer them (on one device: the news ends on every one)."""
        played = (
            select(func.count())
            .select_from(games)
            .where(games.c.challenge == game_challenges.c.code, games.c.status == GameStatus.OVER)
            .scalar_subquery()
        )
        with self.db.transaction(write=True) as c:
            c.execute(
                update(game_challenges)
                .where(game_challenges.c.player_id == player_id)
                .values(seen=played)
            )
            mine = select(game_challenges.c.code).where(game_challenges.c.player_id == player_id)
            c.execute(
                update(game_challenges)
                .where(game_challenges.c.reply_to.in_(mine))
                .values(reply_seen=True)
            )
