"""What ending a session ends, and what a stolen cookie can no longer do (issue 32, item 1):
the transfer codes it minted, its passkey ceremonies under way, on every worker at once; a
passkey added to an account that has one only after a passkey sign-in; a cloned
authenticator's second assertion refused; a user handle naming another account refused."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from magdagdon.settings import Settings
from magdagdon.web.app import create_app
from magdagdon.web.deps import COOKIE

from ..conftest import TEST_ORIGIN
from ..utils.api import Client, new_game, play_to_end
from ..utils.authenticator import Authenticator
from ..utils.locks import table_held


@pytest.fixture
def app(settings: Settings) -> Any:
    return create_app(settings)


@pytest.fixture
def owner_and_thief(app: Any) -> Iterator[tuple[TestClient, TestClient, Authenticator]]:
    """An account with a passkey (so it may sign out everywhere), and a second client holding
    a copy of its cookie (stolen)."""
    with TestClient(app) as owner, TestClient(app) as thief:
        owner.put("/api/players/me", json={"name": "Owner"})
        key = Authenticator(TEST_ORIGIN)
        register(owner, key)
        thief.cookies.set(COOKIE, owner.cookies[COOKIE])
        yield owner, thief, key


def register(client: Client, key: Authenticator) -> Any:
    options = client.post("/api/account/passkeys/registration/options")
    assert options.status_code == 200, options.json()
    r = client.post(
        "/api/account/passkeys/registration/verification",
        json={"credential": key.create(options.json())},
    )
    assert r.status_code == 201, r.json()
    return r.json()


def passkey_sign_in(client: Client, key: Authenticator) -> Any:
    options = client.post("/api/account/sign-in/passkey/options").json()
    return client.post(
        "/api/account/sign-in/passkey/verification", json={"credential": key.get(options)}
    )


def redeem(client: Client, code: str) -> Any:
    return client.post("/api/account/sign-in/transfer", json={"code": code})


def test_codes_a_stolen_cookie_minted_end_with_sign_out_everywhere(
    owner_and_thief: tuple[TestClient, TestClient, Authenticator], app: Any
) -> None:
    owner, thief, _ = owner_and_thief
    minted = [thief.post("/api/account/transfer-codes").json()["code"] for _ in range(3)]
    assert (
        owner.post(
            "/api/account/sign-out", json={"everywhere": True, "keep_new_passkey": True}
        ).status_code
        == 204
    )
    with TestClient(app) as elsewhere:
        for code in minted:
            r = redeem(elsewhere, code)
            assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_code"
        assert elsewhere.get("/api/players/me").json()["account"] is False
    r = thief.get("/api/players/me")  # the thief is a stranger, and is told so
    assert r.json()["name"] is None and r.headers["x-magdagdon-session"] == "ended"


def test_a_code_ends_with_the_session_that_made_it_and_no_other(app: Any) -> None:
    with TestClient(app) as phone, TestClient(app) as laptop, TestClient(app) as tablet:
        code = phone.post("/api/account/transfer-codes").json()["code"]
        assert redeem(laptop, code).status_code == 200
        from_phone = phone.post("/api/account/transfer-codes").json()["code"]
        from_laptop = laptop.post("/api/account/transfer-codes").json()["code"]
        assert laptop.post("/api/account/sign-out").status_code == 204  # the phone stays
        assert redeem(tablet, from_laptop).json()["error"]["code"] == "invalid_code"
        assert redeem(tablet, from_phone).status_code == 200  # the phone's code lives on
        assert "x-magdagdon-session" not in tablet.get("/api/players/me").headers


def test_a_stolen_cookie_cannot_add_a_passkey_to_an_account_that_has_one(
    owner_and_thief: tuple[TestClient, TestClient, Authenticator],
) -> None:
    owner, thief, key = owner_and_thief
    r = thief.post("/api/account/passkeys/registration/options")
    assert r.status_code == 403 and r.json()["error"]["code"] == "passkey_proof_needed"
    # nor through a sign-in with a code it minted
    code = thief.post("/api/account/transfer-codes").json()["code"]
    with TestClient(thief.app) as second:
        assert redeem(second, code).status_code == 200
        r = second.post("/api/account/passkeys/registration/options")
        assert r.status_code == 403
    # the owner, signed in with the passkey just now, adds a second one
    assert passkey_sign_in(owner, key).status_code == 200
    added = register(owner, Authenticator(TEST_ORIGIN))
    listed = owner.get("/api/account/passkeys").json()
    assert [p["id"] for p in listed][-1] == added["id"] and len(listed) == 2
    assert added["label"] and added["created_at"]  # which device, and when


def test_a_passkey_ceremony_is_answered_only_by_the_session_that_asked_and_ends_with_it(
    app: Any,
) -> None:
    with TestClient(app) as phone, TestClient(app) as laptop:
        code = phone.post("/api/account/transfer-codes").json()["code"]
        assert redeem(laptop, code).status_code == 200
        options = phone.post("/api/account/passkeys/registration/options").json()
        answer = Authenticator(TEST_ORIGIN).create(options)
        # another session of the same account cannot answer the phone's ceremony
        r = laptop.post(
            "/api/account/passkeys/registration/verification", json={"credential": answer}
        )
        assert r.status_code == 400 and r.json()["error"]["code"] == "passkey_refused"
        # and a ceremony under way ends with its session
        options = phone.post("/api/account/passkeys/registration/options").json()
        answer = Authenticator(TEST_ORIGIN).create(options)
        sessions = laptop.get("/api/account/sessions").json()
        (phones,) = [s["id"] for s in sessions if not s["current"]]
        assert laptop.delete(f"/api/account/sessions/{phones}").status_code == 204
        with TestClient(app, cookies=dict(phone.cookies)) as again:
            r = again.post(
                "/api/account/passkeys/registration/verification", json={"credential": answer}
            )
            assert r.status_code == 400
        assert laptop.get("/api/account/passkeys").json() == []


def test_two_assertions_with_the_same_count_at_once_sign_in_once(
    owner_and_thief: tuple[TestClient, TestClient, Authenticator], app: Any, database_url: str
) -> None:
    """A cloned authenticator: both copies answer with the same signature counter. Sent at
    the same moment, one signs in and the other is refused (the counter advances atomically)."""
    _, _, key = owner_and_thief
    with TestClient(app) as one, TestClient(app) as two:
        options = [c.post("/api/account/sign-in/passkey/options").json() for c in (one, two)]
        first = key.get(options[0])
        key.passkeys[-1].sign_count -= 1  # the clone's counter is where the original's was
        second = key.get(options[1])
        start = threading.Barrier(2)
        answers: list[int] = []

        def go(client: TestClient, credential: dict[str, Any]) -> None:
            start.wait()
            r = client.post(
                "/api/account/sign-in/passkey/verification", json={"credential": credential}
            )
            answers.append(r.status_code)

        threads = [
            threading.Thread(target=go, args=(c, cred)) for c, cred in ((one, first), (two, second))
        ]
        # Writes wait meanwhile (reads do not): both answers are read and verified against
        # the same stored count before either can store its own.
        with table_held(database_url, "passkeys", "EXCLUSIVE"):
            for t in threads:
                t.start()
            time.sleep(1.0)
        for t in threads:
            t.join()
        assert sorted(answers) == [200, 400]


def test_an_assertion_whose_user_handle_names_another_account_is_refused(
    owner_and_thief: tuple[TestClient, TestClient, Authenticator], app: Any
) -> None:
    _, _, key = owner_and_thief
    with TestClient(app) as other, TestClient(app) as device:
        other_key = Authenticator(TEST_ORIGIN)
        register(other, other_key)
        options = device.post("/api/account/sign-in/passkey/options").json()
        forged = key.passkeys[-1]
        forged.user_handle = other_key.passkeys[-1].user_handle  # "I am the other account"
        r = device.post(
            "/api/account/sign-in/passkey/verification",
            json={"credential": key.get(options, forged)},
        )
        assert r.status_code == 400 and r.json()["error"]["code"] == "passkey_refused"
        assert device.get("/api/players/me").json()["account"] is False


@pytest.mark.process
def test_another_worker_refuses_an_ended_session_at_once(database_url: str) -> None:
    """Two real server processes on one database: a session signed out (everywhere) or a
    player deleted through one is a stranger's on the other at its very next request; the
    code it tries to mint there belongs to a new, empty player, and its writes are no 500."""
    from ..utils.server import server_process

    with (
        server_process(database_url) as one,
        server_process(database_url) as two,
        httpx2.Client(base_url=one.url) as owner,
        httpx2.Client(base_url=two.url) as thief,
    ):
        owner.put("/api/players/me", json={"name": "Anneli"})
        play_to_end(owner, new_game(owner, "peaceful", seed=5))
        key = Authenticator(one.url.replace("127.0.0.1", "localhost"))
        owner.headers["host"] = key.origin.split("://", 1)[1]  # passkeys: localhost only
        register(owner, key)
        thief.cookies.set(COOKIE, owner.cookies[COOKIE])
        assert thief.get("/api/players/me").json()["name"] == "Anneli"  # read, remembered
        assert (
            owner.post(
                "/api/account/sign-out", json={"everywhere": True, "keep_new_passkey": True}
            ).status_code
            == 204
        )
        r = thief.get("/api/players/me")
        assert r.json() == {"name": None, "name_max": 24, "account": False}
        assert r.headers["x-magdagdon-session"] == "ended"

        # a deleted player's cookie on the other worker: a stranger's, writes answer
        owner.cookies.clear()
        assert passkey_sign_in(owner, key).status_code == 200
        thief.cookies.clear()
        thief.cookies.set(COOKIE, owner.cookies[COOKIE])
        assert thief.get("/api/players/me").json()["name"] == "Anneli"
        assert owner.delete("/api/players/me").status_code == 204
        for r in (
            thief.post("/api/games", json={"difficulty": "peaceful"}),
            thief.post("/api/account/transfer-codes"),
            thief.put("/api/players/me", json={"name": "Anneli"}),
        ):
            assert r.status_code < 500, r.text
        assert (
            thief.get("/api/players/me/stats").json()["difficulties"]["peaceful"]["finished"] == 0
        )


def test_nothing_is_made_for_a_session_that_ended_meanwhile(database_url: str) -> None:
    """A request read its session, then a sign-out elsewhere ended it before the request made
    its code or its passkey challenge: the foreign key refuses both (SessionEnded, 401
    signed_out), nothing is stored."""
    from magdagdon.store import Database, Store
    from magdagdon.store.errors import SessionEnded

    store = Store(Database(database_url))
    store.db.migrate()
    session, _ = store.create_player()
    assert store.end_sessions(session.player_id, None) == [session.session_id]
    with pytest.raises(SessionEnded):
        store.create_transfer_code(session)
    with pytest.raises(SessionEnded):
        store.save_challenge("a-challenge", "register", session)
    with store.db.transaction() as c:
        for table in ("transfer_codes", "webauthn_challenges"):
            assert c.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar() == 0
    store.db.dispose()


def test_a_cookie_thief_cannot_take_an_account_that_has_no_passkey(app: Any) -> None:
    """The account was saved with a transfer code (no passkey). A thief with a copy of the
    owner's cookie adds a passkey and signs in with it elsewhere; the owner is told, keeps a
    way back whatever they press, and undoes it."""
    with (
        TestClient(app) as owner,
        TestClient(app) as thief,
        TestClient(app) as thiefs_own,
    ):
        assert owner.post("/api/account/transfer-codes").status_code == 201  # an account
        thief.cookies.set(COOKIE, owner.cookies[COOKIE])
        key = Authenticator(TEST_ORIGIN)
        added = register(thief, key)  # the cookie is the only proof there is: 201
        assert added["probation_until"] and added["added_here"]
        assert passkey_sign_in(thiefs_own, key).status_code == 200
        # every device of the account is told; the owner's says it was not added elsewhere
        told = owner.get("/api/players/me").json()["new_passkey"]  # (the same session: told)
        assert told["id"] == added["id"]
        listed = owner.get("/api/account/passkeys").json()
        assert listed[0]["probation_until"] == added["probation_until"]
        told = thiefs_own.get("/api/players/me").json()["new_passkey"]
        assert told["id"] == added["id"] and told["label"] == added["label"]
        # signed in with it, the thief adds a second at once: on probation just as long
        second = register(thiefs_own, Authenticator(TEST_ORIGIN))
        assert second["probation_until"] == added["probation_until"]
        # the thief's own session may not sign out the devices signed in before the passkey
        sessions = thiefs_own.get("/api/account/sessions").json()
        (owners,) = [s for s in sessions if not s["current"]]
        r = thiefs_own.delete(f"/api/account/sessions/{owners['id']}?keep_new_passkey=true")
        assert r.status_code == 403 and r.json()["error"]["code"] == "passkey_on_probation"
        r = thiefs_own.post(
            "/api/account/sign-out", json={"everywhere": True, "keep_new_passkey": True}
        )
        assert r.status_code == 403
        # the owner signs out everywhere, unaware: asked first, nothing is ended
        r = owner.post("/api/account/sign-out", json={"everywhere": True})
        assert r.status_code == 409 and r.json()["error"]["code"] == "confirm_new_passkey"
        assert r.json()["passkey"]["label"] == added["label"]
        assert owner.get("/api/players/me").json()["account"] is True
        # not theirs: the owner removes both, and the thief's sessions signed in with the
        # first end with it
        assert owner.delete(f"/api/account/passkeys/{second['id']}").status_code == 204
        assert owner.delete(f"/api/account/passkeys/{added['id']}?last=true").status_code == 204
        assert thiefs_own.get("/api/players/me").json()["account"] is False
        assert passkey_sign_in(TestClient(app), key).status_code != 200
        r = owner.post("/api/account/sign-out", json={"everywhere": True})
        assert r.status_code == 409 and r.json()["error"]["code"] == "no_way_back"
        assert owner.get("/api/players/me").json()["account"] is True  # still the owner's


def test_a_first_passkey_is_trusted_after_a_day(app: Any) -> None:
    with TestClient(app) as owner:
        assert owner.post("/api/account/transfer-codes").status_code == 201
        added = register(owner, Authenticator(TEST_ORIGIN))
        (exported,) = owner.get("/api/players/me/export").json()["passkeys"]
        assert exported["id"] == added["id"] and exported["probation_until"]  # (the export)
        r = owner.post("/api/account/sign-out", json={"everywhere": True})
        assert r.status_code == 409 and r.json()["error"]["code"] == "confirm_new_passkey"
        with app.state.store.db.engine.begin() as c:  # a day later
            c.execute(text("UPDATE passkeys SET probation_until = created_at"))
        assert owner.get("/api/account/passkeys").json()[0]["probation_until"] is None
        assert (
            owner.post(
                "/api/account/sign-out", json={"everywhere": True, "keep_new_passkey": True}
            ).status_code
            == 204
        )
    del added
