"""The tables (SQLAlchemy Core): players, games with their snapshots, their actions, and high
scores. The migrations make the same schema; every query of the store is written against these.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.types import DateTime, TypeDecorator


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on every backend (SQLite stores them naive)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("naive datetime")
        return value.astimezone(UTC) if value is not None else None

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


def utcnow() -> datetime:
    """Now, in UTC."""
    return datetime.now(UTC)


class GameStatus(StrEnum):
    """Where a stored game stands: being played, finished (scored), or abandoned (R16)."""

    ACTIVE = "active"
    OVER = "over"
    ABANDONED = "abandoned"


metadata = MetaData()

players = Table(
    "players",
    metadata,
    Column("id", Integer, primary_key=True),
    # someone who plays is recognised by a random token whose SHA-256 is stored
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("name", String(64), nullable=True),
    Column("created_at", UTCDateTime(), nullable=False, default=utcnow),
)
"""Players."""

_ACTIVE = text("status = 'active'")

games = Table(
    "games",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("player_id", ForeignKey("players.id"), nullable=False, index=True),
    Column("difficulty", String(16), nullable=False),
    Column("seed", String(128), nullable=False),
    # the seed was chosen when the game was made (test servers): no high score
    Column("chosen_seed", Boolean, nullable=False, default=False, server_default=false()),
    # Game.snapshot() at `version` (None until the first action after migration 0003)
    Column("state", JSON, nullable=True),
    Column("action_count", Integer, nullable=False, default=0, server_default="0"),
    Column("version", Integer, nullable=False, default=0),
    Column("status", String(16), nullable=False, default=GameStatus.ACTIVE.value),
    Column("phase", String(16), nullable=False, default="roll"),
    Column("score", Integer, nullable=True),
    Column("turns", Integer, nullable=False, default=0),
    Column("powers_used", Integer, nullable=False, default=0),
    Column("hints_used", Integer, nullable=False, default=0),
    Column("hinted_version", Integer, nullable=True),
    Column("created_at", UTCDateTime(), nullable=False, default=utcnow),
    Column("updated_at", UTCDateTime(), nullable=False, default=utcnow),
    Column("finished_at", UTCDateTime(), nullable=True),
    Index("ix_games_player_status", "player_id", "status"),
    # one unfinished game per player, whatever races between requests
    Index(
        "uq_games_active_player",
        "player_id",
        unique=True,
        sqlite_where=_ACTIVE,
        postgresql_where=_ACTIVE,
    ),
)
"""Games: the secret seed, a snapshot of the state, and what the engine said of it."""

game_actions = Table(
    "game_actions",
    metadata,
    Column("game_id", ForeignKey("games.id"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("action", JSON, nullable=False),
    PrimaryKeyConstraint("game_id", "seq", name="pk_game_actions"),
)
"""Each game's action log, one row an action in order: appending costs the same at any length."""

highscores = Table(
    "highscores",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("game_id", ForeignKey("games.id"), nullable=False),
    Column("player_id", ForeignKey("players.id"), nullable=False),
    Column("difficulty", String(16), nullable=False),
    Column("score", Integer, nullable=False),
    Column("turns", Integer, nullable=False),
    Column("powers_used", Integer, nullable=False),
    Column("hints_used", Integer, nullable=False, default=0),
    Column("finished_at", UTCDateTime(), nullable=False),
    UniqueConstraint("game_id", name="uq_highscores_game"),
    Index("ix_highscores_table", "difficulty", "score", "finished_at"),
    Index("ix_highscores_player", "player_id", "difficulty"),
)
"""A finished game's entry in its difficulty's table, written by the server alone."""
