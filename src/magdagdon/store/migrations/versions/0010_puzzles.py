"""Puzzles: decisions of real games where one plan stands out, their ratings and attempts.

``games`` gains ``puzzles_mined`` (a finished game searched for puzzles); the new tables are
``puzzles``, ``puzzle_ratings``, ``puzzle_served`` and ``puzzle_attempts`` (see
``store.models``). ``magdagdon migrate`` then loads the starter set (``store.puzzles``). The
downgrade drops them.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from magdagdon.store.models import UTCDateTime

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

_FIRST = sa.text("first_try")
_PUBLIC = sa.text("owner IS NULL")
_OWN = sa.text("owner IS NOT NULL")


def upgrade() -> None:
    """Add the column and the tables."""
    op.add_column(
        "games",
        sa.Column("puzzles_mined", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.create_table(
        "puzzles",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("difficulty", sa.String(16), nullable=False),
        sa.Column("owner", sa.Integer(), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("source", sa.String(64), nullable=False),
        sa.Column("source_player", sa.Integer(), nullable=True),
        sa.Column("source_game", sa.String(32), nullable=True),
        sa.Column("position", sa.JSON(), nullable=False),
        sa.Column("best", sa.JSON(), nullable=False),
        sa.Column("best_value", sa.Float(), nullable=False),
        sa.Column("second_value", sa.Float(), nullable=False),
        sa.Column("plans", sa.Integer(), nullable=False),
        sa.Column("themes", sa.JSON(), nullable=False),
        sa.Column("theme_mask", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("plays", sa.Integer(), nullable=False),
        sa.Column("solves", sa.Integer(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("key"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_puzzles_owner", "puzzles", ["owner"])
    op.create_index("ix_puzzles_source_player", "puzzles", ["source_player"])
    op.create_index(
        "ix_puzzles_public",
        "puzzles",
        ["difficulty", "rating", "id"],
        sqlite_where=_PUBLIC,
        postgresql_where=_PUBLIC,
    )
    op.create_index(
        "ix_puzzles_own",
        "puzzles",
        ["owner", "difficulty", "rating", "id"],
        sqlite_where=_OWN,
        postgresql_where=_OWN,
    )
    op.create_table(
        "puzzle_ratings",
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("pool", sa.String(8), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Integer(), nullable=False),
        sa.Column("streak", sa.Integer(), nullable=False),
        sa.Column("best_streak", sa.Integer(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "pool", name="pk_puzzle_ratings"),
    )
    op.create_table(
        "puzzle_served",
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("puzzle_id", sa.Integer(), sa.ForeignKey("puzzles.id"), nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("served_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "puzzle_id", name="pk_puzzle_served"),
    )
    op.create_index("ix_puzzle_served_puzzle_id", "puzzle_served", ["puzzle_id"])
    op.create_table(
        "puzzle_attempts",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("puzzle_id", sa.Integer(), sa.ForeignKey("puzzles.id"), nullable=False),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("actions", sa.JSON(), nullable=False),
        sa.Column("solved", sa.Boolean(), nullable=False),
        sa.Column("yours", sa.Float(), nullable=False),
        sa.Column("first_try", sa.Boolean(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("rating_before", sa.Float(), nullable=True),
        sa.Column("rating_after", sa.Float(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_puzzle_attempts_puzzle_id", "puzzle_attempts", ["puzzle_id"])
    op.create_index("ix_puzzle_attempts_player_id", "puzzle_attempts", ["player_id"])
    op.create_index(
        "uq_puzzle_attempts_first",
        "puzzle_attempts",
        ["player_id", "puzzle_id"],
        unique=True,
        sqlite_where=_FIRST,
        postgresql_where=_FIRST,
    )


def downgrade() -> None:
    """Drop the tables and the column."""
    op.drop_table("puzzle_attempts")
    op.drop_table("puzzle_served")
    op.drop_table("puzzle_ratings")
    op.drop_table("puzzles")
    op.drop_column("games", "puzzles_mined")
