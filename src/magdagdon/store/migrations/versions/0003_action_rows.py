"""Actions as rows beside a snapshot of the game; one active game per player, enforced.

Before, every action rewrote the game's whole JSON log and every load replayed all of it, so
an action cost more the longer the game's history. Now an action appends one row to
``game_actions`` and rewrites the small ``games.state`` snapshot (see ``Game.snapshot``);
a load restores the snapshot. Games migrated here have no snapshot yet: they are replayed
once, on their next load, and have one from their next action on.

``games.chosen_seed`` marks a game whose seed its creator chose (test servers only): it is
kept out of the high scores.

The partial unique index ``uq_games_active_player`` makes "one unfinished game per player"
hold even when several requests start games at once. Should a database hold more than one
active game of a player (the race this closes), the older ones are marked abandoned first.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_ACTIVE = sa.text("status = 'active'")


def upgrade() -> None:
    """Move the logs into game_actions, add the snapshot, index the active games."""
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.create_table(
        "game_actions",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("action", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seq", name="pk_game_actions"),
    )
    if sqlite:
        op.execute(
            "INSERT INTO game_actions (game_id, seq, action) "
            "SELECT g.id, CAST(a.key AS INTEGER), a.value "
            "FROM games AS g, json_each(g.actions) AS a"
        )
    else:
        op.execute(
            "INSERT INTO game_actions (game_id, seq, action) "
            "SELECT g.id, a.n - 1, a.value "
            "FROM games AS g, json_array_elements(g.actions) WITH ORDINALITY AS a(value, n)"
        )
    op.add_column("games", sa.Column("state", sa.JSON(), nullable=True))
    op.add_column(
        "games", sa.Column("chosen_seed", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.add_column(
        "games", sa.Column("action_count", sa.Integer(), nullable=False, server_default="0")
    )
    op.execute(
        "UPDATE games SET action_count = "
        "(SELECT count(*) FROM game_actions AS a WHERE a.game_id = games.id)"
    )
    # the newest active game of a player stays active; any older one is abandoned
    op.execute(
        "UPDATE games SET status = 'abandoned', version = version + 1 "
        "WHERE status = 'active' AND EXISTS (SELECT 1 FROM games AS newer "
        "WHERE newer.player_id = games.player_id AND newer.status = 'active' "
        "AND (newer.updated_at > games.updated_at "
        "OR (newer.updated_at = games.updated_at AND newer.id > games.id)))"
    )
    # plain ALTER TABLE (SQLite 3.35+): a batch copy of games would break the foreign keys
    op.drop_column("games", "actions")
    op.create_index(
        "uq_games_active_player",
        "games",
        ["player_id"],
        unique=True,
        sqlite_where=_ACTIVE,
        postgresql_where=_ACTIVE,
    )


def downgrade() -> None:
    """Put the logs back into games.actions; drop the snapshot, the rows and the index."""
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.drop_index("uq_games_active_player", "games")
    op.add_column("games", sa.Column("actions", sa.JSON(), nullable=True))
    if sqlite:
        op.execute(
            "UPDATE games SET actions = (SELECT json_group_array(json(action)) FROM "
            "(SELECT action FROM game_actions AS a WHERE a.game_id = games.id ORDER BY seq))"
        )
    else:
        op.execute(
            "UPDATE games SET actions = COALESCE((SELECT json_agg(a.action ORDER BY a.seq) "
            "FROM game_actions AS a WHERE a.game_id = games.id), '[]'::json)"
        )
    for column in ("state", "chosen_seed", "action_count"):
        op.drop_column("games", column)
    op.drop_table("game_actions")
