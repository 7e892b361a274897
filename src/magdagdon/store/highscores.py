"""High scores: the tables of finished games per difficulty, and a game's place in them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from sqlalchemy import and_, func, or_, select

from ..engine import Difficulty
from .db import Database
from .models import highscores, players

Scope = Literal["me", "all"]
TABLE_SIZE = 10


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


def aware(moment: datetime) -> datetime:
    """Core rows bypass the column type on some drivers' paths: make sure of UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class HighScores:
    """The store's operations on high scores (part of :class:`~magdagdon.store.Store`); the
    rows are written by :meth:`~magdagdon.store.games.Games.act` when a game ends."""

    db: Database

    def highscores(
        self, difficulty: Difficulty, scope: Scope, player_id: int | None, limit: int = TABLE_SIZE
    ) -> list[HighScoreEntry]:
        """The best games of a difficulty, ties by earlier date; ``me``: this player's only."""
        if scope == "me" and player_id is None:
            return []
        h = highscores
        query = (
            select(h, players.c.name)
            .join(players, players.c.id == h.c.player_id)
            .where(h.c.difficulty == difficulty.value)
        )
        if scope == "me":
            query = query.where(h.c.player_id == player_id)
        query = query.order_by(h.c.score.desc(), h.c.finished_at.asc(), h.c.id.asc()).limit(limit)
        with self.db.transaction() as c:
            rows = c.execute(query).all()
        return [
            HighScoreEntry(
                game_id=row.game_id,
                player_id=row.player_id,
                name=row.name,
                score=row.score,
                finished_at=aware(row.finished_at),
                turns=row.turns,
                powers_used=row.powers_used,
                hints_used=row.hints_used,
            )
            for row in rows
        ]

    def places(self, game_id: str) -> dict[str, int] | None:
        """A finished game's place in its difficulty's table of everybody and of its player."""
        h = highscores
        with self.db.transaction() as c:
            entry = c.execute(select(h).where(h.c.game_id == game_id)).one_or_none()
            if entry is None:
                return None
            better = or_(
                h.c.score > entry.score,
                and_(
                    h.c.score == entry.score,
                    or_(
                        h.c.finished_at < entry.finished_at,
                        and_(h.c.finished_at == entry.finished_at, h.c.id < entry.id),
                    ),
                ),
            )
            base = (
                select(func.count())
                .select_from(h)
                .where(h.c.difficulty == entry.difficulty, better)
            )
            everyone = c.scalar(base) or 0
            mine = c.scalar(base.where(h.c.player_id == entry.player_id)) or 0
        return {"all": everyone + 1, "me": mine + 1}
