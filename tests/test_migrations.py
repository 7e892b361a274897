"""Migrations: a database made by an earlier release is brought up to date, its games kept."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from sqlalchemy import text

from magdagdon.settings import Settings
from magdagdon.store.db import MIGRATIONS, Database
from magdagdon.web.app import create_app

from .utils.api import act, new_game


def downgrade_to(url: str, revision: str) -> None:
    db = Database(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with db.engine.connect() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, revision)
        connection.commit()
    db.engine.dispose()


def test_a_0001_database_keeps_its_games_and_counts_hints(database_url: str) -> None:
    settings = Settings(database_url=database_url, allow_test_seeds=True, rate_limits=False)
    with TestClient(create_app(settings)) as client:
        view = act(client, new_game(client, "peaceful", seed=3), {"type": "roll"})
        client.get(f"/api/games/{view['id']}/hint")
    downgrade_to(database_url, "0001")  # as an earlier release left it
    db = Database(database_url)
    with db.engine.connect() as c:
        columns = list(c.execute(text("SELECT * FROM games")).keys())
    assert "hinted_version" not in columns
    db.engine.dispose()
    with TestClient(create_app(settings), cookies=client.cookies) as again:  # upgrades on start
        assert again.get(f"/api/games/{view['id']}").json()["version"] == view["version"]
        hint = again.get(f"/api/games/{view['id']}/hint").json()
        assert hint["hints_used"] == 2  # the hint before the downgrade still counts
