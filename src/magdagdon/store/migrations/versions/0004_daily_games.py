"""Daily games: one per UTC day and difficulty, the same dice for everybody.

``games.daily`` marks a daily game with its day. The unique index on a player's active games
now covers regular games only (a daily does not disturb the regular game in progress), and
``uq_games_daily_player`` allows one attempt per player at each daily. ``daily_results`` is
each day's leaderboard (dailies stay out of the high scores) and ``daily_scores`` how many
finished it with each score (ranks without counting every game); ``dailies`` keeps the par, the
strong player's score on the day's dice, claimed by one worker; ``server_secrets`` keeps the
key the daily seeds are derived from, made on first use and shared by every worker and host.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from magdagdon.store.models import UTCDateTime

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_ACTIVE = sa.text("status = 'active'")
_ACTIVE_REGULAR = sa.text("status = 'active' AND daily IS NULL")
_DAILY = sa.text("daily IS NOT NULL")


def upgrade() -> None:
    """Add the daily column, its indexes and the daily tables."""
    op.add_column("games", sa.Column("daily", sa.String(10), nullable=True))
    op.drop_index("uq_games_active_player", "games")
    op.create_index(
        "uq_games_active_player",
        "games",
        ["player_id"],
        unique=True,
        sqlite_where=_ACTIVE_REGULAR,
        postgresql_where=_ACTIVE_REGULAR,
    )
    op.create_index(
        "uq_games_daily_player",
        "games",
        ["daily", "difficulty", "player_id"],
        unique=True,
        sqlite_where=_DAILY,
        postgresql_where=_DAILY,
    )
    op.create_table(
        "daily_results",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("difficulty", sa.String(16), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("powers_used", sa.Integer(), nullable=False),
        sa.Column("hints_used", sa.Integer(), nullable=False),
        sa.Column("finished_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("game_id", name="uq_daily_results_game"),
    )
    op.create_index(
        "ix_daily_results_board", "daily_results", ["day", "difficulty", "score", "finished_at"]
    )
    op.create_index("ix_daily_results_player", "daily_results", ["player_id", "day"])
    op.create_table(
        "daily_scores",
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("difficulty", sa.String(16), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("day", "difficulty", "score", name="pk_daily_scores"),
    )
    op.create_table(
        "dailies",
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("difficulty", sa.String(16), nullable=False),
        sa.Column("par", sa.Integer(), nullable=True),
        sa.Column("par_claimed_at", UTCDateTime(), nullable=False),
        sa.Column("par_claimed_by", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("day", "difficulty", name="pk_dailies"),
    )
    op.create_table(
        "server_secrets",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )


def downgrade() -> None:
    """Drop the daily tables; daily games become abandoned regular games (never scored)."""
    op.drop_table("server_secrets")
    op.drop_table("dailies")
    op.drop_table("daily_scores")
    op.drop_index("ix_daily_results_player", "daily_results")
    op.drop_index("ix_daily_results_board", "daily_results")
    op.drop_table("daily_results")
    op.drop_index("uq_games_daily_player", "games")
    op.drop_index("uq_games_active_player", "games")
    op.execute(
        "UPDATE games SET status = 'abandoned', version = version + 1 "
        "WHERE daily IS NOT NULL AND status = 'active'"
    )
    op.drop_column("games", "daily")
    op.create_index(
        "uq_games_active_player",
        "games",
        ["player_id"],
        unique=True,
        sqlite_where=_ACTIVE,
        postgresql_where=_ACTIVE,
    )
