"""Accounts through the HTTP API: transfer codes, passkeys, the merge of a device's games on
signing in, sessions, the player's data (export, deletion) and the ranked daily leaderboard."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, inspect, text

from magdagdon.settings import Settings
from magdagdon.store.models import utcnow
from magdagdon.web.app import create_app
from magdagdon.web.deps import COOKIE, HOST_COOKIE, TEST_DATE_HEADER

from ..conftest import TEST_ORIGIN
from ..utils.api import Client, ViewPlayer, act, new_game, play_through, play_to_end, play_turn
from ..utils.authenticator import Authenticator

DAY = "2026-12-05"


@pytest.fixture
def app(settings: Settings) -> Any:
    """One server process on the test's database."""
    return create_app(settings)


@pytest.fixture
def devices(app: Any) -> Iterator[tuple[TestClient, TestClient]]:
    """Two devices (their own cookies) living on :data:`DAY`."""
    with (
        TestClient(app, headers={TEST_DATE_HEADER: DAY}) as phone,
        TestClient(app, headers={TEST_DATE_HEADER: DAY}) as laptop,
    ):
        yield phone, laptop


def code_for(client: Client) -> str:
    r = client.post("/api/account/transfer-codes")
    assert r.status_code == 201, r.json()
    return str(r.json()["code"])


def sign_in(client: Client, code: str) -> Any:
    r = client.post("/api/account/sign-in/transfer", json={"code": code})
    assert r.status_code == 200, r.json()
    return r.json()


def daily(client: Client, difficulty: str = "peaceful") -> Any:
    r = client.post(f"/api/daily/{difficulty}")
    assert r.status_code == 201, r.json()
    return play_to_end(client, r.json())


def sign_ins_at_once(clients: list[Client], codes: list[str]) -> list[int]:
    """Each client signs in with its code, all at the same moment; the answers' statuses."""
    answers: list[int] = []
    start = threading.Barrier(len(clients))

    def go(client: Client, code: str) -> None:
        start.wait()
        r = client.post("/api/account/sign-in/transfer", json={"code": code})
        answers.append(r.status_code)

    threads = [
        threading.Thread(target=go, args=(c, code)) for c, code in zip(clients, codes, strict=True)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def game_ids(client: Client) -> set[str]:
    r = client.get("/api/players/me/export")
    assert r.status_code == 200
    return {g["id"] for g in r.json()["games"]}


def test_a_transfer_code_moves_every_game_stat_and_streak_to_the_new_device(
    devices: tuple[TestClient, TestClient],
) -> None:
    phone, laptop = devices
    phone.put("/api/players/me", json={"name": "Mari"})
    done = play_to_end(phone, new_game(phone, "peaceful", seed=1))
    phone_daily = daily(phone, "survival")
    # the laptop played on its own before: its games come along
    laptop_game = play_to_end(laptop, new_game(laptop, "nightmare", seed=2))
    laptop_daily = daily(laptop, "peaceful")
    before = game_ids(phone) | game_ids(laptop)
    old_cookie = laptop.cookies[COOKIE]

    r = phone.post("/api/account/transfer-codes")
    assert r.status_code == 201
    created = r.json()
    assert len(created["code"]) == 14 and created["code"][4] == created["code"][9] == "-"
    assert created["url"].endswith(f"/#transfer={created['code']}")
    qr = created["qr"]
    assert len(qr) >= 21 and all(len(row) == len(qr) and set(row) <= {"0", "1"} for row in qr)
    assert qr[0].startswith("1111111")  # a finder pattern in the corner
    assert phone.get("/api/players/me").json()["account"] is True

    signed = sign_in(laptop, created["code"].lower().replace("-", " "))  # as typed
    assert signed["name"] == "Mari" and signed["account"] is True
    assert signed["merged"]["games"] == 2 and signed["merged"]["dailies"] == []
    assert laptop.cookies[COOKIE] != old_cookie  # a new session, never the old cookie
    assert game_ids(laptop) == game_ids(phone) == before
    assert before >= {done["id"], phone_daily["id"], laptop_game["id"], laptop_daily["id"]}
    stats = phone.get("/api/players/me/stats").json()
    assert stats == laptop.get("/api/players/me/stats").json()
    assert stats["difficulties"]["nightmare"]["finished"] == 1
    assert stats["daily"]["played"] == 2 and stats["daily"]["streak"] == 1
    with TestClient(laptop.app, cookies={COOKIE: old_cookie}) as stale:
        assert stale.get("/api/players/me").json() == {
            "name": None,
            "name_max": 24,
            "account": False,
        }


def test_a_daily_played_on_both_devices_keeps_the_first_finished(
    devices: tuple[TestClient, TestClient],
) -> None:
    phone, laptop = devices
    code = code_for(phone)
    laptop_view = daily(laptop)  # finished first
    phone_view = daily(phone)
    signed = sign_in(laptop, code)
    (clash,) = signed["merged"]["dailies"]
    assert clash["kept_game_id"] == laptop_view["id"]
    assert clash["dropped_game_id"] == phone_view["id"]
    assert (clash["date"], clash["difficulty"]) == (DAY, "peaceful")
    board = phone.get(f"/api/daily/{DAY}/peaceful/leaderboard").json()
    assert [row["game_id"] for row in board["rows"]] == [laptop_view["id"]]
    assert board["players"] == 1 and board["me"]["score"] == laptop_view["score"]["total"]
    today = phone.get("/api/daily").json()
    assert {g["difficulty"]: g["game_id"] for g in today["games"]}["peaceful"] == laptop_view["id"]
    # the dropped game is kept: it is in the export, marked, and still replayable after the day
    exported = {g["id"]: g for g in phone.get("/api/players/me/export").json()["games"]}
    assert exported[phone_view["id"]]["left_on_sign_in"] is True


def test_an_unfinished_game_on_each_device_leaves_the_one_played_last(
    devices: tuple[TestClient, TestClient],
) -> None:
    phone, laptop = devices
    older = act(phone, new_game(phone, "peaceful", seed=3), {"type": "roll"})
    newer = act(laptop, new_game(laptop, "peaceful", seed=4), {"type": "roll"})
    signed = sign_in(laptop, code_for(phone))
    assert signed["merged"]["abandoned_game_id"] == older["id"]
    current = laptop.get("/api/games/current").json()
    assert current["id"] == newer["id"]
    play_turn(laptop, current)  # it goes on


def test_transfer_codes_are_single_use_and_expire(
    devices: tuple[TestClient, TestClient], settings: Settings
) -> None:
    phone, laptop = devices
    code = code_for(phone)
    sign_in(laptop, code)
    with TestClient(phone.app) as third:
        r = third.post("/api/account/sign-in/transfer", json={"code": code})
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_code"
        r = third.post("/api/account/sign-in/transfer", json={"code": "ABCD-EFGH"})
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_code"
        late = code_for(phone)
        engine = create_engine(settings.database_url)
        with engine.begin() as c:
            c.execute(
                text("UPDATE transfer_codes SET expires_at = :t"),
                {"t": utcnow() - timedelta(seconds=1)},
            )
        engine.dispose()
        r = third.post("/api/account/sign-in/transfer", json={"code": late})
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_code"
        assert third.get("/api/players/me").json()["account"] is False


def test_guessing_codes_is_limited_per_address(database_url: str) -> None:
    settings = Settings(database_url=database_url, public_origin=TEST_ORIGIN)  # default limits
    with TestClient(create_app(settings)) as phone, TestClient(phone.app) as guesser:
        code = code_for(phone)
        answers = [
            guesser.post("/api/account/sign-in/transfer", json={"code": f"ZZZZ-ZZ{n:02d}"})
            for n in range(11)
        ]
        assert [r.status_code for r in answers[:10]] == [400] * 10
        assert answers[10].status_code == 429 and int(answers[10].headers["Retry-After"]) > 0
        r = guesser.post("/api/account/sign-in/transfer", json={"code": code})
        assert r.status_code == 429  # even the right one, until the wait is over
        assert guesser.get("/api/players/me").json()["account"] is False


def test_making_codes_is_limited_per_account(database_url: str) -> None:
    settings = Settings(database_url=database_url, public_origin=TEST_ORIGIN)
    with TestClient(create_app(settings)) as phone:
        codes = [phone.post("/api/account/transfer-codes").status_code for _ in range(6)]
        assert codes == [201] * 5 + [429]


def test_sessions_are_listed_ended_one_by_one_or_everywhere(
    devices: tuple[TestClient, TestClient],
) -> None:
    phone, laptop = devices
    r = phone.post("/api/account/sign-out")
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_an_account"
    sign_in(laptop, code_for(phone))
    listed = phone.get("/api/account/sessions").json()
    assert len(listed) == 2 and sum(s["current"] for s in listed) == 1
    assert {s["method"] for s in listed} == {"visit", "transfer"}
    (laptop_session,) = [s for s in listed if not s["current"]]
    assert phone.delete(f"/api/account/sessions/{laptop_session['id']}").status_code == 204
    assert laptop.get("/api/players/me").json()["account"] is False  # a stranger now
    assert phone.delete(f"/api/account/sessions/{laptop_session['id']}").status_code == 404
    # the last device of an account without a passkey: no way back, so not signed out
    for r in (
        phone.post("/api/account/sign-out"),
        phone.post("/api/account/sign-out", json={"everywhere": True}),
        phone.delete(f"/api/account/sessions/{next(s['id'] for s in listed if s['current'])}"),
    ):
        assert r.status_code == 409 and r.json()["error"]["code"] == "no_way_back"
    assert phone.get("/api/players/me").json()["account"] is True
    laptop.cookies.clear()
    sign_in(laptop, code_for(phone))
    assert phone.post("/api/account/sign-out").status_code == 204  # the laptop stays
    assert laptop.post("/api/account/sign-out").status_code == 409  # now the last one
    key = Authenticator("http://testserver")
    options = laptop.post("/api/account/passkeys/registration/options").json()
    laptop.post(
        "/api/account/passkeys/registration/verification", json={"credential": key.create(options)}
    )
    assert (
        laptop.post(
            "/api/account/sign-out", json={"everywhere": True, "keep_new_passkey": True}
        ).status_code
        == 204
    )
    assert phone.get("/api/players/me").json()["account"] is False
    assert laptop.get("/api/players/me").json()["account"] is False


def test_passkeys_register_sign_in_merge_and_the_last_is_kept_unless_asked(
    devices: tuple[TestClient, TestClient],
) -> None:
    phone, laptop = devices
    key = Authenticator("http://testserver")
    phone.put("/api/players/me", json={"name": "Kai"})
    options = phone.post("/api/account/passkeys/registration/options").json()
    assert options["authenticatorSelection"]["residentKey"] == "required"
    r = phone.post(
        "/api/account/passkeys/registration/verification",
        json={"credential": key.create(options)},
    )
    assert r.status_code == 201, r.json()
    passkey = r.json()
    assert phone.get("/api/players/me").json()["account"] is True
    assert [p["id"] for p in phone.get("/api/account/passkeys").json()] == [passkey["id"]]

    laptop_game = play_to_end(laptop, new_game(laptop, "survival", seed=5))
    options = laptop.post("/api/account/sign-in/passkey/options").json()
    r = laptop.post(
        "/api/account/sign-in/passkey/verification", json={"credential": key.get(options)}
    )
    assert r.status_code == 200, r.json()
    assert r.json()["name"] == "Kai" and r.json()["merged"]["games"] == 1
    assert laptop_game["id"] in game_ids(phone)

    # an answer to a used challenge is refused, and so is a tampered one
    replayed = laptop.post(
        "/api/account/sign-in/passkey/verification", json={"credential": key.get(options)}
    )
    assert replayed.status_code == 400 and replayed.json()["error"]["code"] == "passkey_refused"
    options = laptop.post("/api/account/sign-in/passkey/options").json()
    forged = key.get(options)
    forged["response"]["signature"] = forged["response"]["signature"][:-4] + "AAAA"
    r = laptop.post("/api/account/sign-in/passkey/verification", json={"credential": forged})
    assert r.status_code == 400

    r = phone.delete(f"/api/account/passkeys/{passkey['id']}")
    assert r.status_code == 409 and r.json()["error"]["code"] == "last_passkey"
    assert phone.delete(f"/api/account/passkeys/{passkey['id']}?last=true").status_code == 204
    options = laptop.post("/api/account/sign-in/passkey/options").json()
    r = laptop.post(
        "/api/account/sign-in/passkey/verification", json={"credential": key.get(options)}
    )
    assert r.status_code == 400  # a removed passkey signs in nowhere


def test_a_passkey_made_for_another_site_is_refused(devices: tuple[TestClient, TestClient]) -> None:
    phone, _ = devices
    options = phone.post("/api/account/passkeys/registration/options").json()
    elsewhere = Authenticator("http://testserver")
    answer = elsewhere.create(options)
    answer["response"]["clientDataJSON"] = (
        Authenticator("http://evil.example")
        ._client_data("webauthn.create", options["challenge"])
        .hex()
    )  # not even base64url
    r = phone.post("/api/account/passkeys/registration/verification", json={"credential": answer})
    assert r.status_code == 400 and phone.get("/api/account/passkeys").json() == []


def test_the_export_holds_the_players_data_and_nobody_elses(
    devices: tuple[TestClient, TestClient],
) -> None:
    phone, laptop = devices
    phone.put("/api/players/me", json={"name": "Liis"})
    over = play_to_end(phone, new_game(phone, "peaceful", seed=6))
    going = act(phone, new_game(phone, "nightmare", seed=7), {"type": "roll"})
    todays = daily(phone)
    other = play_to_end(laptop, new_game(laptop, "peaceful", seed=8))
    r = phone.get("/api/players/me/export")
    assert r.status_code == 200
    assert "attachment" in r.headers["content-disposition"]
    data = r.json()
    assert set(data) >= {"player", "games", "stats", "passkeys", "sessions"}
    assert data["player"]["name"] == "Liis"
    games = {g["id"]: g for g in data["games"]}
    assert set(games) == {over["id"], going["id"], todays["id"]}
    assert other["id"] not in r.text
    assert games[over["id"]]["seed"] is not None and games[over["id"]]["actions"]
    assert games[going["id"]]["seed"] is None and games[going["id"]]["actions"]
    assert games[todays["id"]]["seed"] is None  # the day's dice stay secret until midnight
    replay = phone.get(f"/api/games/{over['id']}/replay").json()
    assert games[over["id"]]["actions"] == replay["actions"]
    assert games[over["id"]]["seed"] == replay["seed"]
    assert data["stats"]["difficulties"]["peaceful"]["finished"] == 2  # a daily counts too
    assert len(data["sessions"]) == 1


def test_deleting_a_player_leaves_no_row_of_them(
    devices: tuple[TestClient, TestClient], settings: Settings
) -> None:
    phone, laptop = devices
    phone.put("/api/players/me", json={"name": "Gone"})
    play_to_end(phone, new_game(phone, "peaceful", seed=9))
    act(phone, new_game(phone, "nightmare", seed=10), {"type": "roll"})
    kept = daily(laptop)
    dropped = daily(phone)
    sign_in(laptop, code_for(phone))  # leaves a daily behind, under the account
    key = Authenticator("http://testserver")
    options = phone.post("/api/account/passkeys/registration/options").json()
    phone.post(
        "/api/account/passkeys/registration/verification", json={"credential": key.create(options)}
    )
    old = phone.cookies[COOKIE]
    engine = create_engine(settings.database_url)
    with engine.connect() as c:
        (me,) = c.execute(text("SELECT id FROM players WHERE name = 'Gone'")).scalars().all()
    assert phone.delete("/api/players/me").status_code == 204
    with engine.connect() as c:
        tables = inspect(c).get_table_names()
        for table in tables:
            columns = {col["name"] for col in inspect(c).get_columns(table)}
            for column in {"player_id", "merged_into"} & columns:
                left = c.execute(
                    text(f"SELECT COUNT(*) FROM {table} WHERE {column} IS NOT NULL")
                ).scalar()
                assert left == 0, (table, column)
        assert c.execute(text("SELECT COUNT(*) FROM players")).scalar() == 0
        assert c.execute(text("SELECT COUNT(*) FROM games")).scalar() == 0
        assert c.execute(text("SELECT COALESCE(SUM(players), 0) FROM daily_scores")).scalar() == 0
        assert me is not None
    engine.dispose()
    with TestClient(phone.app, cookies={COOKIE: old}, headers={TEST_DATE_HEADER: DAY}) as stale:
        assert stale.get("/api/players/me").json()["account"] is False
        board = stale.get(f"/api/daily/{DAY}/peaceful/leaderboard").json()
        assert board["rows"] == [] and board["players"] == 0
    assert kept["id"] != dropped["id"]
    assert laptop.get("/api/players/me").json()["account"] is False  # signed out everywhere


def test_only_accounts_are_ranked_by_default(database_url: str) -> None:
    settings = Settings(
        database_url=database_url,
        allow_test_seeds=True,
        rate_limits=False,
        public_origin=TEST_ORIGIN,
    )
    app = create_app(settings)
    with (
        TestClient(app, headers={TEST_DATE_HEADER: DAY}) as member,
        TestClient(app, headers={TEST_DATE_HEADER: DAY}) as guest,
        TestClient(app, headers={TEST_DATE_HEADER: DAY}) as late,
    ):
        code_for(member)  # an account before the daily
        ranked = daily(member)
        anonymous = daily(guest)
        unranked = daily(late)
        code_for(late)  # an account made after playing: that daily stays unranked
        board = guest.get(f"/api/daily/{DAY}/peaceful/leaderboard").json()
        assert board["accounts_only"] is True
        assert [row["game_id"] for row in board["rows"]] == [ranked["id"]]
        assert board["players"] == 1
        assert (
            board["me"]["ranked"] is False and board["me"]["score"] == anonymous["score"]["total"]
        )
        better = int(ranked["score"]["total"] > anonymous["score"]["total"])
        assert board["me"]["rank"] == 1 + better
        mine = member.get(f"/api/daily/{DAY}/peaceful/leaderboard").json()["me"]
        assert mine["ranked"] is True and mine["rank"] == 1
        assert late.get(f"/api/daily/{DAY}/peaceful/leaderboard").json()["me"]["ranked"] is False
        assert unranked["id"] != ranked["id"]


def test_two_workers_racing_a_merge_lose_nothing(settings: Settings) -> None:
    """Two server processes (two apps) sign the same device in at once, with two codes: every
    game ends up in the account once; the device's player is gone."""
    one, two = create_app(settings), create_app(settings)
    with (
        TestClient(one) as account,
        TestClient(one) as device,
        TestClient(two) as device_again,
    ):
        for seed in range(3):
            play_to_end(device, new_game(device, "peaceful", seed=20 + seed))
        device_again.cookies.set(COOKIE, device.cookies[COOKIE])  # the same browser
        act(device, new_game(device, "peaceful", seed=30), {"type": "roll"})
        play_to_end(account, new_game(account, "nightmare", seed=31))
        expected = game_ids(device) | game_ids(account)
        codes = [code_for(account), code_for(account)]
        assert sign_ins_at_once([device, device_again], codes) == [200, 200]
        assert game_ids(account) == expected
        engine = create_engine(settings.database_url)
        with engine.connect() as c:
            assert c.execute(text("SELECT COUNT(*) FROM players")).scalar() == 1
            assert c.execute(text("SELECT COUNT(*) FROM games")).scalar() == len(expected)
        engine.dispose()


def test_head_on_the_new_answers_changes_nothing(client: TestClient) -> None:
    """HEAD is a GET that changes nothing: no player is made, no cookie is sent."""
    for path in ("/api/players/me/export", "/api/account/passkeys", "/api/account/sessions"):
        r = client.head(path)
        assert r.status_code == 200 and r.content == b"", path
        assert "set-cookie" not in r.headers, path


def test_a_game_ending_while_a_merge_holds_its_player_waits_instead_of_deadlocking(
    settings: Settings,
) -> None:
    """PostgreSQL: a sign-in's merge locks both players, then moves their games. An action
    ending a game locks the game's owner first too (its result names the owner): it waits for
    the merge, which can move the game, and then lands in the account. In the other order the
    two would deadlock and one of them fail."""
    if not settings.database_url.startswith("postgresql"):
        pytest.skip("row locks: PostgreSQL (SQLite has one writer at a time)")
    with TestClient(create_app(settings)) as device, TestClient(device.app) as account:
        code_for(account)

        def post(path: str, body: Any) -> Any:
            return device.post(path, json=body).json()

        view = play_through(post, new_game(device, "peaceful", seed=50))  # but its last action
        last = ViewPlayer().next_action(view)
        engine = create_engine(settings.database_url)
        with engine.connect() as c:
            source = c.execute(
                text("SELECT player_id FROM games WHERE id = :g"), {"g": view["id"]}
            ).scalar()
            target = c.execute(
                text("SELECT id FROM players WHERE account_since IS NOT NULL")
            ).scalar()
        merge = engine.connect()
        held = merge.begin()
        merge.execute(  # as store.accounts._merge locks them
            text("SELECT id FROM players WHERE id IN (:a, :b) ORDER BY id FOR UPDATE"),
            {"a": source, "b": target},
        )
        answers: list[int] = []
        ending = threading.Thread(
            target=lambda: answers.append(
                device.post(
                    f"/api/games/{view['id']}/actions",
                    json={"version": view["version"], "action": last},
                ).status_code
            )
        )
        ending.start()
        with engine.connect() as watch:  # until the action waits for the merge's lock
            for _ in range(200):
                waiting = watch.execute(
                    text(
                        "SELECT COUNT(*) FROM pg_stat_activity "
                        "WHERE wait_event_type = 'Lock' AND datname = current_database()"
                    )
                ).scalar()
                if waiting:
                    break
                time.sleep(0.05)
            assert waiting, "the ending action never waited for the merge"
        merge.execute(
            text("UPDATE games SET player_id = :t WHERE player_id = :s"),
            {"t": target, "s": source},
        )
        held.commit()
        merge.close()
        ending.join()
        assert answers == [200]
        with engine.connect() as c:
            owner = c.execute(
                text("SELECT player_id FROM highscores WHERE game_id = :g"), {"g": view["id"]}
            ).scalar()
        engine.dispose()
        assert owner == target  # the result is the account's, as the game is


def test_a_passkey_saved_already_or_too_long_is_refused_not_a_500(
    devices: tuple[TestClient, TestClient],
) -> None:
    phone, laptop = devices
    key = Authenticator("http://testserver")
    options = phone.post("/api/account/passkeys/registration/options").json()
    first = key.create(options)
    assert (
        phone.post(
            "/api/account/passkeys/registration/verification", json={"credential": first}
        ).status_code
        == 201
    )
    # the same credential id again, from another player (a crafted answer)
    options = laptop.post("/api/account/passkeys/registration/options").json()
    again = key.create(options, credential_id=key.passkeys[0].credential_id)
    r = laptop.post("/api/account/passkeys/registration/verification", json={"credential": again})
    assert r.status_code == 400 and r.json()["error"]["code"] == "passkey_refused"
    options = laptop.post("/api/account/passkeys/registration/options").json()
    long_id = Authenticator("http://testserver").create(options, credential_id=b"x" * 1100)
    r = laptop.post("/api/account/passkeys/registration/verification", json={"credential": long_id})
    assert r.status_code == 400 and r.json()["error"]["code"] == "passkey_refused"
    assert laptop.get("/api/account/passkeys").json() == []


def test_a_deleted_players_finished_games_are_gone_from_replays(
    devices: tuple[TestClient, TestClient],
) -> None:
    phone, laptop = devices
    done = play_to_end(phone, new_game(phone, "peaceful", seed=60))
    assert laptop.get(f"/api/games/{done['id']}/replay").status_code == 200  # (now cached)
    assert laptop.get(f"/api/games/{done['id']}/review").status_code == 200
    assert phone.delete("/api/players/me").status_code == 204
    for what in ("replay", "frames", "review"):
        assert laptop.get(f"/api/games/{done['id']}/{what}").status_code == 404, what


def test_ended_sessions_are_not_listed(
    devices: tuple[TestClient, TestClient], settings: Settings
) -> None:
    phone, laptop = devices
    sign_in(laptop, code_for(phone))
    engine = create_engine(settings.database_url)
    with engine.begin() as c:
        c.execute(
            text("UPDATE sessions SET last_used_at = :t WHERE method = 'transfer'"),
            {"t": utcnow() - timedelta(days=61)},
        )
    engine.dispose()
    assert [s["method"] for s in phone.get("/api/account/sessions").json()] == ["visit"]


def test_over_https_the_cookie_is_host_prefixed_and_a_plain_one_is_not_trusted(
    settings: Settings,
) -> None:
    with TestClient(create_app(settings)) as plain:
        plain.put("/api/players/me", json={"name": "Vana"})
        token = plain.cookies[COOKIE]
    with TestClient(create_app(settings), base_url="https://testserver") as secure:
        r = secure.get("/api/players/me")
        cookie = r.headers["set-cookie"]
        assert cookie.startswith(f"{HOST_COOKIE}=") and "Secure" in cookie and "Path=/" in cookie
        assert "Domain" not in cookie and "HttpOnly" in cookie
    # a plain cookie over HTTPS could have been planted (a sibling domain, plain HTTP): a
    # stranger's, unless it is a cookie of the release before sessions
    with TestClient(
        create_app(settings), base_url="https://testserver", cookies={COOKIE: token}
    ) as planted:
        assert planted.get("/api/players/me").json()["name"] is None
    engine = create_engine(settings.database_url)
    with engine.begin() as c:
        c.execute(text("UPDATE sessions SET method = 'earlier'"))
    engine.dispose()
    with TestClient(
        create_app(settings), base_url="https://testserver", cookies={COOKIE: token}
    ) as earlier:
        r = earlier.get("/api/players/me")
        assert r.json()["name"] == "Vana"
        sent = r.headers.get_list("set-cookie")
        assert any(c.startswith(f"{HOST_COOKIE}={token}") for c in sent)  # moved to the prefix
        assert any(c.startswith(f'{COOKIE}=""') or c.startswith(f"{COOKIE}=;") for c in sent)


def test_the_api_documents_signing_in_without_a_browser(client: TestClient) -> None:
    """A script or a terminal signs in with a transfer code and keeps the cookie: /docs says
    how (the OpenAPI document's description), and every account route is in it."""
    document = client.get("/openapi.json").json()
    description = document["info"]["description"]
    assert "POST /api/account/sign-in/transfer" in description and "cookie" in description
    paths = set(document["paths"])
    assert {
        "/api/account/transfer-codes",
        "/api/account/sign-in/transfer",
        "/api/account/passkeys/registration/options",
        "/api/account/passkeys/registration/verification",
        "/api/account/passkeys",
        "/api/account/passkeys/{passkey_id}",
        "/api/account/sign-in/passkey/options",
        "/api/account/sign-in/passkey/verification",
        "/api/account/sessions",
        "/api/account/sessions/{session_id}",
        "/api/account/sign-out",
        "/api/players/me/export",
    } <= paths


@pytest.mark.process
def test_two_server_processes_racing_a_merge_lose_nothing(database_url: str) -> None:
    """The same race between two real server processes on one database (PostgreSQL, or an
    SQLite file): every game once in the account, the device's player gone."""
    import httpx2

    from ..utils.server import server_process

    with (
        server_process(database_url) as one,
        server_process(database_url) as two,
        httpx2.Client(base_url=one.url) as account,
        httpx2.Client(base_url=one.url) as device,
        httpx2.Client(base_url=two.url) as device_again,
    ):
        for seed in range(2):
            play_to_end(device, new_game(device, "peaceful", seed=70 + seed))
        act(device, new_game(device, "survival", seed=72), {"type": "roll"})
        play_to_end(account, new_game(account, "nightmare", seed=73))
        device_again.cookies.set(COOKIE, device.cookies[COOKIE])  # the same browser
        expected = game_ids(device) | game_ids(account)
        codes = [code_for(account), code_for(account)]
        assert sign_ins_at_once([device, device_again], codes) == [200, 200]
        assert game_ids(account) == game_ids(device) == game_ids(device_again) == expected
        stats = account.get("/api/players/me/stats").json()
        assert stats["difficulties"]["peaceful"]["finished"] == 2


def test_signing_in_again_never_abandons_a_game_with_moves_for_an_empty_one(
    devices: tuple[TestClient, TestClient],
) -> None:
    """A device signed in with a game on turn 3 is signed out from elsewhere; the page makes
    an empty game for the stranger it now is; signing in again, the turn-3 game goes on, the
    empty one is gone (not abandoned), and nothing is counted as joined."""
    phone, laptop = devices
    code = code_for(phone)
    sign_in(laptop, code)
    view = new_game(laptop, "survival", seed=40)
    for _ in range(3):
        view = play_turn(laptop, view)
    key = Authenticator("http://testserver")
    options = phone.post("/api/account/passkeys/registration/options").json()
    phone.post(
        "/api/account/passkeys/registration/verification", json={"credential": key.create(options)}
    )
    assert (
        phone.post(
            "/api/account/sign-out", json={"everywhere": True, "keep_new_passkey": True}
        ).status_code
        == 204
    )
    empty = laptop.post("/api/games", json={"difficulty": "peaceful", "resume": True}).json()
    assert empty["id"] != view["id"] and empty["version"] == 0
    options = laptop.post("/api/account/sign-in/passkey/options").json()
    r = laptop.post(
        "/api/account/sign-in/passkey/verification", json={"credential": key.get(options)}
    )
    assert r.status_code == 200
    assert r.json()["merged"] == {"games": 0, "dailies": [], "abandoned_game_id": None}
    current = laptop.get("/api/games/current").json()
    assert current["id"] == view["id"] and current["version"] == view["version"]
    exported = {g["id"]: g["status"] for g in laptop.get("/api/players/me/export").json()["games"]}
    assert exported[view["id"]] == "active" and empty["id"] not in exported


def test_a_merged_game_is_the_accounts_at_once_even_when_a_process_kept_it(
    devices: tuple[TestClient, TestClient],
) -> None:
    """A finished game this process has cached (its replay was watched) moves to the account
    on a sign-in: its replay names the account's player, and the player's own daily of today
    can be watched by the account at once."""
    phone, laptop = devices
    phone.put("/api/players/me", json={"name": "Mari"})
    done = play_to_end(laptop, new_game(laptop, "peaceful", seed=41))
    todays = daily(laptop, "nightmare")
    assert laptop.get(f"/api/games/{done['id']}/frames").json()["name"] is None  # cached
    assert laptop.get(f"/api/games/{todays['id']}/frames").status_code == 200  # its own
    sign_in(laptop, code_for(phone))
    assert laptop.get(f"/api/games/{done['id']}/frames").json()["name"] == "Mari"
    for device in (phone, laptop):
        assert device.get(f"/api/games/{todays['id']}/frames").status_code == 200
