"""Challenges (a finished game's dice offered to friends) and private leagues.

``games`` gains ``challenge`` (the challenge a game plays; one game per player of each, by a
unique index) and ``rematch_of``; a challenge's game is neither the regular game nor a daily,
so the index of the one unfinished regular game per player leaves it out. The new tables are
``game_challenges``, ``leagues`` and ``league_members``. The downgrade drops them and the
challenges' games with them (they would otherwise become regular games that never entered
the high scores).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from magdagdon.store.models import UTCDateTime

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

_ACTIVE_REGULAR_BEFORE = sa.text("status = 'active' AND daily IS NULL")
_ACTIVE_REGULAR = sa.text("status = 'active' AND daily IS NULL AND challenge IS NULL")
_CHALLENGE = sa.text("challenge IS NOT NULL")


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
    """Add the columns, the indexes and the tables."""
    op.add_column("games", sa.Column("challenge", sa.String(16), nullable=True))
    op.add_column("games", sa.Column("rematch_of", sa.String(16), nullable=True))
    op.drop_index("uq_games_active_player", "games")
    _active_index(_ACTIVE_REGULAR)
    op.create_index(
        "uq_games_challenge_player",
        "games",
        ["challenge", "player_id"],
        unique=True,
        sqlite_where=_CHALLENGE,
        postgresql_where=_CHALLENGE,
    )
    op.create_table(
        "game_challenges",
        sa.Column("code", sa.String(16), primary_key=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("difficulty", sa.String(16), nullable=False),
        sa.Column("reply_to", sa.String(16), nullable=True),
        sa.Column("par", sa.Integer(), nullable=True),
        sa.Column("seen", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("game_id"),
    )
    op.create_index("ix_game_challenges_player_id", "game_challenges", ["player_id"])
    op.create_index("ix_game_challenges_reply_to", "game_challenges", ["reply_to"])
    op.create_table(
        "leagues",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("difficulty", sa.String(16), nullable=False),
        sa.Column("invite", sa.String(16), nullable=False),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("invite"),
    )
    op.create_index("ix_leagues_player_id", "leagues", ["player_id"])
    op.create_table(
        "league_members",
        sa.Column(
            "league_id",
            sa.String(16),
            sa.ForeignKey("leagues.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("joined_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("league_id", "player_id", name="pk_league_members"),
    )
    op.create_index("ix_league_members_player_id", "league_members", ["player_id"])


def downgrade() -> None:
    """Drop the tables, the challenges' games and the columns."""
    op.drop_table("league_members")
    op.drop_table("leagues")
    op.drop_table("game_challenges")
    challenge_games = "SELECT id FROM games WHERE challenge IS NOT NULL"
    op.execute(f"DELETE FROM game_actions WHERE game_id IN ({challenge_games})")
    op.execute("DELETE FROM games WHERE challenge IS NOT NULL")
    op.drop_index("uq_games_challenge_player", "games")
    op.drop_index("uq_games_active_player", "games")
    op.drop_column("games", "rematch_of")
    op.drop_column("games", "challenge")
    _active_index(_ACTIVE_REGULAR_BEFORE)
