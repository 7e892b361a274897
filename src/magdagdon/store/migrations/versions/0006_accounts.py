"""Accounts: sessions, passkeys, transfer codes, and ranked daily results.

A player was one cookie: ``players.token_hash``. Now a device's cookie is a *session*
(``sessions``), and a player may have several (an account signed in on a phone and a
laptop). Every stored player keeps the cookie they have: their token's hash becomes their
one session (``method`` "earlier": a cookie of an earlier release, which over HTTPS is taken
under its plain name once and sent back with the ``__Host-`` prefix; last used when the
migration runs, so that nobody's session expires at the upgrade). ``players`` gains
``account_since`` (None: anonymous), the account's WebAuthn ``handle`` and ``merged_into``
(what a device's player left behind when it signed in to an account), and on SQLite
AUTOINCREMENT (a deleted player's id is never given again); ``passkeys``,
``webauthn_challenges`` and ``transfer_codes`` are new.

``games.by_account`` marks a game started by an account, ``daily_results.ranked`` a daily
result of one (ranked on the leaderboard); ``daily_scores`` counts ranked and unranked
results apart (``ranked`` joins its primary key). Every result stored before this release was
an anonymous player's: it stays on its leaderboard, unranked.

A downgrade gives each player back one token (the session last used; a player with none gets
a token nobody holds), drops the account tables, and adds the counts of ranked and unranked
results together again.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

from magdagdon.store.models import UTCDateTime

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_players = sa.table(
    "players",
    sa.column("id", sa.Integer()),
    sa.column("token_hash", sa.String()),
)
_sessions = sa.table(
    "sessions",
    sa.column("id", sa.String()),
    sa.column("token_hash", sa.String()),
    sa.column("player_id", sa.Integer()),
    sa.column("method", sa.String()),
    sa.column("label", sa.String()),
    sa.column("created_at", UTCDateTime()),
    sa.column("last_used_at", UTCDateTime()),
)
_scores = sa.table(
    "daily_scores",
    sa.column("day", sa.String()),
    sa.column("difficulty", sa.String()),
    sa.column("score", sa.Integer()),
    sa.column("ranked", sa.Boolean()),
    sa.column("players", sa.Integer()),
)


def _scores_table(ranked: bool) -> None:
    columns: list[sa.Column[object]] = [
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("difficulty", sa.String(16), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
    ]
    key = ["day", "difficulty", "score"]
    if ranked:
        columns.append(sa.Column("ranked", sa.Boolean(), nullable=False, server_default=sa.false()))
        key.append("ranked")
    columns.append(sa.Column("players", sa.Integer(), nullable=False))
    op.create_table("daily_scores", *columns, sa.PrimaryKeyConstraint(*key, name="pk_daily_scores"))


def _rebuild_scores(ranked: bool) -> None:
    """daily_scores again, with or without ``ranked`` in its key, its counts kept."""
    bind = op.get_bind()
    rows = bind.execute(
        sa.text(
            "SELECT day, difficulty, score, SUM(players) FROM daily_scores "
            "GROUP BY day, difficulty, score"
        )
    ).all()
    op.drop_table("daily_scores")
    _scores_table(ranked)
    values: list[dict[str, object]] = [
        {"day": d, "difficulty": f, "score": s, "players": int(n)} for d, f, s, n in rows
    ]
    if ranked:
        for value in values:
            value["ranked"] = False
    if values:
        table = (
            _scores
            if ranked
            else sa.table(
                "daily_scores",
                *(sa.column(name) for name in ("day", "difficulty", "score", "players")),
            )
        )
        bind.execute(sa.insert(table), values)


def upgrade() -> None:
    """Move the players' tokens into sessions; add the account tables and columns."""
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("method", sa.String(16), nullable=False),
        sa.Column("label", sa.String(64), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("last_used_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_sessions_player_id", "sessions", ["player_id"])
    bind = op.get_bind()
    now = datetime.now(UTC)
    tokens = bind.execute(sa.select(_players.c.id, _players.c.token_hash)).all()
    if tokens:
        bind.execute(
            sa.insert(_sessions),
            [
                {
                    "id": secrets.token_hex(16),
                    "token_hash": token_hash,
                    "player_id": player_id,
                    "method": "earlier",
                    "label": "",
                    "created_at": now,
                    "last_used_at": now,
                }
                for player_id, token_hash in tokens
            ],
        )
    # (SQLite: the table is made again, now never giving a deleted player's id to another)
    with op.batch_alter_table("players", table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.drop_column("token_hash")
        batch.add_column(sa.Column("account_since", UTCDateTime(), nullable=True))
        batch.add_column(sa.Column("handle", sa.String(64), nullable=True))
        batch.add_column(sa.Column("merged_into", sa.Integer(), nullable=True))
        batch.create_unique_constraint("uq_players_handle", ["handle"])
        batch.create_foreign_key("fk_players_merged_into", "players", ["merged_into"], ["id"])
    op.create_index("ix_players_merged_into", "players", ["merged_into"])
    op.create_table(
        "passkeys",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("credential_id", sa.String(1400), nullable=False, unique=True),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("public_key", sa.String(2048), nullable=False),
        sa.Column("sign_count", sa.Integer(), nullable=False),
        sa.Column("transports", sa.JSON(), nullable=False),
        sa.Column("label", sa.String(64), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("last_used_at", UTCDateTime(), nullable=True),
    )
    op.create_index("ix_passkeys_player_id", "passkeys", ["player_id"])
    op.create_table(
        "webauthn_challenges",
        sa.Column("challenge", sa.String(128), primary_key=True),
        sa.Column("purpose", sa.String(16), nullable=False),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_webauthn_challenges_expires_at", "webauthn_challenges", ["expires_at"])
    op.create_table(
        "transfer_codes",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_transfer_codes_player_id", "transfer_codes", ["player_id"])
    op.add_column(
        "daily_results",
        sa.Column("ranked", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.add_column(
        "games",
        sa.Column("by_account", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    _rebuild_scores(ranked=True)


def downgrade() -> None:
    """One token per player again; the account tables dropped."""
    _rebuild_scores(ranked=False)
    with op.batch_alter_table("daily_results") as batch:
        batch.drop_column("ranked")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("by_account")
    op.drop_index("ix_transfer_codes_player_id", "transfer_codes")
    op.drop_table("transfer_codes")
    op.drop_index("ix_webauthn_challenges_expires_at", "webauthn_challenges")
    op.drop_table("webauthn_challenges")
    op.drop_index("ix_passkeys_player_id", "passkeys")
    op.drop_table("passkeys")
    op.drop_index("ix_players_merged_into", "players")
    with op.batch_alter_table("players") as batch:
        batch.drop_constraint("fk_players_merged_into", type_="foreignkey")
        batch.drop_constraint("uq_players_handle", type_="unique")
        batch.drop_column("merged_into")
        batch.drop_column("handle")
        batch.drop_column("account_since")
        batch.add_column(sa.Column("token_hash", sa.String(64), nullable=True))
    bind = op.get_bind()
    latest: dict[int, str] = {}
    for player_id, token_hash in bind.execute(
        sa.select(_sessions.c.player_id, _sessions.c.token_hash).order_by(_sessions.c.last_used_at)
    ).all():
        latest[player_id] = token_hash  # the last used wins
    ids = bind.execute(sa.select(_players.c.id)).scalars().all()
    if ids:
        bind.execute(
            sa.update(_players)
            .where(_players.c.id == sa.bindparam("player"))
            .values(token_hash=sa.bindparam("digest")),
            [{"player": i, "digest": latest.get(i) or secrets.token_hex(32)} for i in ids],
        )
    with op.batch_alter_table("players") as batch:
        batch.alter_column("token_hash", existing_type=sa.String(64), nullable=False)
        batch.create_unique_constraint("players_token_hash_key", ["token_hash"])
    op.drop_index("ix_sessions_player_id", "sessions")
    op.drop_table("sessions")
