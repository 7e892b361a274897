"""Live rooms: friends play the same dice turn by turn.

``rooms``, ``room_members`` and ``room_events`` (store.rooms), and ``games.room``: the room a
game is played in (the room rolls its dice; it stays out of the high scores), which the index
of the one unfinished regular game a player has leaves out too. The downgrade keeps the
rooms' games as abandoned or finished games whose seed was chosen and drops the rest.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from magdagdon.store.models import UTCDateTime

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

_ACTIVE_REGULAR_BEFORE = sa.text(
    "status = 'active' AND daily IS NULL AND challenge IS NULL AND past_daily IS NULL"
)
_ACTIVE_REGULAR = sa.text(
    "status = 'active' AND daily IS NULL AND challenge IS NULL AND past_daily IS NULL "
    "AND room IS NULL"
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
    """Add the tables and the column; narrow the index of the unfinished regular game."""
    op.create_table(
        "rooms",
        sa.Column("code", sa.String(16), primary_key=True),
        sa.Column(
            "player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False, index=True
        ),
        sa.Column("difficulty", sa.String(16), nullable=False),
        sa.Column("clock", sa.Integer(), nullable=True),
        sa.Column("seed", sa.String(128), nullable=False),
        sa.Column("phase", sa.String(16), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("turn_open", sa.Boolean(), nullable=False),
        sa.Column("deadline", UTCDateTime(), nullable=True),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("started_at", UTCDateTime(), nullable=True),
        sa.Column("finished_at", UTCDateTime(), nullable=True),
        sa.Index("ix_rooms_due", "phase", "deadline"),
    )
    op.create_table(
        "room_members",
        sa.Column(
            "code", sa.String(16), sa.ForeignKey("rooms.code", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False, index=True
        ),
        sa.Column("joined_at", UTCDateTime(), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("coached", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("code", "player_id", name="pk_room_members"),
    )
    op.create_table(
        "room_events",
        sa.Column(
            "code", sa.String(16), sa.ForeignKey("rooms.code", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("code", "seq", name="pk_room_events"),
    )
    op.add_column("games", sa.Column("room", sa.String(16), nullable=True))
    op.drop_index("uq_games_active_player", "games")
    _active_index(_ACTIVE_REGULAR)


def downgrade() -> None:
    """Keep the rooms' games as abandoned or finished games; drop the rest."""
    op.execute(
        "UPDATE games SET status = 'abandoned', version = version + 1 "
        "WHERE room IS NOT NULL AND status = 'active'"
    )
    op.drop_index("uq_games_active_player", "games")
    op.drop_column("games", "room")
    _active_index(_ACTIVE_REGULAR_BEFORE)
    op.drop_table("room_events")
    op.drop_table("room_members")
    op.drop_table("rooms")
