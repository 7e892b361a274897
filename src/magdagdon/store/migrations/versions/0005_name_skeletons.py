"""Players' names have a confusable skeleton, unique among players: no look-alike names.

``players.name_skeleton`` is the Unicode confusable skeleton (UTS #39, see
:mod:`magdagdon.names`) of the player's name in NFKC; the partial unique index
``uq_players_name_skeleton`` lets no two players have names that look alike, whatever
requests race.

The names already stored stay as they are, with two exceptions the new rules force:

- a name with nothing visible in it (only Hangul fillers, zero-width characters and the
  like, which the old rules let through) is cleared: the tables showed it blank, and now show
  the player as they show a player without a name;
- of players whose names look alike (the same skeleton), the oldest player (the lowest id)
  holds the skeleton; the others keep their names but with no skeleton, so nobody else can
  take a look-alike of the oldest player's name, and their own name is refused if they set it
  again (409 ``name_taken``): they choose another when they next rename.

A downgrade drops the column and the index; cleared names stay cleared.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from magdagdon import names

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

_NAMED = sa.text("name_skeleton IS NOT NULL")

_players = sa.table(
    "players",
    sa.column("id", sa.Integer()),
    sa.column("name", sa.String()),
    sa.column("name_skeleton", sa.String()),
)


def upgrade() -> None:
    """Add the skeleton column, compute it for the stored names, index it (unique)."""
    op.add_column("players", sa.Column("name_skeleton", sa.String(255), nullable=True))
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(_players.c.id, _players.c.name)
        .where(_players.c.name.is_not(None))
        .order_by(_players.c.id)
    ).all()
    held: set[str] = set()
    cleared: list[dict[str, object]] = []
    keyed: list[dict[str, object]] = []
    for player_id, name in rows:
        normal = names.normalise(name)
        if not "".join(ch for ch in normal if not names.is_invisible(ch)).strip():
            cleared.append({"player": player_id})
            continue
        key = names.skeleton(normal)
        if key not in held:  # the oldest player with this skeleton holds it
            held.add(key)
            keyed.append({"player": player_id, "key": key})
    if cleared:
        bind.execute(
            sa.update(_players).where(_players.c.id == sa.bindparam("player")).values(name=None),
            cleared,
        )
    if keyed:
        bind.execute(
            sa.update(_players)
            .where(_players.c.id == sa.bindparam("player"))
            .values(name_skeleton=sa.bindparam("key")),
            keyed,
        )
    op.create_index(
        "uq_players_name_skeleton",
        "players",
        ["name_skeleton"],
        unique=True,
        sqlite_where=_NAMED,
        postgresql_where=_NAMED,
    )


def downgrade() -> None:
    """Drop the skeletons and their index (the names stay)."""
    op.drop_index("uq_players_name_skeleton", "players")
    op.drop_column("players", "name_skeleton")
