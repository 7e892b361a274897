"""A first passkey's probation, skipped puzzles, leagues whose creator is no member mended.

``passkeys`` gains ``added_by`` (the session that added it) and ``probation_until`` (a first
passkey added without a passkey's proof is on probation for a day: see ``store.accounts``);
``sessions`` gains ``passkey_id`` (the passkey it signed in with); ``puzzle_attempts`` gains
``skipped`` (a rated puzzle given and never tried, counted as missed: see ``store.puzzles``,
which counts only puzzles given from this release's day on). A league left with a creator
who is no longer a member (two members leaving at once on PostgreSQL before this release) is
handed to the member who joined first, or ended when it has none. The downgrade drops the
columns (the mended leagues stay mended).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from magdagdon.store.models import UTCDateTime

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the columns; mend orphaned leagues."""
    op.add_column("passkeys", sa.Column("added_by", sa.String(32), nullable=True))
    op.add_column("passkeys", sa.Column("probation_until", UTCDateTime(), nullable=True))
    op.add_column("sessions", sa.Column("passkey_id", sa.String(32), nullable=True))
    op.add_column(
        "puzzle_attempts",
        sa.Column("skipped", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    bind = op.get_bind()
    orphans = bind.execute(
        sa.text(
            "SELECT id FROM leagues WHERE NOT EXISTS (SELECT 1 FROM league_members m "
            "WHERE m.league_id = leagues.id AND m.player_id = leagues.player_id)"
        )
    ).scalars()
    for league_id in list(orphans):
        heir = bind.execute(
            sa.text(
                "SELECT player_id FROM league_members WHERE league_id = :id "
                "ORDER BY joined_at, player_id LIMIT 1"
            ),
            {"id": league_id},
        ).scalar()
        if heir is None:
            bind.execute(sa.text("DELETE FROM leagues WHERE id = :id"), {"id": league_id})
        else:
            bind.execute(
                sa.text("UPDATE leagues SET player_id = :heir WHERE id = :id"),
                {"heir": heir, "id": league_id},
            )


def downgrade() -> None:
    """Drop the columns."""
    op.drop_column("puzzle_attempts", "skipped")
    op.drop_column("sessions", "passkey_id")
    op.drop_column("passkeys", "probation_until")
    op.drop_column("passkeys", "added_by")
