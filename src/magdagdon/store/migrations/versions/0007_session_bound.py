"""Transfer codes and WebAuthn challenges belong to the session that asked for them.

``transfer_codes.session_id`` and ``webauthn_challenges.session_id`` name the session that
made the code or asked for the challenge, with ``ON DELETE CASCADE``: a session that ends
(signed out, revoked from another device, "sign out everywhere", its player deleted or
merged, unused too long) takes its codes and its passkey ceremonies under way with it, in
the same transaction, on every worker and host. A stolen cookie's codes do not outlive it.

Both tables hold only what lives minutes (a code 10, a challenge 5), and a code made before
this release names no session: the tables are made anew, empty. A code shown at the moment
of the upgrade has to be made again. The downgrade makes them anew too, without the column.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from magdagdon.store.models import UTCDateTime

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def _drop() -> None:
    op.drop_index("ix_transfer_codes_player_id", "transfer_codes")
    op.drop_table("transfer_codes")
    op.drop_index("ix_webauthn_challenges_expires_at", "webauthn_challenges")
    op.drop_table("webauthn_challenges")


def _session(bound: bool, *, nullable: bool) -> list[sa.Column[str]]:
    """The ``session_id`` column (with ``bound``), ended with its session."""
    if not bound:
        return []
    parent = sa.ForeignKey("sessions.id", ondelete="CASCADE")
    return [sa.Column("session_id", sa.String(32), parent, nullable=nullable)]


def _create(bound: bool) -> None:
    op.create_table(
        "webauthn_challenges",
        sa.Column("challenge", sa.String(128), primary_key=True),
        sa.Column("purpose", sa.String(16), nullable=False),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=True),
        *_session(bound, nullable=True),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_webauthn_challenges_expires_at", "webauthn_challenges", ["expires_at"])
    op.create_table(
        "transfer_codes",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False),
        *_session(bound, nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_transfer_codes_player_id", "transfer_codes", ["player_id"])
    if bound:
        op.create_index("ix_transfer_codes_session_id", "transfer_codes", ["session_id"])
        op.create_index("ix_webauthn_challenges_session_id", "webauthn_challenges", ["session_id"])


def upgrade() -> None:
    _drop()
    _create(bound=True)


def downgrade() -> None:
    op.drop_index("ix_transfer_codes_session_id", "transfer_codes")
    op.drop_index("ix_webauthn_challenges_session_id", "webauthn_challenges")
    _drop()
    _create(bound=False)
