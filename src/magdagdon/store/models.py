"""The tables: players, games (seed plus action log) and high scores."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
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


class Base(DeclarativeBase):
    """The models' base."""


class Player(Base):
    """Someone who plays: recognised by a random token whose SHA-256 is stored."""

    __tablename__ = "players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)


class GameRecord(Base):
    """One game: its secret seed, a snapshot of its state and what the engine said of it
    (its action log is in :class:`GameAction`)."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    difficulty: Mapped[str] = mapped_column(String(16))
    seed: Mapped[str] = mapped_column(String(128))
    chosen_seed: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """The seed was chosen when the game was made (test servers): no high score."""
    state: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """``Game.snapshot()`` at ``version`` (None until the first action after migration 0003)."""
    action_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    version: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), default="active")  # active|over|abandoned
    phase: Mapped[str] = mapped_column(String(16), default="roll")
    score: Mapped[int | None] = mapped_column(Integer, nullable=True)
    turns: Mapped[int] = mapped_column(Integer, default=0)
    powers_used: Mapped[int] = mapped_column(Integer, default=0)
    hints_used: Mapped[int] = mapped_column(Integer, default=0)
    hinted_version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)

    __table_args__ = (
        Index("ix_games_player_status", "player_id", "status"),
        # one unfinished game per player, whatever races between requests
        Index(
            "uq_games_active_player",
            "player_id",
            unique=True,
            sqlite_where=text("status = 'active'"),
            postgresql_where=text("status = 'active'"),
        ),
    )


class GameAction(Base):
    """One action of a game's log, in order: appending one costs the same at any length."""

    __tablename__ = "game_actions"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    action: Mapped[dict[str, Any]] = mapped_column(JSON)


class HighScore(Base):
    """A finished game's entry in its difficulty's table, written by the server alone."""

    __tablename__ = "highscores"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    difficulty: Mapped[str] = mapped_column(String(16))
    score: Mapped[int] = mapped_column(Integer)
    turns: Mapped[int] = mapped_column(Integer)
    powers_used: Mapped[int] = mapped_column(Integer)
    hints_used: Mapped[int] = mapped_column(Integer, default=0)
    finished_at: Mapped[datetime] = mapped_column(UTCDateTime())

    __table_args__ = (
        UniqueConstraint("game_id", name="uq_highscores_game"),
        Index("ix_highscores_table", "difficulty", "score", "finished_at"),
        Index("ix_highscores_player", "player_id", "difficulty"),
    )
