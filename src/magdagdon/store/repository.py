"""What the server asks of the database: players, games, actions, high scores.

Every public method is one transaction. An action is load → engine → conditional
update in that transaction: the update names the version it was based on, so of
two requests on the same version exactly one applies (on SQLite and PostgreSQL
alike), and a rejected action rolls back with nothing written.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import Connection, Row, Table, and_, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from ..engine import Difficulty, Game, Phase, RuleViolation
from ..lru import LruCache
from .db import Database
from .models import GameAction, GameRecord, HighScore, Player, utcnow

Scope = Literal["me", "all"]
TABLE_SIZE = 10


class GameNotFound(LookupError):
    """No such game, or not this player's."""


class StaleVersion(Exception):
    """The action was based on an older version of the game."""

    def __init__(self, current: GameRow) -> None:
        super().__init__(f"game {current.id} is at version {current.version}")
        self.current = current


class GameInProgress(Exception):
    """The player has an unfinished game and did not ask to abandon it."""

    def __init__(self, current: GameRow) -> None:
        super().__init__(f"game {current.id} is not finished")
        self.current = current


class _Raced(Exception):
    """A game changed between reading and abandoning it: start again."""


_CREATE_ATTEMPTS = 5


class GameUnreadable(Exception):
    """A stored game that the engine cannot replay (corrupt or from an unknown format)."""

    def __init__(self, game_id: str, reason: str) -> None:
        super().__init__(f"game {game_id} cannot be replayed: {reason}")
        self.game_id = game_id


@dataclass(frozen=True)
class PlayerRow:
    """A player as the web layer sees it."""

    id: int
    name: str | None


@dataclass(frozen=True)
class GameRow:
    """A stored game with its engine state rebuilt from seed and actions."""

    id: str
    player_id: int
    difficulty: Difficulty
    version: int
    status: str
    hints_used: int
    created_at: datetime
    finished_at: datetime | None
    game: Game

    @property
    def seed(self) -> bytes:
        """The secret seed (only for a finished game's replay)."""
        return self.game.seed


@dataclass(frozen=True)
class HighScoreEntry:
    """One row of a high-score table."""

    game_id: str
    player_id: int
    name: str | None
    score: int
    finished_at: datetime
    turns: int
    powers_used: int
    hints_used: int


_GAMES: Table = GameRecord.__table__  # type: ignore[assignment]
_ACTIONS: Table = GameAction.__table__  # type: ignore[assignment]
_HIGHSCORES: Table = HighScore.__table__  # type: ignore[assignment]


def _aware(moment: datetime) -> datetime:
    """Core rows bypass the column type on some drivers' paths: make sure of UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def hash_token(token: str) -> str:
    """The stored form of a player token."""
    return hashlib.sha256(token.encode()).hexdigest()


class Store:
    """The database operations of the game server."""

    def __init__(self, database: Database, *, score_chosen_seeds: bool = False) -> None:
        """Operations on ``database``; ``score_chosen_seeds``: games whose seed was chosen
        (test servers only) enter the high scores too."""
        self.db = database
        self.score_chosen_seeds = score_chosen_seeds
        # Replayed games by (id, version): a replay is skipped when the version is unchanged.
        # Entries are snapshots (callers get copies), keyed by version, so a stale entry is
        # never used even with several server processes.
        self._cache: LruCache[tuple[str, int], Game] = LruCache(512, copy=Game.copy)
        self._players: dict[str, int] = {}
        # Finished games with their whole log (they never change), for replays and reviews.
        self._finished: LruCache[str, GameRow] = LruCache(64)

    # --- players ------------------------------------------------------------------------

    def cached_player_id(self, token: str) -> int | None:
        """The player id of a token seen before by this process (no database access)."""
        return self._players.get(hash_token(token))

    def player_id(self, token: str) -> int | None:
        """The id of the player whose cookie token this is, if any."""
        digest = hash_token(token)
        known = self._players.get(digest)
        if known is not None:
            return known
        with self.db.transaction() as c:
            player_id = c.scalar(select(Player.id).where(Player.token_hash == digest))
        if player_id is not None:
            self._remember(digest, player_id)
        return player_id

    def create_player(self) -> tuple[int, str]:
        """A new player's id and the token to put in their cookie (only its hash is stored)."""
        token = secrets.token_urlsafe(32)
        digest = hash_token(token)
        with self.db.session(write=True) as s:
            player = Player(token_hash=digest)
            s.add(player)
            s.flush()
            player_id = player.id
        self._remember(digest, player_id)
        return player_id, token

    def player(self, player_id: int) -> PlayerRow:
        """A player's public details."""
        with self.db.session() as s:
            return PlayerRow(player_id, s.scalar(select(Player.name).where(Player.id == player_id)))

    def set_name(self, player_id: int, name: str) -> PlayerRow:
        """Set the display name shown in the high-score tables."""
        with self.db.session(write=True) as s:
            s.execute(update(Player).where(Player.id == player_id).values(name=name))
            return PlayerRow(player_id, name)

    def _remember(self, digest: str, player_id: int) -> None:
        # A token's player never changes, so this cache is right in every process.
        if len(self._players) >= 100_000:
            self._players.clear()
        self._players[digest] = player_id

    # --- games --------------------------------------------------------------------------

    def create_game(
        self,
        player_id: int,
        difficulty: Difficulty,
        seed: bytes | int | None,
        *,
        abandon: bool,
    ) -> GameRow:
        """Start a game; an unfinished one blocks it unless ``abandon`` (R16: never scored).

        A player has at most one unfinished game, which the database enforces (a unique index
        on the active games): of several requests starting games at once, one wins and the
        others raise :class:`GameInProgress` (with ``abandon``, they abandon the winner's game
        in turn). Abandoning is conditional on the game's version, like an action: an action
        that lands first (even the game's last) wins, and the abandon looks again.
        """
        for attempt in range(_CREATE_ATTEMPTS):
            try:
                return self._create_game(player_id, difficulty, seed, abandon)
            except (IntegrityError, _Raced):
                # another request started a game or acted at the same moment
                if not abandon or attempt == _CREATE_ATTEMPTS - 1:
                    current = self.current_game(player_id, None)
                    if current is not None:
                        raise GameInProgress(current) from None
        return self._create_game(player_id, difficulty, seed, abandon)

    def _create_game(
        self, player_id: int, difficulty: Difficulty, seed: bytes | int | None, abandon: bool
    ) -> GameRow:
        game = Game.new(difficulty, seed=seed)
        now = utcnow()
        game_id = secrets.token_hex(12)
        with self.db.transaction(write=True) as c:
            unfinished = c.execute(
                select(_GAMES)
                .where(_GAMES.c.player_id == player_id, _GAMES.c.status == "active")
                .order_by(_GAMES.c.updated_at.desc())
            ).all()
            if unfinished and not abandon:
                raise GameInProgress(self._row(unfinished[0]))
            for record in unfinished:
                abandoned = c.execute(
                    update(_GAMES)
                    .where(
                        _GAMES.c.id == record.id,
                        _GAMES.c.version == record.version,
                        _GAMES.c.status == "active",
                    )
                    # a request based on the old version must not apply
                    .values(status="abandoned", version=record.version + 1, updated_at=now)
                )
                if abandoned.rowcount != 1:  # an action landed meanwhile: look again
                    raise _Raced
            c.execute(
                insert(_GAMES).values(
                    id=game_id,
                    player_id=player_id,
                    difficulty=difficulty.value,
                    seed=game.seed.hex(),
                    chosen_seed=seed is not None,
                    state=game.snapshot(),
                    action_count=0,
                    version=0,
                    status="active",
                    phase=game.phase.value,
                    turns=0,
                    powers_used=0,
                    hints_used=0,
                    created_at=now,
                    updated_at=now,
                )
            )
        return GameRow(game_id, player_id, difficulty, 0, "active", 0, now, None, game)

    def get_game(self, game_id: str, player_id: int) -> GameRow:
        """A game of this player, its engine state restored from its snapshot (its
        ``game.actions`` holds no log: see :meth:`finished_game`)."""
        with self.db.transaction() as c:
            record = self._load(c, game_id, player_id)
        return self._row(record)

    def finished_game(self, game_id: str) -> GameRow:
        """Any finished game with its whole action log replayed from its seed (replays and
        reviews are public); :class:`GameNotFound` if there is no such finished game."""
        found = self._finished.get(game_id)
        if found is not None:
            return found
        with self.db.transaction() as c:
            record = self._load(c, game_id, None)
            log = self._log(c, game_id)
        row = self._row(record, self._replay(record, log))
        self._finished.put(game_id, row)
        return row

    def current_game(self, player_id: int, difficulty: Difficulty | None) -> GameRow | None:
        """The player's unfinished game (of that difficulty, when given)."""
        query = select(_GAMES).where(_GAMES.c.player_id == player_id, _GAMES.c.status == "active")
        if difficulty is not None:
            query = query.where(_GAMES.c.difficulty == difficulty.value)
        with self.db.transaction() as c:
            record = c.execute(query.order_by(_GAMES.c.updated_at.desc()).limit(1)).first()
        return self._row(record) if record else None

    def act(
        self, game_id: str, player_id: int, version: int, change: Callable[[Game], None]
    ) -> GameRow:
        """Apply ``change`` (which may raise RuleViolation) to the game at ``version``.

        Optimistic concurrency: the game is loaded and the engine applies the action
        without holding any lock; then one short write transaction updates the row only
        if it is still at ``version`` and active. So of two requests on one version
        exactly one applies, the other raises :class:`StaleVersion` with the current
        game, and nothing is written for a rejected action. A game that ends is scored
        and entered in its high-score table in that same write transaction (unless its
        seed was chosen, see ``Settings.test_seeds_scored``).

        The cost does not grow with the game's history: the load restores the game's
        snapshot (no replay), and the write appends the new actions as rows and replaces
        the snapshot.
        """
        with self.db.transaction() as c:
            record = self._load(c, game_id, player_id)
        if record.version != version:
            raise StaleVersion(self._row(record))
        if record.status == "abandoned":
            raise RuleViolation(
                "game_abandoned", "This game was abandoned for a new one: it cannot continue."
            )
        game = self._game(record)
        logged = len(game.actions)
        change(game)
        added = game.actions[logged:]
        now = utcnow()
        over = game.phase is Phase.OVER
        values: dict[str, Any] = {
            "state": game.snapshot(),
            "action_count": record.action_count + len(added),
            "version": version + 1,
            "phase": game.phase.value,
            "turns": game.turns,
            "powers_used": game.powers_used,
            "updated_at": now,
        }
        if over:
            values.update(status="over", score=game.score().total, finished_at=now)
        with self.db.transaction(write=True) as c:
            result = c.execute(
                update(_GAMES)
                .where(
                    _GAMES.c.id == record.id,
                    _GAMES.c.version == version,
                    _GAMES.c.status == "active",
                )
                .values(**values)
            )
            won = result.rowcount == 1
            if won and added:
                c.execute(
                    insert(_ACTIONS),
                    [
                        {"game_id": record.id, "seq": record.action_count + n, "action": action}
                        for n, action in enumerate(added)
                    ],
                )
            if won and over and (self.score_chosen_seeds or not record.chosen_seed):
                c.execute(
                    insert(_HIGHSCORES).values(
                        game_id=record.id,
                        player_id=record.player_id,
                        difficulty=record.difficulty,
                        score=values["score"],
                        turns=game.turns,
                        powers_used=game.powers_used,
                        hints_used=select(_GAMES.c.hints_used)
                        .where(_GAMES.c.id == record.id)
                        .scalar_subquery(),
                        finished_at=now,
                    )
                )
        if not won:  # another request changed the game first
            raise StaleVersion(self.get_game(game_id, player_id))
        self._cache.put((record.id, version + 1), game)
        return GameRow(
            id=record.id,
            player_id=record.player_id,
            difficulty=game.difficulty,
            version=version + 1,
            status=values.get("status", record.status),
            hints_used=record.hints_used,
            created_at=_aware(record.created_at),
            finished_at=values.get("finished_at"),
            game=game,
        )

    def count_hint(self, game_id: str, player_id: int, version: int) -> int:
        """Count a hint on the game at ``version`` (once per version, active games only); the
        game's hints so far."""
        with self.db.transaction(write=True) as c:
            c.execute(
                update(_GAMES)
                .where(
                    _GAMES.c.id == game_id,
                    _GAMES.c.player_id == player_id,
                    _GAMES.c.status == "active",
                    or_(_GAMES.c.hinted_version.is_(None), _GAMES.c.hinted_version != version),
                )
                .values(hints_used=_GAMES.c.hints_used + 1, hinted_version=version)
            )
            used = c.execute(select(_GAMES.c.hints_used).where(_GAMES.c.id == game_id)).scalar()
        return int(used or 0)

    # --- high scores --------------------------------------------------------------------

    def highscores(
        self, difficulty: Difficulty, scope: Scope, player_id: int | None, limit: int = TABLE_SIZE
    ) -> list[HighScoreEntry]:
        """The best games of a difficulty, ties by earlier date; ``me``: this player's only."""
        if scope == "me" and player_id is None:
            return []
        with self.db.session() as s:
            query = (
                select(HighScore, Player.name)
                .join(Player, Player.id == HighScore.player_id)
                .where(HighScore.difficulty == difficulty.value)
            )
            if scope == "me":
                query = query.where(HighScore.player_id == player_id)
            query = query.order_by(
                HighScore.score.desc(), HighScore.finished_at.asc(), HighScore.id.asc()
            ).limit(limit)
            return [
                HighScoreEntry(
                    game_id=h.game_id,
                    player_id=h.player_id,
                    name=name,
                    score=h.score,
                    finished_at=h.finished_at,
                    turns=h.turns,
                    powers_used=h.powers_used,
                    hints_used=h.hints_used,
                )
                for h, name in s.execute(query).all()
            ]

    def places(self, game_id: str) -> dict[str, int] | None:
        """A finished game's place in its difficulty's table of everybody and of its player."""
        with self.db.session() as s:
            entry = s.scalar(select(HighScore).where(HighScore.game_id == game_id))
            if entry is None:
                return None
            better = or_(
                HighScore.score > entry.score,
                and_(
                    HighScore.score == entry.score,
                    or_(
                        HighScore.finished_at < entry.finished_at,
                        and_(HighScore.finished_at == entry.finished_at, HighScore.id < entry.id),
                    ),
                ),
            )
            base = (
                select(func.count())
                .select_from(HighScore)
                .where(HighScore.difficulty == entry.difficulty, better)
            )
            everyone = s.scalar(base) or 0
            mine = s.scalar(base.where(HighScore.player_id == entry.player_id)) or 0
            return {"all": everyone + 1, "me": mine + 1}

    # --- internals ----------------------------------------------------------------------

    @staticmethod
    def _load(c: Connection, game_id: str, player_id: int | None) -> Row[Any]:
        record = c.execute(select(_GAMES).where(_GAMES.c.id == game_id)).one_or_none()
        if record is None:
            raise GameNotFound(game_id)
        if player_id is None:
            if record.status != "over":
                raise GameNotFound(game_id)
        elif record.player_id != player_id:
            raise GameNotFound(game_id)
        return record

    @staticmethod
    def _log(c: Connection, game_id: str) -> list[dict[str, Any]]:
        """A game's whole action log, in order."""
        rows = c.execute(
            select(_ACTIONS.c.action).where(_ACTIONS.c.game_id == game_id).order_by(_ACTIONS.c.seq)
        )
        return [action for (action,) in rows]

    def _game(self, record: Row[Any]) -> Game:
        """The engine state of a stored game at its version: from this process's cache, else
        from its snapshot, else (a game stored before migration 0003) by replaying its log."""
        cached = self._cache.get((record.id, record.version))
        if cached is not None:
            return cached
        if record.state is None:
            with self.db.transaction() as c:
                log = self._log(c, record.id)
            game = self._replay(record, log)
        else:
            try:
                game = Game.restore(record.difficulty, bytes.fromhex(record.seed), record.state)
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                raise GameUnreadable(record.id, str(exc)) from exc
        self._cache.put((record.id, record.version), game)
        return game

    @staticmethod
    def _replay(record: Row[Any], log: list[dict[str, Any]]) -> Game:
        try:  # a damaged or unknown record (bad difficulty, seed or log) fails here, alone
            return Game.replay(record.difficulty, bytes.fromhex(record.seed), log)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise GameUnreadable(record.id, str(exc)) from exc

    def _row(self, record: Row[Any], game: Game | None = None) -> GameRow:
        game = game if game is not None else self._game(record)
        return GameRow(
            id=record.id,
            player_id=record.player_id,
            difficulty=game.difficulty,
            version=record.version,
            status=record.status,
            hints_used=record.hints_used,
            created_at=_aware(record.created_at),
            finished_at=_aware(record.finished_at) if record.finished_at else None,
            game=game,
        )
