"""What guards the accounts from outside (issue 32, items 2, 5, 6 and 8): guessing codes from
many addresses neither works nor shuts code sign-in for others; NUL bytes in a path; a
deleted player's reviews gone from Redis; hosts the operator did not name; the origin's
scheme; strict booleans; the name's published pattern."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from typing import Any

import pytest
from fastapi.testclient import TestClient

from magdagdon.settings import Settings
from magdagdon.store.accounts import CODE_ALPHABET, CODE_LENGTH
from magdagdon.web.app import create_app
from magdagdon.web.caches import ReviewCache
from magdagdon.web.schemas import PUBLISHED_NAME_PATTERN

from ..conftest import TEST_ORIGIN
from ..utils.api import new_game, play_to_end


def guarded(database_url: str, **changes: Any) -> Any:
    """An app with the default rate limits."""
    return create_app(Settings(database_url=database_url, public_origin=TEST_ORIGIN, **changes))


def guess(app: Any, address: str, count: int) -> list[int]:
    """``count`` wrong codes tried from ``address``: their statuses."""
    with TestClient(app, client=(address, 50000)) as guesser:
        return [
            guesser.post(
                "/api/account/sign-in/transfer", json={"code": f"ZZZZ-ZZZZ-ZZ{n % 100:02d}"}
            ).status_code
            for n in range(count)
        ]


@pytest.mark.slow  # (make check leaves it out)
def test_a_flood_of_wrong_codes_from_many_networks_does_not_stop_a_valid_code(
    database_url: str,
) -> None:
    """300 wrong codes from 60 networks (5 each, within every address's and network's limit)
    — five times the server-wide burst there once was — then a valid code from elsewhere
    signs in."""
    app = guarded(database_url)
    with TestClient(app, client=("203.0.113.7", 1)) as phone:
        code = phone.post("/api/account/transfer-codes").json()["code"]
    for n in range(60):
        assert guess(app, f"2001:db8:{n:x}::1", 5) == [400] * 5
    with TestClient(app, client=("198.51.100.20", 1)) as laptop:
        r = laptop.post("/api/account/sign-in/transfer", json={"code": code})
        assert r.status_code == 200, r.json()


@pytest.mark.parametrize(
    ("first", "other"),
    [("2001:db8:7:1::1", "2001:db8:7:{n:x}::1"), ("192.0.2.1", "192.0.2.{n}")],
    ids=["ipv6-48", "ipv4-24"],
)
def test_guessing_from_one_network_is_limited_however_many_addresses_it_has(
    database_url: str, first: str, other: str
) -> None:
    """A network (an IPv6 /48, an IPv4 /24) gets 30 tries at once however it spreads them
    over its addresses; a fresh address of it is refused too, a neighbour network is not."""
    app = guarded(database_url)
    tries = [status for n in range(2, 8) for status in guess(app, other.format(n=n), 5)]
    assert tries == [400] * 30
    assert guess(app, first, 1) == [429]
    assert guess(app, other.format(n=99), 1) == [429]
    neighbour = "2001:db8:8::1" if ":" in first else "192.0.3.1"
    assert guess(app, neighbour, 1) == [400]


def test_the_code_keeps_guessing_hopeless() -> None:
    """docs/design.md's arithmetic: with 60 tries an hour per network, even a million
    networks for a year against a thousand live codes expect far less than one hit."""
    codes = len(CODE_ALPHABET) ** CODE_LENGTH
    assert len(set(CODE_ALPHABET)) == 32 and CODE_LENGTH == 12
    tries = 1_000_000 * 60 * 24 * 365
    assert tries * 1000 / codes < 1e-3


def test_a_nul_byte_in_a_path_is_a_404(client: TestClient) -> None:
    for method, path in [
        ("GET", "/api/games/ab%00cd"),
        ("GET", "/api/games/ab%00cd/replay"),
        ("POST", "/api/games/ab%00cd/actions"),
        ("DELETE", "/api/account/sessions/ab%00cd"),
        ("GET", "/api/games/ab%00cd/frames"),
    ]:
        r = client.request(method, path, json={"version": 0, "action": {"type": "roll"}})
        assert r.status_code == 404, (method, path, r.text)
        assert r.json()["error"]["code"] == "not_found"


def test_a_deleted_players_reviews_leave_redis(settings: Settings, redis_url: str) -> None:
    import redis

    app = create_app(settings.model_copy(update={"redis_url": redis_url}))
    kept = redis.Redis.from_url(redis_url)
    try:
        with TestClient(app) as client:  # (one event loop for the app's Redis client)
            theirs = play_to_end(client, new_game(client, "peaceful", seed=12))
            client.cookies.clear()  # another player
            done = play_to_end(client, new_game(client, "peaceful", seed=11))
            for game in (done, theirs):
                assert client.get(f"/api/games/{game['id']}/review").status_code == 200
            assert kept.exists(ReviewCache.key(done["id"]), ReviewCache.key(theirs["id"])) == 2
            assert client.delete("/api/players/me").status_code == 204
            assert not kept.exists(ReviewCache.key(done["id"]))
            assert kept.exists(ReviewCache.key(theirs["id"]))  # somebody else's stays
    finally:
        kept.close()


def test_without_a_public_origin_only_localhost_names_the_passkeys_and_the_code(
    database_url: str,
) -> None:
    app = create_app(Settings(database_url=database_url, rate_limits=False))
    with TestClient(app, base_url="http://evil.example") as evil:
        for path in (
            "/api/account/transfer-codes",
            "/api/account/passkeys/registration/options",
            "/api/account/sign-in/passkey/options",
        ):
            r = evil.post(path)
            assert r.status_code == 400 and r.json()["error"]["code"] == "unknown_host", path
        assert evil.get("/api/players/me").json()["account"] is False  # nothing was made
    for base in ("http://localhost:8000", "http://127.0.0.1:8000", "http://[::1]:8000"):
        with TestClient(app, base_url=base) as here:
            r = here.post("/api/account/transfer-codes")
            assert r.status_code == 201 and r.json()["url"].startswith(f"{base}/#transfer=")
    with TestClient(app, base_url="http://localhost:8000") as here:
        options = here.post("/api/account/passkeys/registration/options").json()
        assert options["rp"]["id"] == "localhost"


def test_a_public_origin_names_the_code_whatever_the_host_says(database_url: str) -> None:
    origins = "https://dice.example.org, http://lan-box:8000"
    app = create_app(Settings(database_url=database_url, rate_limits=False, public_origin=origins))
    with TestClient(app, base_url="http://evil.example") as evil:
        assert (
            evil.post("/api/account/transfer-codes")
            .json()["url"]
            .startswith("https://dice.example.org/#transfer=")
        )
    with TestClient(app, base_url="http://lan-box:8000") as lan:
        assert (
            lan.post("/api/account/transfer-codes")
            .json()["url"]
            .startswith("http://lan-box:8000/#transfer=")
        )
        options = lan.post("/api/account/passkeys/registration/options").json()
        assert options["rp"]["id"] == "lan-box"


def test_an_origin_of_another_scheme_is_another_site(client: TestClient) -> None:
    """Without Sec-Fetch-Site, the Origin is compared with the server's scheme and host."""
    client.get("/api/players/me")
    body = {"name": "Sama"}
    r = client.put("/api/players/me", json=body, headers={"Origin": "https://testserver"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site"
    r = client.put("/api/players/me", json=body, headers={"Origin": "http://testserver"})
    assert r.status_code == 200


def test_sign_out_takes_only_json_booleans(client: TestClient) -> None:
    client.post("/api/account/transfer-codes")
    for everywhere in (0, 1, "true", "yes", None):
        r = client.post("/api/account/sign-out", json={"everywhere": everywhere})
        assert r.status_code == 422, everywhere
    assert client.get("/api/players/me").json()["account"] is True


NAMES = {"ç": True, "Kärt": True, "Åsa Öberg": True, "Pilot_7": True, "O'Neil-Smith": True}
NOT_NAMES = {":": False, "a/b": False, "<b>": False, " ": False, "a;b": False, "x@y": False}


def test_the_published_name_pattern_says_what_the_server_takes(client: TestClient) -> None:
    """The OpenAPI document's pattern for a name, read as Python reads it and as JSON
    Schema's ECMA-262 regular expressions read it (node, where it is installed), takes every
    name the server takes and refuses the ASCII it refuses."""
    published = client.get("/openapi.json").json()["components"]["schemas"]["NameUpdate"]
    pattern = published["properties"]["name"]["pattern"]
    assert pattern == PUBLISHED_NAME_PATTERN
    cases = {**NAMES, **NOT_NAMES}
    for name, taken in cases.items():
        r = client.put("/api/players/me", json={"name": name})
        assert (r.status_code == 200) is taken, (name, r.json())
        assert bool(re.search(pattern, name)) is taken, name
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the ECMA-262 reading is not checked")
    script = (
        "const [p, names] = JSON.parse(process.argv[1]);"
        "const re = new RegExp(p, 'u');"
        "console.log(JSON.stringify(names.map((n) => re.test(n))));"
    )
    names = list(cases)
    out = subprocess.run(
        [node, "-e", script, json.dumps([pattern, names])],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    assert dict(zip(names, json.loads(out), strict=True)) == cases
