"""Players, games and high scores.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from magdagdon.store.models import UTCDateTime

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the three tables."""
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("difficulty", sa.String(16), nullable=False),
        sa.Column("seed", sa.String(128), nullable=False),
        sa.Column("actions", sa.JSON(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("phase", sa.String(16), nullable=False),
        sa.Column("score", sa.Integer(), nullable=True),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("powers_used", sa.Integer(), nullable=False),
        sa.Column("hints_used", sa.Integer(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.Column("finished_at", UTCDateTime(), nullable=True),
    )
    op.create_index("ix_games_player_id", "games", ["player_id"])
    op.create_index("ix_games_player_status", "games", ["player_id", "status"])
    op.create_table(
        "highscores",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("difficulty", sa.String(16), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("powers_used", sa.Integer(), nullable=False),
        sa.Column("hints_used", sa.Integer(), nullable=False),
        sa.Column("finished_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("game_id", name="uq_highscores_game"),
    )
    op.create_index("ix_highscores_table", "highscores", ["difficulty", "score", "finished_at"])
    op.create_index("ix_highscores_player", "highscores", ["player_id", "difficulty"])


def downgrade() -> None:
    """Drop them."""
    op.drop_table("highscores")
    op.drop_table("games")
    op.drop_table("players")
