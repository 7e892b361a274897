"""A REMATCH's answer seen by the one it answers; a league's hand-over remembered.

``game_challenges`` gains ``reply_seen``: the challenger a REMATCH answers has seen it in their
news (on any device: ``store.challenges``). Answers made before this release are news until
they are looked at, as they were until played. ``leagues`` gains ``handed_from`` and
``handed_at``: the name of the creator who last left (their part passed to the member who
joined first, who is told so in the table for a week: ``store.leagues``), and when. The
downgrade drops the columns.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from magdagdon.store.models import UTCDateTime

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the columns."""
    op.add_column(
        "game_challenges",
        sa.Column("reply_seen", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.add_column("leagues", sa.Column("handed_from", sa.String(64), nullable=True))
    op.add_column("leagues", sa.Column("handed_at", UTCDateTime(), nullable=True))


def downgrade() -> None:
    """Drop the columns."""
    op.drop_column("leagues", "handed_at")
    op.drop_column("leagues", "handed_from")
    op.drop_column("game_challenges", "reply_seen")
