"""The tables: players, games (seed plus action log) and high scores."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, UniqueConstraint
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
    """One game: its secret seed, its action log and what the engine said of it."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
    difficulty: Mapped[str] = mapped_column(String(16))
    seed: Mapped[str] = mapped_column(String(128))
    actions: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
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

    __table_args__ = (Index("ix_games_player_status", "player_id", "status"),)


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
