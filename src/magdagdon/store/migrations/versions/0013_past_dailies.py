"""Past dailies: a day's dice played again once the day is over.

``games`` gains ``past_daily``: the UTC day whose daily the game replays (its seed is the
day's, public since the day ended: ``store.daily``). Such a game is neither the player's
regular game nor that day's daily: it stays out of the day's leaderboard, the daily streak,
the leagues and the high scores, so the partial index of the one unfinished regular game a
player has leaves it out too. The downgrade keeps the games as games whose seed was chosen
(never in the high scores), an unfinished one abandoned (R16), and drops the column.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

_ACTIVE_REGULAR_BEFORE = sa.text("status = 'active' AND daily IS NULL AND challenge IS NULL")
_ACTIVE_REGULAR = sa.text(
    "status = 'active' AND daily IS NULL AND challenge IS NULL AND past_daily IS NULL"
)


def _active_index(where: sa.TextClause) -> None:
    op.create_index(
        "uq_games_active_player",
        "games",
        ["player_id"],
        unique=True,
        sqlite_where=where,
        postgresql_where=where,
    )


def upgrade() -> None:
    """Add the column and narrow the index of the unfinished regular game."""
    op.add_column("games", sa.Column("past_daily", sa.String(10), nullable=True))
    op.create_index("ix_games_past_daily", "games", ["player_id", "past_daily"])
    op.drop_index("uq_games_active_player", "games")
    _active_index(_ACTIVE_REGULAR)


def downgrade() -> None:
    """Keep the past dailies as finished or abandoned games; drop the column."""
    op.execute(
        "UPDATE games SET status = 'abandoned', version = version + 1 "
        "WHERE past_daily IS NOT NULL AND status = 'active'"
    )
    op.drop_index("uq_games_active_player", "games")
    op.drop_index("ix_games_past_daily", "games")
    op.drop_column("games", "past_daily")
    _active_index(_ACTIVE_REGULAR_BEFORE)
