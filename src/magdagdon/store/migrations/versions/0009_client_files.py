"""The browser client's files of the last releases, kept in the database.

A page of one release that is still open after the server moved on to another (an upgrade)
loads the modules it had not imported yet (a screen opened for the first time) from
``client_files``, whichever host or worker answers: the server keeps its last three
releases' files there (``store.releases``). The downgrade drops the table (a page of an
older release then gets 404 for what it had not loaded, as before).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from magdagdon.store.models import UTCDateTime

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the table."""
    op.create_table(
        "client_files",
        sa.Column("release", sa.String(16), nullable=False),
        sa.Column("path", sa.String(255), nullable=False),
        sa.Column("media_type", sa.String(64), nullable=False),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("release", "path", name="pk_client_files"),
    )


def downgrade() -> None:
    """Drop the table."""
    op.drop_table("client_files")
