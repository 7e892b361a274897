"""Players: created on the first visit, recognised by a hashed cookie token, named."""

from __future__ import annotations

import threading
import time

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.exc import IntegrityError

from magdagdon.names import skeleton
from magdagdon.settings import Settings
from magdagdon.store import Database, NameTaken, Store
from magdagdon.web.app import create_app
from magdagdon.web.schemas import NAME_MAX


def test_first_visit_creates_a_player_and_the_cookie_recognises_them(client: TestClient) -> None:
    r = client.get("/api/players/me")
    assert r.status_code == 200 and r.json() == {
        "name": None,
        "name_max": NAME_MAX,
        "account": False,
    }
    token = r.cookies["magdagdon_player"]
    assert len(token) >= 40
    r = client.get("/api/players/me")
    assert "set-cookie" not in r.headers  # known player: no new cookie


def test_token_is_stored_hashed(client: TestClient, settings: Settings) -> None:
    token = client.get("/api/players/me").cookies["magdagdon_player"]
    engine = create_engine(settings.database_url)
    with engine.connect() as conn:
        stored = conn.execute(text("SELECT token_hash FROM sessions")).scalars().all()
    engine.dispose()
    assert token not in stored and len(stored) == 1 and len(stored[0]) == 64


def test_unknown_or_oversized_cookie_gets_a_new_player(client: TestClient) -> None:
    client.cookies.set("magdagdon_player", "x" * 500)
    r = client.get("/api/players/me")
    assert r.status_code == 200 and r.cookies.get("magdagdon_player") not in (None, "x" * 500)


@pytest.mark.parametrize(
    ("name", "stored"),
    [
        ("Majduška", "Majduška"),
        ("  Ann   Lee ", "Ann Lee"),
        ("O'Brien-Smith_2", "O'Brien-Smith_2"),
        ("Ülle", "Ülle"),
        ("x" * 24, "x" * 24),
    ],
)
def test_valid_names(client: TestClient, name: str, stored: str) -> None:
    r = client.put("/api/players/me", json={"name": name})
    assert r.status_code == 200 and r.json() == {
        "name": stored,
        "name_max": NAME_MAX,
        "account": False,
    }
    assert client.get("/api/players/me").json() == {
        "name": stored,
        "name_max": NAME_MAX,
        "account": False,
    }


@pytest.mark.parametrize(
    "name",
    ["", "   ", "x" * 25, "<script>alert(1)</script>", "a\nb", "a\x00b", "ann@example", "😀"],
)
def test_invalid_names_are_422_and_change_nothing(client: TestClient, name: str) -> None:
    client.put("/api/players/me", json={"name": "Before"})
    r = client.put("/api/players/me", json={"name": name})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"
    assert client.get("/api/players/me").json() == {
        "name": "Before",
        "name_max": NAME_MAX,
        "account": False,
    }


def test_secure_cookie_behind_https(database_url: str) -> None:
    app = create_app(Settings(database_url=database_url, secure_cookies="always"))
    with TestClient(app) as c:
        assert "Secure" in c.get("/api/players/me").headers["set-cookie"]
    with TestClient(create_app(Settings(database_url=database_url)), base_url="https://x") as c:
        assert "Secure" in c.get("/api/players/me").headers["set-cookie"]


# --- look-alike and invisible names (Hardening III) ------------------------------------------


def other_player(client: TestClient) -> TestClient:
    """A second player on the same server (their own cookie)."""
    other = TestClient(client.app)
    other.get("/api/players/me")
    return other


@pytest.mark.parametrize(
    "name",
    [
        "\u3164",  # HANGUL FILLER alone: a blank name
        "\u3164\u3164 \u3164",
        "\u115f\u1160",
        "\uffa0",
        "Pi\u200dlot",  # a zero-width joiner inside
        "\u202ePilot",  # a right-to-left override
        "Pilot\u2066",
        "Pilot\ufe0f",  # a variation selector
        "Pi\u00adlot",  # a soft hyphen
        "\u200b",
    ],
)
def test_invisible_and_format_characters_are_refused_clearly(client: TestClient, name: str) -> None:
    client.put("/api/players/me", json={"name": "Before"})
    r = client.put("/api/players/me", json={"name": name})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"
    assert "invisible or formatting characters" in r.json()["error"]["message"]
    assert client.get("/api/players/me").json()["name"] == "Before"


def test_full_width_letters_are_kept_as_ascii(client: TestClient) -> None:
    r = client.put("/api/players/me", json={"name": "\uff30\uff49\uff4c\uff4f\uff54"})
    assert r.status_code == 200 and r.json()["name"] == "Pilot"


@pytest.mark.parametrize(
    "look_alike",
    [
        "Pilot",
        "\u0420ilot",  # Cyrillic Р
        "\uff30\uff49\uff4c\uff4f\uff54",  # full-width
        "P\u0456lot",  # Cyrillic і
        "Pi1ot",
        "  Pilot ",
    ],
)
def test_a_name_that_looks_like_another_players_is_taken(
    client: TestClient, look_alike: str
) -> None:
    assert client.put("/api/players/me", json={"name": "Pilot"}).status_code == 200
    with other_player(client) as other:
        other.put("/api/players/me", json={"name": "Mine"})
        r = other.put("/api/players/me", json={"name": look_alike})
        assert r.status_code == 409, r.text
        assert r.json()["error"]["code"] == "name_taken"
        assert "looks the same" in r.json()["error"]["message"]
        assert other.get("/api/players/me").json()["name"] == "Mine"
    assert client.get("/api/players/me").json()["name"] == "Pilot"


def test_a_player_may_rename_to_a_look_alike_of_their_own_name(client: TestClient) -> None:
    assert client.put("/api/players/me", json={"name": "Pilot"}).status_code == 200
    r = client.put("/api/players/me", json={"name": "\u0420ilot"})
    assert r.status_code == 200 and r.json()["name"] == "\u0420ilot"
    assert client.put("/api/players/me", json={"name": "Pilot"}).status_code == 200


def test_a_name_given_up_is_free_again(client: TestClient) -> None:
    client.put("/api/players/me", json={"name": "Kim"})
    with other_player(client) as other:
        assert other.put("/api/players/me", json={"name": "Kirn"}).status_code == 409
        client.put("/api/players/me", json={"name": "Ann"})
        assert other.put("/api/players/me", json={"name": "Kirn"}).status_code == 200
        assert client.put("/api/players/me", json={"name": "Kim"}).status_code == 409


def test_names_that_only_differ_in_case_are_two_names(client: TestClient) -> None:
    """The skeleton is about looks: "pilot" is told from "Pilot" at a glance."""
    client.put("/api/players/me", json={"name": "Pilot"})
    with other_player(client) as other:
        assert other.put("/api/players/me", json={"name": "pilot"}).status_code == 200


def test_the_openapi_documents_name_taken(client: TestClient) -> None:
    put = client.get("/openapi.json").json()["paths"]["/api/players/me"]["put"]
    assert "name_taken" in put["responses"]["409"]["description"]
    assert "ErrorResponse" in str(put["responses"]["409"]["content"])


def test_the_database_settles_a_race_for_look_alike_names(database_url: str) -> None:
    """Another worker's transaction has given a player the name "Pilot" but not committed
    yet: a look-alike asked for meanwhile waits on the unique index of the skeletons and,
    once the other commits, is refused with NameTaken (on SQLite the write lock makes it
    wait before it looks, and it finds the name taken)."""
    Database(database_url).migrate()
    store = Store(Database(database_url, timeout=10))
    holder = store.create_player()[0].player_id
    late = store.create_player()[0].player_id
    engine = create_engine(database_url)
    raised: list[BaseException] = []

    def rename() -> None:
        try:
            store.set_name(late, "\u0420ilot")
        except BaseException as exc:
            raised.append(exc)

    thread = threading.Thread(target=rename)
    with engine.begin() as c:
        c.execute(
            text("UPDATE players SET name = 'Pilot', name_skeleton = :key WHERE id = :id"),
            {"key": skeleton("Pilot"), "id": holder},
        )
        thread.start()
        if engine.dialect.name == "postgresql":  # the rename waits on the index's lock
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                with engine.connect() as probe:
                    waiting = probe.scalar(
                        text(
                            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = "
                            "'Lock' AND datname = current_database()"
                        )
                    )
                if waiting:
                    break
                time.sleep(0.05)
            assert waiting, "the rename did not wait for the other transaction"
        else:
            time.sleep(0.3)
    thread.join(30)
    engine.dispose()
    assert len(raised) == 1 and isinstance(raised[0], NameTaken), raised
    if database_url.startswith("postgresql"):
        assert isinstance(raised[0].__cause__, IntegrityError)  # the index said no
    assert store.player(late).name is None and store.player(holder).name == "Pilot"
