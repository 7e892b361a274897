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
# SQLite changes a table by copying it (batch mode): foreign keys pointing at the table would
# refuse its drop, so they are off while migrations run (outside any transaction, where
# SQLite takes this pragma) and checked once they are done.
sqlite = connection.dialect.name == "sqlite"
driver = connection.connection.driver_connection if sqlite else None
if driver is not None:
    driver.execute("PRAGMA foreign_keys=OFF")
try:
    with context.begin_transaction():
        context.run_migrations()
        if driver is not None:
            broken = driver.execute("PRAGMA foreign_key_check").fetchall()
            if broken:
                raise RuntimeError(f"a migration broke foreign keys: {broken[:5]}")
finally:
    if driver is not None:
        driver.execute("PRAGMA foreign_keys=ON")
