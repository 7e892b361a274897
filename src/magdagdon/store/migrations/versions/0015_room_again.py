"""Live rooms: PLAY AGAIN, and the coach's score.

``rooms.next_code``: the room its members made to play again (new dice, the same difficulty
and clock), which the others join from the finished room; ``rooms.par``: the coach's score on
the room's dice, computed once the room is over.

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
    """Add ``rooms.next_code`` and ``rooms.par``."""
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("next_code", sa.String(16), nullable=True))
        batch.add_column(sa.Column("par", sa.Integer, nullable=True))


def downgrade() -> None:
    """Drop ``rooms.next_code`` and ``rooms.par`` (the rooms stay, unlinked)."""
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("par")
        batch.drop_column("next_code")
