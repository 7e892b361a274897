"""Live rooms: PLAY AGAIN.

``rooms.next_code``: the room its members made to play again (new dice, the same difficulty
and clock), which the others join from the finished room.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``rooms.next_code``."""
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("next_code", sa.String(16), nullable=True))


def downgrade() -> None:
    """Drop ``rooms.next_code`` (the rooms stay, unlinked)."""
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("next_code")
