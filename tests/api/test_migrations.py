"""Migrations: a database made by an earlier release is brought up to date, its games kept."""

from __future__ import annotations

import json
from typing import Any

from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from sqlalchemy import text

from magdagdon.names import skeleton
from magdagdon.settings import Settings
from magdagdon.startup import prepare_database
from magdagdon.store.db import MIGRATIONS, Database
from magdagdon.store.models import utcnow
from magdagdon.store.players import hash_token
from magdagdon.web.app import create_app
from magdagdon.web.deps import TEST_DATE_HEADER

from ..utils.api import act, new_game, play_to_end, play_turn
from .test_api_puzzles import _any_plan


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
    settings = Settings(
        database_url=database_url, allow_test_seeds=True, test_seeds_scored=True, rate_limits=False
    )
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


def test_0003_moves_the_logs_into_rows_and_back(database_url: str) -> None:
    """Upgrading from 0002 keeps every game's log (replays, reviews and games in progress go
    on), leaves one active game per player, and a downgrade puts the logs back."""
    settings = Settings(
        database_url=database_url, allow_test_seeds=True, test_seeds_scored=True, rate_limits=False
    )
    with TestClient(create_app(settings)) as client:
        done = play_to_end(client, new_game(client, "peaceful", seed=5), use_power=True)
        replay = client.get(f"/api/games/{done['id']}/replay").json()
        going = play_turn(
            client, act(client, new_game(client, "nightmare", seed=6), {"type": "roll"})
        )
        going = act(client, going, {"type": "roll"})
    downgrade_to(database_url, "0002")  # as the previous release left it
    db = Database(database_url)
    with db.engine.begin() as c:
        logs: dict[str, Any] = dict(c.execute(text("SELECT id, actions FROM games")).all())
        # the race that 0003 closes could have left a second active game of the player
        c.execute(
            text(
                "INSERT INTO games (id, player_id, difficulty, seed, actions, version, status, "
                "phase, turns, powers_used, hints_used, created_at, updated_at) "
                "SELECT 'older', player_id, difficulty, seed, actions, version, status, phase, "
                "turns, powers_used, hints_used, created_at, created_at FROM games "
                "WHERE id = :id"
            ),
            {"id": going["id"]},
        )
    db.engine.dispose()
    parsed = {k: v if isinstance(v, list) else json.loads(v) for k, v in logs.items()}
    assert parsed[done["id"]] == replay["actions"]
    assert len(parsed[going["id"]]) > 3 and going["phase"] != "over"
    with TestClient(create_app(settings), cookies=client.cookies) as again:  # upgrades on start
        assert again.get(f"/api/games/{done['id']}/replay").json() == replay
        assert again.get(f"/api/games/{done['id']}/review").status_code == 200
        current = again.get("/api/games/current").json()
        assert current["id"] == going["id"] and current["version"] == going["version"]
        assert current["board"] == going["board"] and current["dice"] == going["dice"]
        finished = play_to_end(again, current)
        again_replay = again.get(f"/api/games/{going['id']}/replay").json()
        assert again_replay["actions"][: len(parsed[going["id"]])] == parsed[going["id"]]
        assert again_replay["score"] == finished["final_score"]["total"]
    db = Database(database_url)
    with db.engine.connect() as c:
        statuses: dict[str, str] = dict(c.execute(text("SELECT id, status FROM games")).all())
    db.engine.dispose()
    assert statuses == {done["id"]: "over", going["id"]: "over", "older": "abandoned"}
    downgrade_to(database_url, "0002")
    db = Database(database_url)
    with db.engine.connect() as c:
        raw: dict[str, Any] = dict(c.execute(text("SELECT id, actions FROM games")).all())
    db.engine.dispose()
    back = {k: v if isinstance(v, list) else json.loads(v) for k, v in raw.items()}
    assert back[done["id"]] == replay["actions"]
    assert back[going["id"]] == again_replay["actions"]


def test_0004_adds_the_dailies_and_a_downgrade_keeps_the_regular_games(database_url: str) -> None:
    """Upgrading from 0003 keeps every game (the regular game in progress goes on); a daily
    played beside it, downgraded, becomes an abandoned game (never scored) and the
    one-active-game index holds again."""
    settings = Settings(
        database_url=database_url, allow_test_seeds=True, test_seeds_scored=True, rate_limits=False
    )
    with TestClient(create_app(settings)) as client:
        going = act(client, new_game(client, "survival", seed=4), {"type": "roll"})
    downgrade_to(database_url, "0003")
    with TestClient(create_app(settings), cookies=client.cookies) as again:  # upgrades on start
        assert again.get("/api/games/current").json()["id"] == going["id"]
        daily = act(again, again.post("/api/daily/peaceful").json(), {"type": "roll"})
        assert again.get("/api/games/current").json()["id"] == going["id"]
        cookies = again.cookies
    downgrade_to(database_url, "0003")
    db = Database(database_url)
    with db.engine.connect() as c:
        statuses: dict[str, str] = dict(c.execute(text("SELECT id, status FROM games")).all())
        tables = set(db.engine.dialect.get_table_names(c))
    db.engine.dispose()
    assert statuses == {going["id"]: "active", daily["id"]: "abandoned"}
    assert "daily_results" not in tables and "dailies" not in tables
    with TestClient(create_app(settings), cookies=cookies) as last:
        assert last.get("/api/games/current").json()["id"] == going["id"]
        assert last.get(f"/api/games/{daily['id']}").json()["status"] == "abandoned"


def test_0005_keeps_every_player_and_gives_the_names_skeletons(database_url: str) -> None:
    """A database at 0004 whose players took look-alike and blank names (the old rules let
    them): upgrading keeps every player and every visible name; the oldest of look-alikes
    holds the skeleton, so the others' names are taken when they set them again; a name of
    nothing but Hangul fillers is cleared. A downgrade keeps the names."""
    settings = Settings(database_url=database_url, rate_limits=False)
    with TestClient(create_app(settings)):
        pass  # the schema
    downgrade_to(database_url, "0004")
    named = [
        ("pilot", "Pilot"),
        ("cyrillic", "\u0420ilot"),  # Cyrillic Р: looks like the oldest player's
        ("wide", "\uff30\uff49\uff4c\uff4f\uff54"),  # full-width: looks like it too
        ("blank", "\u3164"),  # HANGUL FILLER: nothing to see
        ("ann", "Ann"),
        ("nameless", None),
    ]
    db = Database(database_url)
    with db.engine.begin() as c:
        assert "name_skeleton" not in list(c.execute(text("SELECT * FROM players")).keys())
        for token, name in named:  # in this order: ids grow
            c.execute(
                text(
                    "INSERT INTO players (token_hash, name, created_at) "
                    "VALUES (:token_hash, :name, :created_at)"
                ),
                {"token_hash": hash_token(token), "name": name, "created_at": utcnow()},
            )
    db.engine.dispose()

    def client_of(token: str) -> TestClient:
        return TestClient(create_app(settings), cookies={"magdagdon_player": token})

    with client_of("pilot") as pilot:  # upgrades on start
        assert pilot.get("/api/players/me").json()["name"] == "Pilot"
        db = Database(database_url)
        with db.engine.connect() as c:
            rows = c.execute(
                text(
                    "SELECT (SELECT token_hash FROM sessions WHERE player_id = players.id), "
                    "name, name_skeleton FROM players ORDER BY id"
                )
            ).all()
        db.engine.dispose()
        assert [(name, key) for _, name, key in rows] == [
            ("Pilot", skeleton("Pilot")),
            ("\u0420ilot", None),
            ("\uff30\uff49\uff4c\uff4f\uff54", None),
            (None, None),
            ("Ann", skeleton("Ann")),
            (None, None),
        ]
        assert [token_hash for token_hash, _, _ in rows] == [hash_token(t) for t, _ in named]
        with client_of("cyrillic") as cyrillic:
            assert cyrillic.get("/api/players/me").json()["name"] == "\u0420ilot"
            r = cyrillic.put("/api/players/me", json={"name": "\u0420ilot"})
            assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken"
            assert cyrillic.put("/api/players/me", json={"name": "Zed"}).status_code == 200
        with client_of("blank") as blank:
            assert blank.get("/api/players/me").json()["name"] is None
            assert blank.put("/api/players/me", json={"name": "Ann"}).status_code == 409
        assert pilot.put("/api/players/me", json={"name": "\u0420ilot"}).status_code == 200
    downgrade_to(database_url, "0004")
    db = Database(database_url)
    with db.engine.connect() as c:
        result = c.execute(text("SELECT name FROM players ORDER BY id"))
        assert "name_skeleton" not in list(result.keys())
        kept = result.scalars().all()
    db.engine.dispose()
    assert kept == ["\u0420ilot", "Zed", "\uff30\uff49\uff4c\uff4f\uff54", None, "Ann", None]


def test_0006_keeps_every_cookie_game_and_daily_and_a_downgrade_gives_them_back(
    database_url: str,
) -> None:
    """A database of the release before accounts (0005): every player's cookie still works
    after the upgrade (their token became their one session), with their games, name, high
    scores and daily results (unranked: they were anonymous, and stay on the leaderboard for
    everyone, or apart for accounts-only); the counts of the leaderboard are kept. A downgrade
    gives each player one token back: the cookie they used last."""
    settings = Settings(
        database_url=database_url,
        allow_test_seeds=True,
        test_seeds_scored=True,
        rate_limits=False,
        daily_ranks="everyone",
        # (the leaderboards are compared whole: a par stored by the background after the first
        # was read, before the app stopped, made a clean-clone run's differ)
        daily_par=False,
    )
    day = {TEST_DATE_HEADER: "2026-12-07"}
    with (
        TestClient(create_app(settings), headers=day) as one,
        TestClient(one.app, headers=day) as two,
    ):
        one.put("/api/players/me", json={"name": "Enne"})
        done = play_to_end(one, new_game(one, "peaceful", seed=40))
        going = act(one, new_game(one, "nightmare", seed=41), {"type": "roll"})
        daily = play_to_end(one, one.post("/api/daily/survival").json())
        play_to_end(two, two.post("/api/daily/survival").json())
        board = one.get("/api/daily/2026-12-07/survival/leaderboard").json()
        stats = one.get("/api/players/me/stats").json()
    downgrade_to(database_url, "0005")  # as the release before accounts left it
    db = Database(database_url)
    with db.engine.connect() as c:
        tables = set(db.engine.dialect.get_table_names(c))
        columns = list(c.execute(text("SELECT * FROM players")).keys())
    db.engine.dispose()
    assert "sessions" not in tables and "token_hash" in columns
    with TestClient(create_app(settings), cookies=one.cookies, headers=day) as again:  # upgrades
        assert again.get("/api/players/me").json() == {
            "name": "Enne",
            "name_max": 24,
            "account": False,
        }
        assert again.get("/api/games/current").json()["id"] == going["id"]
        assert again.get(f"/api/games/{done['id']}").json()["phase"] == "over"
        assert again.get("/api/players/me/stats").json() == stats
        assert again.get("/api/daily/2026-12-07/survival/leaderboard").json() == board
        ids = {g["id"] for g in again.get("/api/players/me/export").json()["games"]}
        assert ids == {done["id"], going["id"], daily["id"]}
        again.post("/api/account/transfer-codes")  # an account now, with its own rows
    ranked = settings.model_copy(update={"daily_ranks": "accounts"})
    with TestClient(create_app(ranked), cookies=one.cookies, headers=day) as accounts_only:
        mine = accounts_only.get("/api/daily/2026-12-07/survival/leaderboard").json()
        assert mine["rows"] == [] and mine["me"]["ranked"] is False  # played anonymously
    downgrade_to(database_url, "0005")
    with TestClient(create_app(settings), cookies=one.cookies, headers=day) as last:
        assert last.get("/api/players/me").json()["name"] == "Enne"
        assert last.get("/api/games/current").json()["id"] == going["id"]
        assert last.get("/api/daily/2026-12-07/survival/leaderboard").json() == board


def test_0016_brings_an_older_starter_set_up_to_date_and_keeps_what_players_did(
    database_url: str,
) -> None:
    """A database holding an older starter set (no check's figures) gets today's: a position
    both sets hold keeps its id, rating and attempts with today's answer and figures; one the
    set dropped is retired (never given again, its attempts kept); the checked figures are
    stored with every starter puzzle; a downgrade drops the columns and gives every puzzle."""
    from magdagdon.ai.puzzles import starter_puzzles
    from magdagdon.store.puzzles import STARTED, puzzle_key

    settings = Settings(database_url=database_url, rate_limits=False)
    with TestClient(create_app(settings)) as client:
        given = client.get("/api/puzzles/next?difficulty=peaceful").json()
        plan = _any_plan(given)
        tried = client.post(f"/api/puzzles/{given['id']}/attempts", json={"actions": plan})
        assert tried.status_code == 200
        before = client.get("/api/players/me/puzzles").json()
    downgrade_to(database_url, "0015")  # as the release before the check left it
    db = Database(database_url)
    with db.engine.begin() as c:
        columns = list(c.execute(text("SELECT * FROM puzzles")).keys())
        assert "check_figures" not in columns and "retired" not in columns
        # an older set: the given puzzle's position is not in today's; another's answer differs
        c.execute(text("UPDATE puzzles SET key = 'older' WHERE id = :id"), {"id": given["id"]})
        other = c.execute(
            text("SELECT id, key, best FROM puzzles WHERE difficulty <> 'peaceful' ORDER BY id")
        ).first()
        assert other is not None
        c.execute(
            text("UPDATE puzzles SET best = :best, rating = 1234.5 WHERE id = :id"),
            {"best": json.dumps([{"type": "reroll"}]), "id": other.id},
        )
        attempts = c.execute(text("SELECT count(*) FROM puzzle_attempts")).scalar()
    db.engine.dispose()
    shipped = {puzzle_key(p, None): p for p in starter_puzzles()}
    with TestClient(create_app(settings), cookies=client.cookies) as again:  # upgrades
        assert again.get("/api/players/me/puzzles").json() == before
        seen = {again.get("/api/puzzles/next?difficulty=peaceful").json()["id"] for _ in range(3)}
        assert given["id"] not in seen
    db = Database(database_url)
    with db.engine.begin() as c:
        rows = {
            r.key: r
            for r in c.execute(
                text(
                    "SELECT id, key, best, rating, check_figures, retired FROM puzzles "
                    "WHERE source LIKE :started"
                ),
                {"started": STARTED + "%"},
            )
        }
        assert rows["older"].retired and rows["older"].id == given["id"]
        assert c.execute(text("SELECT count(*) FROM puzzle_attempts")).scalar() == attempts
        kept = rows[other.key]
        assert kept.id == other.id and kept.rating == 1234.5 and not kept.retired
        assert _json(kept.best) == shipped[other.key].best
        active = {k: r for k, r in rows.items() if not r.retired}
        assert set(active) == set(shipped)
        assert all(_json(r.check_figures) == shipped[k].check for k, r in active.items())
        # a retired puzzle is given neither as the next one nor as the day's
        c.execute(
            text("UPDATE puzzles SET retired = (id <> :id) WHERE owner IS NULL"), {"id": other.id}
        )
    db.engine.dispose()
    with TestClient(create_app(settings)) as fresh:
        assert fresh.get("/api/puzzles/next?difficulty=peaceful").status_code == 404
        assert fresh.get("/api/puzzles/daily").json()["id"] == other.id
    downgrade_to(database_url, "0015")  # every puzzle given again, then brought up to date
    db = Database(database_url)
    prepare_database(db, 0)  # as `magdagdon migrate` does
    with db.engine.begin() as c:
        retired = c.execute(text("SELECT id FROM puzzles WHERE retired")).scalars().all()
    db.engine.dispose()
    assert retired == [given["id"]]


def _json(value: Any) -> Any:
    """A JSON column's value as read by plain SQL (text on SQLite, parsed on PostgreSQL)."""
    return json.loads(value) if isinstance(value, str) else value
