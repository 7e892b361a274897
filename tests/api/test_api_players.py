"""Players: created on the first visit, recognised by a hashed cookie token, named."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from magdagdon.settings import Settings
from magdagdon.web.app import create_app
from magdagdon.web.schemas import NAME_MAX


def test_first_visit_creates_a_player_and_the_cookie_recognises_them(client: TestClient) -> None:
    r = client.get("/api/players/me")
    assert r.status_code == 200 and r.json() == {"name": None, "name_max": NAME_MAX}
    token = r.cookies["magdagdon_player"]
    assert len(token) >= 40
    r = client.get("/api/players/me")
    assert "set-cookie" not in r.headers  # known player: no new cookie


def test_token_is_stored_hashed(client: TestClient, settings: Settings) -> None:
    token = client.get("/api/players/me").cookies["magdagdon_player"]
    engine = create_engine(settings.database_url)
    with engine.connect() as conn:
        stored = conn.execute(text("SELECT token_hash FROM players")).scalars().all()
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
    assert r.status_code == 200 and r.json() == {"name": stored, "name_max": NAME_MAX}
    assert client.get("/api/players/me").json() == {"name": stored, "name_max": NAME_MAX}


@pytest.mark.parametrize(
    "name",
    ["", "   ", "x" * 25, "<script>alert(1)</script>", "a\nb", "a\x00b", "ann@example", "😀"],
)
def test_invalid_names_are_422_and_change_nothing(client: TestClient, name: str) -> None:
    client.put("/api/players/me", json={"name": "Before"})
    r = client.put("/api/players/me", json={"name": name})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"
    assert client.get("/api/players/me").json() == {"name": "Before", "name_max": NAME_MAX}


def test_secure_cookie_behind_https(database_url: str) -> None:
    app = create_app(Settings(database_url=database_url, secure_cookies="always"))
    with TestClient(app) as c:
        assert "Secure" in c.get("/api/players/me").headers["set-cookie"]
    with TestClient(create_app(Settings(database_url=database_url)), base_url="https://x") as c:
        assert "Secure" in c.get("/api/players/me").headers["set-cookie"]


# --- invisible characters and NFKC (Hardening III) ------------------------------------------


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
