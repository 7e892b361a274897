"""Alembic environment: runs on the connection the application hands over."""

from __future__ import annotations

from alembic import context

from magdagdon.store.models import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - migrations always run through Database.migrate
    raise RuntimeError("run migrations with magdagdon.store.Database.migrate()")

context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
