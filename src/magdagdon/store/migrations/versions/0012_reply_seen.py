"""A REMATCH's answer seen by the one it answers.

``game_challenges`` gains ``reply_seen``: the challenger a REMATCH answers has seen it in their
news (on any device: ``store.challenges``). Answers made before this release are news until
they are looked at, as they were until played. The downgrade drops the column.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the column."""
    op.add_column(
        "game_challenges",
        sa.Column("reply_seen", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    """Drop the column."""
    op.drop_column("game_challenges", "reply_seen")
