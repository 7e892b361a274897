"""Puzzles II: the check's figures stored with each puzzle, and retired starter puzzles.

``puzzles.check_figures``: the puzzle check's figures (``ai.puzzles.Puzzle.check``: the
play-outs a plan, their seed and bot, the measured margin, each rival's mean difference and
its standard error), NULL for a puzzle not checked (a player's own, or one loaded before the
check). ``puzzles.retired``: a starter puzzle that a later starter set dropped (a repeat, an
answer the check did not confirm): never given again, but kept with its attempts and ratings.
``puzzles.shape``: the position up to the board's symmetries and the dice's order, hashed
(``store.puzzles.puzzle_shape``; worked out here for the puzzles there): a pool holds one
puzzle a position.
Loading the starter set after this revision (``store.puzzles.load_starter``) brings an older
set's puzzles up to date: the same positions get the new answers and figures, the others are
retired, the new ones are added.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from magdagdon.ai.puzzles import Position
from magdagdon.store.puzzles import puzzle_shape

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``puzzles.check_figures``, ``puzzles.retired`` and ``puzzles.shape`` (worked out)."""
    with op.batch_alter_table("puzzles") as batch:
        batch.add_column(sa.Column("check_figures", sa.JSON(), nullable=True))
        batch.add_column(
            sa.Column("retired", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("shape", sa.String(64), nullable=True))
        batch.create_index("ix_puzzles_shape", ["shape"])
    table = sa.table(
        "puzzles", sa.column("id", sa.Integer), sa.column("position", sa.JSON), sa.column("shape")
    )
    connection = op.get_bind()
    rows = connection.execute(sa.select(table.c.id, table.c.position)).all()
    shapes = [{"row": r.id, "value": puzzle_shape(Position.from_dict(r.position))} for r in rows]
    if shapes:
        connection.execute(
            table.update()
            .where(table.c.id == sa.bindparam("row"))
            .values(shape=sa.bindparam("value")),
            shapes,
        )


def downgrade() -> None:
    """Drop them: every puzzle is given again, with no figures. (SQLite copies the table to
    drop a column: its ids stay AUTOINCREMENT, never given twice.)"""
    with op.batch_alter_table("puzzles", table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.drop_index("ix_puzzles_shape")
        batch.drop_column("shape")
        batch.drop_column("retired")
        batch.drop_column("check_figures")
