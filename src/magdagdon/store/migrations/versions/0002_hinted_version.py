"""Games remember the version they were last hinted at, so a hint counts once per position.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add games.hinted_version."""
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("hinted_version", sa.Integer(), nullable=True))


def downgrade() -> None:
    """Drop games.hinted_version."""
    with op.batch_alter_table("games") as batch:
        batch.drop_column("hinted_version")
