"""Games: started, loaded from their snapshots, acted on under optimistic concurrency, finished
and scored, replayed from their logs. (Daily games start in :mod:`.daily`; they are played
here like any other.)"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import replace
from datetime import date, datetime
from typing import Any

from sqlalchemy import Connection, Row, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from ..engine import Difficulty, Game, Phase, RuleViolation
from ..lru import LruCache
from .challenges import answer_challenge
from .daily import count_daily_score
from .dailyday import daily_over
from .db import Database
from .errors import (
    DailyEnded,
    GameInProgress,
    GameNotFound,
    GameUnreadable,
    StaleVersion,
    TurnNotOpen,
)
from .highscores import aware
from .models import GameStatus, daily_results, game_actions, games, highscores, players, utcnow
from .rows import GameRow


class _Raced(Exception):
    """A game changed between reading and abandoning it: start again."""


_CREATE_ATTEMPTS = 5


class Games:
    """The store's operations on games (part of :class:`~magdagdon.store.Store`)."""

    db: Database
    score_chosen_seeds: bool
    _cache: LruCache[tuple[str, int], Game]
    _finished: LruCache[str, GameRow]

    # --- games --------------------------------------------------------------------------

    def create_game(
        self,
        player_id: int,
        difficulty: Difficulty,
        seed: bytes | int | None,
        *,
        abandon: bool,
        rematch_of: str | None = None,
    ) -> GameRow:
        """Start a game; an unfinished one blocks it unless ``abandon`` (R16: never scored).
        ``rematch_of``: the game is a REMATCH of that challenge (it becomes a challenge back
        when it ends: store.challenges).

        A player has at most one unfinished game, which the database enforces (a unique index
        on the active games): of several requests starting games at once, one wins and the
        others raise :class:`GameInProgress` (with ``abandon``, they abandon the winner's game
        in turn). Abandoning is conditional on the game's version, like an action: an action
        that lands first (even the game's last) wins, and the abandon looks again.
        """
        for attempt in range(_CREATE_ATTEMPTS):
            try:
                return self._create_game(player_id, difficulty, seed, abandon, rematch_of)
            except (IntegrityError, _Raced):
                # another request started a game or acted at the same moment
                if not abandon or attempt == _CREATE_ATTEMPTS - 1:
                    current = self.current_game(player_id, None)
                    if current is not None:
                        raise GameInProgress(current) from None
        return self._create_game(player_id, difficulty, seed, abandon, rematch_of)

    def _create_game(
        self,
        player_id: int,
        difficulty: Difficulty,
        seed: bytes | int | None,
        abandon: bool,
        rematch_of: str | None,
    ) -> GameRow:
        game = Game.new(difficulty, seed=seed)
        now = utcnow()
        game_id = secrets.token_hex(12)
        with self.db.transaction(write=True) as c:
            unfinished = c.execute(
                select(games)
                .where(
                    games.c.player_id == player_id,
                    games.c.status == GameStatus.ACTIVE,
                    games.c.daily.is_(None),
                    games.c.challenge.is_(None),
                    games.c.past_daily.is_(None),
                    games.c.room.is_(None),
                )
                .order_by(games.c.updated_at.desc())
            ).all()
            if unfinished and not abandon:
                raise GameInProgress(self._row(unfinished[0]))
            for record in unfinished:
                abandoned = c.execute(
                    update(games)
                    .where(
                        games.c.id == record.id,
                        games.c.version == record.version,
                        games.c.status == GameStatus.ACTIVE,
                    )
                    # a request based on the old version must not apply
                    .values(status=GameStatus.ABANDONED, version=record.version + 1, updated_at=now)
                )
                if abandoned.rowcount != 1:  # an action landed meanwhile: look again
                    raise _Raced
            return self._insert_game(
                c, game_id, player_id, game, now, chosen=seed is not None, rematch_of=rematch_of
            )

    @staticmethod
    def _insert_game(
        c: Connection,
        game_id: str,
        player_id: int,
        game: Game,
        now: datetime,
        *,
        chosen: bool,
        daily: date | None = None,
        challenge: str | None = None,
        rematch_of: str | None = None,
        past_daily: date | None = None,
        room: str | None = None,
    ) -> GameRow:
        """Store a new game (the caller's transaction); the row as stored."""
        c.execute(
            insert(games).values(
                id=game_id,
                player_id=player_id,
                difficulty=game.difficulty.value,
                seed=game.seed.hex(),
                chosen_seed=chosen,
                state=game.snapshot(),
                action_count=0,
                version=0,
                status=GameStatus.ACTIVE,
                phase=game.phase.value,
                turns=0,
                powers_used=0,
                hints_used=0,
                created_at=now,
                updated_at=now,
                daily=daily.isoformat() if daily else None,
                challenge=challenge,
                rematch_of=rematch_of,
                past_daily=past_daily.isoformat() if past_daily else None,
                room=room,
                by_account=select(players.c.account_since.is_not(None))
                .where(players.c.id == player_id)
                .scalar_subquery(),
            )
        )
        status, hints = GameStatus.ACTIVE, 0
        return GameRow(
            game_id,
            player_id,
            game.difficulty,
            0,
            status,
            hints,
            now,
            None,
            game,
            daily,
            challenge,
            rematch_of,
            past_daily,
            room,
        )

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
            # its owner as stored now: deleted since, with its player? moved to an account by
            # a sign-in (on any worker)?
            with self.db.transaction() as c:
                owner = c.scalar(select(games.c.player_id).where(games.c.id == game_id))
            if owner is None:
                raise GameNotFound(game_id)
            return found if owner == found.player_id else replace(found, player_id=owner)
        with self.db.transaction() as c:
            record = self._load(c, game_id, None)
            log = self._log(c, game_id)
        row = self._row(record, self._replay(record, log))
        self._finished.put(game_id, row)
        return row

    def current_game(self, player_id: int, difficulty: Difficulty | None) -> GameRow | None:
        """The player's unfinished regular game (of that difficulty, when given)."""
        query = select(games).where(
            games.c.player_id == player_id,
            games.c.status == GameStatus.ACTIVE,
            games.c.daily.is_(None),
            games.c.challenge.is_(None),
            games.c.past_daily.is_(None),
            games.c.room.is_(None),
        )
        if difficulty is not None:
            query = query.where(games.c.difficulty == difficulty.value)
        with self.db.transaction() as c:
            record = c.execute(query.order_by(games.c.updated_at.desc()).limit(1)).first()
        return self._row(record) if record else None

    def act(
        self,
        game_id: str,
        player_id: int,
        version: int,
        change: Callable[[Game], None],
        *,
        now: datetime | None = None,
        by_room: bool = False,
    ) -> GameRow:
        """Apply ``change`` (which may raise RuleViolation) to the game at ``version``.

        Optimistic concurrency: the game is loaded and the engine applies the action
        without holding any lock; then one short write transaction updates the row only
        if it is still at ``version`` and active. So of two requests on one version
        exactly one applies, the other raises :class:`StaleVersion` with the current
        game, and nothing is written for a rejected action. A game that ends is scored
        and entered in its high-score table in that same write transaction (unless its
        seed was chosen, see ``Settings.test_seeds_scored``); a daily game in its day's
        leaderboard instead, and a daily cannot be played once its day is over at ``now``
        (:class:`DailyEnded`: its seed is public then; :mod:`.dailyday`: two hours after its
        day's midnight UTC). A live room's game is rolled by its room alone (``by_room``):
        the player's own roll is :class:`TurnNotOpen`.

        The cost does not grow with the game's history: the load restores the game's
        snapshot (no replay), and the write appends the new actions as rows and replaces
        the snapshot.
        """
        with self.db.transaction() as c:
            record = self._load(c, game_id, player_id)
        if record.version != version:
            raise StaleVersion(self._row(record))
        if record.status == GameStatus.ABANDONED:
            raise RuleViolation(
                "game_abandoned", "This game was abandoned for a new one: it cannot continue."
            )
        day = _day(record.daily)
        if day is not None and now is not None and daily_over(day, now):
            raise DailyEnded(self._row(record))
        game = self._game(record)
        if record.room is not None and not by_room and game.phase is Phase.ROLL:
            # a room's dice are rolled by the room, for everyone at once (store.rooms)
            raise TurnNotOpen(self._row(record, game))
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
            values.update(status=GameStatus.OVER, score=game.score().total, finished_at=now)
        with self.db.transaction(write=True) as c:
            if over and c.dialect.name == "postgresql":
                # The owner's row first, as a sign-in's merge takes it (store/accounts.py):
                # the result's row names the owner, and taking the two rows in the other order
                # than a merge moving this game would deadlock. (A merge that ran meanwhile
                # deleted the row it locked: then nothing is locked, and nothing need be.)
                c.execute(
                    select(players.c.id)
                    .join(games, games.c.player_id == players.c.id)
                    .where(games.c.id == record.id)
                    .with_for_update(key_share=True, of=players)
                )
            result = c.execute(
                update(games)
                .where(
                    games.c.id == record.id,
                    games.c.version == version,
                    games.c.status == GameStatus.ACTIVE,
                )
                .values(**values)
            )
            won = result.rowcount == 1
            if won and added:
                c.execute(
                    insert(game_actions),
                    [
                        {"game_id": record.id, "seq": record.action_count + n, "action": action}
                        for n, action in enumerate(added)
                    ],
                )
            if won and over:
                # the finished game's row in its high scores or its daily's leaderboard
                # the game's owner as it is now (a sign-in may have merged it into an account
                # while this action ran)
                owner = select(games.c.player_id).where(games.c.id == record.id)
                entry: dict[str, Any] = {
                    "game_id": record.id,
                    "player_id": owner.scalar_subquery(),
                    "difficulty": record.difficulty,
                    "score": values["score"],
                    "turns": game.turns,
                    "powers_used": game.powers_used,
                    "hints_used": select(games.c.hints_used)
                    .where(games.c.id == record.id)
                    .scalar_subquery(),
                    "finished_at": now,
                }
                if day is not None:
                    ranked = bool(record.by_account)  # started by an account
                    c.execute(
                        insert(daily_results).values(day=record.daily, ranked=ranked, **entry)
                    )
                    count_daily_score(c, record.daily, record.difficulty, values["score"], ranked)
                elif (
                    record.challenge is not None
                    or record.past_daily is not None
                    or record.room is not None
                ):
                    pass  # its dice were known or shared (a challenge's, a past day's, a
                    # room's): no high score
                elif self.score_chosen_seeds or not record.chosen_seed:
                    c.execute(insert(highscores).values(**entry))
                if record.rematch_of is not None:  # a REMATCH ends: a challenge back
                    answer_challenge(c, record.id, record.rematch_of)
        if not won:  # another request changed the game first
            raise StaleVersion(self.get_game(game_id, player_id))
        self._cache.put((record.id, version + 1), game)
        return GameRow(
            id=record.id,
            player_id=record.player_id,
            difficulty=game.difficulty,
            version=version + 1,
            status=GameStatus(values.get("status", record.status)),
            hints_used=record.hints_used,
            created_at=aware(record.created_at),
            finished_at=values.get("finished_at"),
            game=game,
            daily=day,
            challenge=record.challenge,
            rematch_of=record.rematch_of,
            past_daily=_day(record.past_daily),
            room=record.room,
        )

    def _roll_within(self, c: Connection, record: Row[Any]) -> Game | None:
        """Roll the stored game ``record`` (at its version, waiting for its roll) within the
        transaction ``c``: a live room opens a turn for all its members in the transaction
        that opens it (store.rooms); the game rolled (the caller keeps it in the cache once
        the transaction is committed). Optimistic as :meth:`act`: None, and nothing written,
        when another request changed the game first (the room rolls it later)."""
        game = self._game(record)
        logged = len(game.actions)
        game.roll()
        added = game.actions[logged:]
        if game.phase is Phase.OVER:  # (a roll ends no game; should one, act() scores it)
            return None
        result = c.execute(
            update(games)
            .where(
                games.c.id == record.id,
                games.c.version == record.version,
                games.c.status == GameStatus.ACTIVE,
            )
            .values(
                state=game.snapshot(),
                action_count=record.action_count + len(added),
                version=record.version + 1,
                phase=game.phase.value,
                turns=game.turns,
                powers_used=game.powers_used,
                updated_at=utcnow(),
            )
        )
        if result.rowcount != 1:
            return None
        c.execute(
            insert(game_actions),
            [
                {"game_id": record.id, "seq": record.action_count + n, "action": action}
                for n, action in enumerate(added)
            ],
        )
        return game

    def count_hint(self, game_id: str, player_id: int, version: int) -> int:
        """Count a hint on the game at ``version`` (once per version, active games only); the
        game's hints so far."""
        with self.db.transaction(write=True) as c:
            c.execute(
                update(games)
                .where(
                    games.c.id == game_id,
                    games.c.player_id == player_id,
                    games.c.status == GameStatus.ACTIVE,
                    or_(games.c.hinted_version.is_(None), games.c.hinted_version != version),
                )
                .values(hints_used=games.c.hints_used + 1, hinted_version=version)
            )
            used = c.execute(select(games.c.hints_used).where(games.c.id == game_id)).scalar()
        return int(used or 0)

    # --- internals ----------------------------------------------------------------------

    @staticmethod
    def _load(c: Connection, game_id: str, player_id: int | None) -> Row[Any]:
        record = c.execute(select(games).where(games.c.id == game_id)).one_or_none()
        if record is None:
            raise GameNotFound(game_id)
        if player_id is None:
            if record.status != GameStatus.OVER:
                raise GameNotFound(game_id)
        elif record.player_id != player_id:
            raise GameNotFound(game_id)
        return record

    @staticmethod
    def _log(c: Connection, game_id: str) -> list[dict[str, Any]]:
        """A game's whole action log, in order."""
        rows = c.execute(
            select(game_actions.c.action)
            .where(game_actions.c.game_id == game_id)
            .order_by(game_actions.c.seq)
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
            status=GameStatus(record.status),
            hints_used=record.hints_used,
            created_at=aware(record.created_at),
            finished_at=aware(record.finished_at) if record.finished_at else None,
            game=game,
            daily=_day(record.daily),
            challenge=record.challenge,
            rematch_of=record.rematch_of,
            past_daily=_day(record.past_daily),
            room=record.room,
        )


def _day(stored: str | None) -> date | None:
    """A daily game's day as stored (None: a regular game)."""
    return date.fromisoformat(stored) if stored else None
