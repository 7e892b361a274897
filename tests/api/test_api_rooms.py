"""Live rooms (issue 46), through the API and the WebSocket: a room of three plays the same
dice turn by turn to its end; nobody rolls, nobody sees a board before its turn closes; the
clock closes a turn (the coach ends it for whoever had not) without any real wait; the events
are numbered without a gap and resume after the last one seen; what a player owns in a room
joins the export and leaves with a deleted player.

The clock moves by the test server's header (``X-Magdagdon-Test-Now``), never by waiting.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from magdagdon.settings import Settings
from magdagdon.store.db import DatabaseTimeout
from magdagdon.web import live as live_module
from magdagdon.web.app import create_app
from magdagdon.web.deps import TEST_NOW_HEADER
from magdagdon.web.live import close_overdue

from ..utils.api import COACH_WAIT, ViewPlayer, act
from ..utils.hosts import RedisServer

START = "2026-12-20T12:00:00"


def at(client: TestClient, moment: str) -> TestClient:
    """Move ``client``'s clock to ``moment`` (UTC); the client."""
    client.headers[TEST_NOW_HEADER] = f"{moment}Z"
    return client


@pytest.fixture
def app(settings: Settings) -> Any:
    """One app (one server process) on the test's database."""
    return create_app(settings)


@pytest.fixture
def people(app: Any) -> Iterator[list[TestClient]]:
    """Four players with their own cookies, on the same clock."""
    with TestClient(app) as a, TestClient(app) as b, TestClient(app) as c, TestClient(app) as d:
        clients = [a, b, c, d]
        for client, name in zip(clients, ("Ann", "Ben", "Cy", "Dee"), strict=True):
            at(client, START)
            assert client.put("/api/players/me", json={"name": name}).status_code == 200
        yield clients


def code_of(r: Any) -> str:
    """An error answer's code."""
    return str(r.json()["error"]["code"])


def room(client: TestClient, code: str) -> dict[str, Any]:
    r = client.get(f"/api/rooms/{code}")
    assert r.status_code == 200, r.json()
    return dict(r.json())


def game(client: TestClient, code: str) -> dict[str, Any]:
    """The player's game in the room, as it stands."""
    r = client.get(f"/api/games/{room(client, code)['game_id']}")
    assert r.status_code == 200, r.json()
    return dict(r.json())


def end_turn(client: TestClient, view: dict[str, Any]) -> dict[str, Any]:
    """Play the open turn to its end (CONFIRM or ACCEPT MAGDAGDON) with the tests' bot."""
    bot, turns = ViewPlayer(), view["turns"]
    while view["turns"] == turns and view["phase"] != "over":
        assert view["phase"] != "roll" and not view["can_roll"]
        view = act(client, view, bot.next_action(view))
    return view


def made(client: TestClient, clock: int | None = None) -> str:
    r = client.post("/api/rooms", json={"difficulty": "survival", "clock": clock})
    assert r.status_code == 201, r.json()
    assert r.json()["url"].endswith(f"/#room={r.json()['code']}") and r.json()["qr"]
    return str(r.json()["code"])


def events(client: TestClient, code: str, since: int = 0) -> list[dict[str, Any]]:
    r = client.get(f"/api/rooms/{code}/events", params={"since": since})
    assert r.status_code == 200, r.json()
    return list(r.json())


def test_a_room_of_three_plays_the_same_dice_turn_by_turn_to_its_end(
    people: list[TestClient],
) -> None:
    ann, ben, cy, dee = people
    code = made(ann)
    assert ben.post(f"/api/rooms/{code}/members").status_code == 201
    assert cy.post(f"/api/rooms/{code}/members").status_code == 201
    assert ann.post(f"/api/rooms/{code}/members").status_code == 200  # a member already
    waiting = room(dee, code)  # anyone may look; dee watches
    assert waiting["phase"] == "waiting" and waiting["turn"] == 0 and not waiting["member"]
    assert [m["name"] for m in waiting["members"]] == ["Ann", "Ben", "Cy"]
    assert [m["maker"] for m in waiting["members"]] == [True, False, False]
    r = ben.post(f"/api/rooms/{code}/start")
    assert r.status_code == 403 and code_of(r) == "not_room_maker"
    started = ann.post(f"/api/rooms/{code}/start")
    assert started.status_code == 200, started.json()
    assert started.json()["phase"] == "playing" and started.json()["turn"] == 1
    r = ann.post(f"/api/rooms/{code}/start")
    assert r.status_code == 409 and code_of(r) == "room_started"
    r = dee.post(f"/api/rooms/{code}/members")
    assert r.status_code == 409 and code_of(r) == "room_started"  # a latecomer watches
    players = [ann, ben, cy]
    turn = 1
    while True:
        views = [game(p, code) for p in players]
        playing = [v for v in views if v["phase"] != "over"]
        # the room rolled everyone's dice: the same dice for every game still going
        assert len({tuple(d["value"] for d in v["dice"]) for v in playing}) == 1, turn
        assert all(v["room"] == code and not v["can_roll"] for v in views)
        before = events(dee, code)
        first, *others = [(p, v) for p, v in zip(players, views, strict=True) if v in playing]
        ended = end_turn(*first)
        if ended["phase"] == "roll":  # it waits for the others: its own roll is refused
            r = first[0].post(
                f"/api/games/{ended['id']}/actions",
                json={"version": ended["version"], "action": {"type": "roll"}},
            )
            assert r.status_code == 409 and code_of(r) == "turn_not_open"
            assert r.json()["game"]["version"] == ended["version"]
        # nothing of the turn shows before it closes: who has ended it, no board, no score
        if others:
            (news,) = events(dee, code, before[-1]["seq"])
            assert news["type"] == "member_done" and news["body"]["turn"] == turn
            assert set(news["body"]) == {"player", "turn"}
            name = ["Ann", "Ben", "Cy"][players.index(first[0])]
            assert news["body"]["player"] == {"name": name, "me": False}
            done = [m["done"] for m in room(dee, code)["members"]]
            assert done.count(True) >= 1
        for p, v in others:
            end_turn(p, v)
        closed = [e for e in events(dee, code) if e["type"] == "turn_closed"]
        assert closed[-1]["body"]["turn"] == turn
        boards = closed[-1]["body"]["boards"]
        assert [b["name"] for b in boards] == ["Ann", "Ben", "Cy"]
        assert not any(b["coached"] for b in boards)
        if room(dee, code)["phase"] == "over":
            break
        turn += 1
        assert room(dee, code)["turn"] == turn
    everything = events(dee, code)
    assert [e["seq"] for e in everything] == list(range(1, len(everything) + 1))
    assert everything[-1]["type"] == "room_over"
    standings = everything[-1]["body"]["standings"]
    scores = [s["score"] for s in standings]
    assert scores == sorted(scores, reverse=True) and len(scores) == 3
    finals = {p: game(p, code) for p in players}
    assert {s["score"] for s in standings} <= {v["final_score"]["total"] for v in finals.values()}
    assert all(v["places"] is None for v in finals.values())  # not in the high scores
    assert room(ann, code)["members"][0]["me"] and not room(ann, code)["members"][1]["me"]
    # over: the games' dice are anybody's now
    replay = ann.get(f"/api/games/{finals[ben]['id']}/replay")
    assert replay.status_code == 200


def test_nobody_sees_a_game_of_a_room_still_playing(people: list[TestClient]) -> None:
    ann, ben, _, _ = people
    code = made(ann)
    ben.post(f"/api/rooms/{code}/members")
    ann.post(f"/api/rooms/{code}/start")
    view = game(ann, code)
    while view["phase"] != "over":  # ann fills her board; ben has not played a turn
        view = end_turn(ann, view)
        if view["phase"] == "roll":
            end_turn(ben, game(ben, code))
            view = game(ann, code)
    if room(ann, code)["phase"] != "over":
        r = ben.get(f"/api/games/{view['id']}/replay")
        assert r.status_code == 409 and code_of(r) == "room_not_over"


def test_the_clock_closes_a_turn_and_the_coach_ends_it_for_the_late(
    people: list[TestClient],
) -> None:
    ann, ben, cy, _ = people
    r = ann.post("/api/rooms", json={"difficulty": "peaceful", "clock": 45})
    assert r.status_code == 422  # 30, 60 or 120
    code = made(ann, clock=30)
    ben.post(f"/api/rooms/{code}/members")
    cy.post(f"/api/rooms/{code}/members")
    state = ann.post(f"/api/rooms/{code}/start").json()
    assert state["deadline"] == "2026-12-20T12:00:30Z"
    end_turn(ann, game(ann, code))
    staged = game(ben, code)
    die = next(d for d in staged["dice"] if d["legal_cells"])
    act(ben, staged, {"type": "stage", "die": die["index"], "cell": die["legal_cells"][0]})
    at(cy, "2026-12-20T12:00:29")
    assert room(cy, code)["turn"] == 1  # not yet
    at(cy, "2026-12-20T12:00:30")
    state = room(cy, code)
    assert state["turn"] == 2 and state["deadline"] == "2026-12-20T12:01:00Z"
    coached = {m["name"]: m["coached"] for m in state["members"]}
    assert coached == {"Ann": [], "Ben": [1], "Cy": [1]}
    closed = next(e for e in events(cy, code) if e["type"] == "turn_closed")
    assert [b["coached"] for b in closed["body"]["boards"]] == [False, True, True]
    # the coach's turn is an ordinary turn of their games: the next is open for all three
    for p in (ann, ben, cy):
        view = game(p, code)
        assert view["turns"] == 1 and view["phase"] in ("place", "magdagdon")


def test_the_live_events_resume_after_the_last_seen(app: Any, people: list[TestClient]) -> None:
    ann, ben, _, dee = people
    code = made(ann)
    ben.post(f"/api/rooms/{code}/members")
    with dee.websocket_connect(f"/api/rooms/{code}/live") as live:
        first = [live.receive_json(), live.receive_json()]
        assert [e["type"] for e in first] == ["member_joined", "member_joined"]
        assert [e["body"]["player"]["name"] for e in first] == ["Ann", "Ben"]
        ann.post(f"/api/rooms/{code}/start")
        after = [live.receive_json(), live.receive_json()]
        assert [(e["seq"], e["type"]) for e in after] == [(3, "room_started"), (4, "turn_opened")]
        # the turn's number and its clock (none: it waits for everyone), nothing of its roll
        assert after[1]["body"] == {"turn": 1, "deadline": None}
    with dee.websocket_connect(f"/api/rooms/{code}/live?since=3") as again:
        assert again.receive_json()["seq"] == 4  # a reconnection: after the last seen
        again.send_json({"since": 1})  # back to after the first
        assert [again.receive_json()["seq"] for _ in range(3)] == [2, 3, 4]
    with (
        pytest.raises(Exception),  # noqa: B017 - closed at once: no such room
        dee.websocket_connect("/api/rooms/NOSUCHROOM/live") as gone,
    ):
        gone.receive_json()


def test_a_connection_the_busy_database_cannot_take_is_told_to_try_again(
    app: Any, people: list[TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database busy past the deadline before a live connection is taken: it is refused
    with 1013 ``try_again`` (the client connects again), as one refused later is closed; an
    exception reaching the server after the refusal was a server error in its log."""
    ann = people[0]
    code = made(ann)

    def busy(*_: Any, **__: Any) -> Any:
        raise DatabaseTimeout("the request's database deadline passed")

    monkeypatch.setattr(app.state.store, "room", busy)
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        ann.websocket_connect(f"/api/rooms/{code}/live") as live,
    ):
        live.receive_json()
    assert (refused.value.code, refused.value.reason) == (1013, "try_again")


def test_a_rooms_connections_in_a_process_share_one_read(
    app: Any, people: list[TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each of a room's connections read the database on each wake (three reads each: six
    members made eighteen for every event): now one reader a room and process reads once and
    hands every connection what it has not sent, each from where it stands."""
    monkeypatch.setattr(live_module, "POLL", 60.0)  # (the news alone wake the reader)
    ann, ben, cy, dee = people
    code = made(ann)
    for other in (ben, cy):
        assert other.post(f"/api/rooms/{code}/members").status_code == 201
    url = f"/api/rooms/{code}/live"
    # (one client's connections: a test's clients each run the app in an event loop of their
    # own, as separate processes would, where a server has one)
    with (
        dee.websocket_connect(url) as one,
        dee.websocket_connect(url) as two,
        dee.websocket_connect(f"{url}?since=2") as three,
    ):
        assert [receive(one)["seq"] for _ in range(3)] == [1, 2, 3]
        assert [receive(two)["seq"] for _ in range(3)] == [1, 2, 3]
        assert receive(three)["seq"] == 3  # (from where it stands)
        hub = app.state.room_hub
        (feeds,) = hub.loops.values()
        assert list(feeds) == [code] and len(feeds[code].followers) == 3
        before = feeds[code].reads
        assert ann.post(f"/api/rooms/{code}/start").status_code == 200
        for live in (one, two, three):
            assert [receive(live)["type"] for _ in range(2)] == ["room_started", "turn_opened"]
        assert feeds[code].reads - before <= 2  # (one wake, or two: not one a connection)
    assert hub.loops == {}  # (the reader ends with the room's last connection)


def test_a_room_joins_the_export_and_leaves_with_a_deleted_player(
    people: list[TestClient],
) -> None:
    ann, ben, cy, dee = people
    code = made(ann)
    for p in (ben, cy):
        p.post(f"/api/rooms/{code}/members")
    ann.post(f"/api/rooms/{code}/start")
    for p in (ann, ben, cy):
        end_turn(p, game(p, code))
    exported = ben.get("/api/players/me/export").json()
    (mine,) = exported["rooms"]
    assert mine["code"] == code and not mine["maker"] and mine["game_id"]
    assert any(g["room"] == code for g in exported["games"])
    # ann (the maker) deletes herself: her boards leave the room, which passes to ben
    assert ann.delete("/api/players/me").status_code in (200, 204)
    state = room(dee, code)
    assert [m["name"] for m in state["members"]] == ["Ben", "Cy"]
    assert [m["maker"] for m in state["members"]] == [True, False]
    closed = next(e for e in events(dee, code) if e["type"] == "turn_closed")
    assert [b["name"] for b in closed["body"]["boards"]] == ["Ben", "Cy"]
    # the room plays on without her
    for p in (ben, cy):
        end_turn(p, game(p, code))
    assert room(dee, code)["turn"] == 3


def test_a_room_is_full_at_eight_and_its_code_is_looked_up_as_a_challenge(
    app: Any, people: list[TestClient]
) -> None:
    ann, *_ = people
    code = made(ann)
    joined = []
    for _ in range(8):
        with TestClient(app) as extra:
            joined.append(extra.post(f"/api/rooms/{code}/members").status_code)
    assert joined == [201] * 7 + [409]
    r = ann.get("/api/rooms/NOSUCHROOM")
    assert r.status_code == 404 and code_of(r) == "room_not_found"
    assert ann.get("/api/rooms/bad%00code").status_code in (404, 422)


def test_a_room_found_is_not_counted_as_a_guess_and_a_miss_is(database_url: str) -> None:
    """A family at one table shares an address: its members look their room up every turn,
    which no limit on guessing may refuse; codes that name no room are guesses, limited."""
    settings = Settings(database_url=database_url, address_links_per_hour=8)  # a burst of 4
    with TestClient(create_app(settings)) as c:
        code = made(c)
        for _ in range(20):
            assert c.get(f"/api/rooms/{code}").status_code == 200
            assert c.get(f"/api/rooms/{code}/events").status_code == 200
        misses = [c.get(f"/api/rooms/NOSUCH{i}").status_code for i in range(6)]
        assert misses[:4] == [404] * 4 and misses[4:] == [429, 429]
        r = c.post("/api/rooms/NOSUCHROOM/members")
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        with (
            pytest.raises(Exception),  # noqa: B017 - refused: no such room, past the limit
            c.websocket_connect("/api/rooms/NOSUCHROOM/live") as gone,
        ):
            gone.receive_json()
        assert c.get(f"/api/rooms/{code}").status_code == 200  # the real room still opens


def test_a_device_signing_in_brings_its_rooms_to_the_account(people: list[TestClient]) -> None:
    ann, ben, _, dee = people
    both = made(ann)
    dee.post(f"/api/rooms/{both}/members")
    ben.post(f"/api/rooms/{both}/members")
    ann.post(f"/api/rooms/{both}/start")
    own = made(dee)
    ben.post(f"/api/rooms/{own}/members")
    code = ann.post("/api/account/transfer-codes")
    assert code.status_code == 201, code.json()
    r = dee.post("/api/account/sign-in/transfer", json={"code": code.json()["code"]})
    assert r.status_code == 200, r.json()
    # dee is ann now: in the room they were both in, the account's membership stays
    state = room(dee, both)
    assert [m["name"] for m in state["members"]] == ["Ann", "Ben"]
    assert state["member"] and state["game_id"] == room(ann, both)["game_id"]
    joined = [e["body"]["player"]["name"] for e in events(ben, both) if e["body"].get("player")]
    assert joined == ["Ann", "Ann", "Ben"]  # (dee's joining, under the account's name now)
    # the room dee made is the account's, and the export says so
    assert room(ann, own)["maker"] and [m["name"] for m in room(ben, own)["members"]] == [
        "Ann",
        "Ben",
    ]
    assert {r["code"] for r in ann.get("/api/players/me/export").json()["rooms"]} == {both, own}


def test_rooms_made_are_limited_per_player(database_url: str) -> None:
    settings = Settings(database_url=database_url, player_rooms_per_hour=4)  # a burst of 1
    with TestClient(create_app(settings)) as c:
        body = {"difficulty": "peaceful", "clock": None}
        assert c.post("/api/rooms", json=body).status_code == 201
        r = c.post("/api/rooms", json=body)
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1


def test_the_clock_watcher_closes_an_overdue_turn_with_nobody_looking(
    app: Any, people: list[TestClient]
) -> None:
    """Every process watches the rooms' deadlines about once a second (``watch_clocks``, which
    a test server leaves out: its clock is its requests' header); here its one look,
    ``close_overdue``, on a settable clock."""
    ann, ben, _, _ = people
    code = made(ann, clock=60)
    ben.post(f"/api/rooms/{code}/members")
    ann.post(f"/api/rooms/{code}/start")
    end_turn(ann, game(ann, code))
    store = app.state.store

    def look(moment: str) -> list[str]:
        when = datetime.fromisoformat(moment).replace(tzinfo=UTC)
        return list(ann.portal.call(close_overdue, app, store, when))  # type: ignore[union-attr]

    assert look("2026-12-20T12:00:59") == []
    assert store.room(code).turn == 1
    assert look("2026-12-20T12:01:00") == [code]
    state = store.room(code)
    assert state.turn == 2 and state.turn_open
    assert [m.coached for m in state.members] == [[], [1]]
    assert look("2026-12-20T12:01:30") == []  # (turn 2's deadline is 12:02:00)


def receive(live: Any, timeout: float = 30) -> dict[str, Any]:
    """The next event on a live connection, or a failure after ``timeout`` seconds (a test
    never hangs on an event that does not come)."""
    pool = ThreadPoolExecutor(1)
    try:
        return dict(pool.submit(live.receive_json).result(timeout=timeout))
    finally:
        pool.shutdown(wait=False)  # (a thread still waiting is left behind, not waited for)


def test_workers_hear_of_each_others_rooms_through_redis(
    settings: Settings, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three server processes (three apps) on one database and one Redis: the two members act
    on two of them, a spectator follows on the third, which reads the database only when Redis
    tells it to (its own reads slowed to a minute): every event arrives, in order, none
    twice."""
    monkeypatch.setattr(live_module, "POLL", 60.0)
    monkeypatch.setattr(live_module, "POLL_SUBSCRIBED", 60.0)
    with followed_room(settings, redis_url) as room_:
        while play_a_turn(room_):
            pass
        assert room_.seen == list(range(1, len(room_.seen) + 1))
        assert events(room_.watcher, room_.code)[-1]["seq"] == room_.seen[-1]


@dataclass
class Followed:
    """A started room of two members on two processes, followed live by a spectator on a
    third: the events seen so far."""

    members: tuple[TestClient, TestClient]
    watcher: TestClient
    apps: tuple[Any, Any, Any]
    """The members' apps and the spectator's."""
    live: Any
    code: str
    seen: list[int]


@contextmanager
def followed_room(settings: Settings, redis_url: str) -> Iterator[Followed]:
    """Three server processes (three apps) on the test's database and the Redis at
    ``redis_url``; Ann's room, Ben in it, Dee following it live once her process hears
    Redis's news; the room started, its first four events seen."""
    shared = settings.model_copy(update={"redis_url": redis_url})
    one, two, other = create_app(shared), create_app(shared), create_app(shared)
    with TestClient(one) as ann, TestClient(two) as ben, TestClient(other) as dee:
        for client in (ann, ben, dee):
            at(client, START)
        code = made(ann)
        ben.post(f"/api/rooms/{code}/members")
        subscribed(dee, other)
        with dee.websocket_connect(f"/api/rooms/{code}/live") as live:
            seen = [receive(live)["seq"], receive(live)["seq"]]  # the two members' joining
            ann.post(f"/api/rooms/{code}/start")
            seen += [receive(live)["seq"], receive(live)["seq"]]  # started, turn 1 opened
            yield Followed((ann, ben), dee, (one, two, other), live, code, seen)


def subscribed(client: TestClient, app: Any) -> None:
    """Wait until ``app``'s subscription to Redis's news is made (in a task, at its start)."""
    hub = app.state.room_hub
    for _ in range(600):
        if hub.channel is not None and hub.channel.subscribed:
            return
        client.portal.call(asyncio.sleep, 0.05)  # type: ignore[union-attr]
    raise AssertionError("no subscription to Redis's news")


def play_a_turn(followed: Followed) -> bool:
    """The members end the open turn; the events the live connection receives up to the next
    turn's opening (or the room's end) noted in ``seen``. Whether the room goes on."""
    code, seen = followed.code, followed.seen
    for p in followed.members:
        view = game(p, code)
        if view["phase"] != "over":
            end_turn(p, view)
    event = receive(followed.live)
    seen.append(event["seq"])
    while event["type"] != "turn_closed":
        event = receive(followed.live)
        seen.append(event["seq"])
    seen.append(receive(followed.live)["seq"])  # the next turn opened, or the room over
    return bool(room(followed.watcher, code)["phase"] != "over")


@pytest.mark.process  # (a redis-server of its own)
def test_a_redis_restart_loses_no_event(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis stops mid-game and starts again: the members' events go on reaching a spectator
    on another process (each connection reads the database every second while the news are
    away, woken at once when they stop), none lost or twice, and the news come back by
    themselves (the subscription made again)."""
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed")
    monkeypatch.setattr(live_module, "POLL_SUBSCRIBED", 60.0)  # subscribed: the news alone
    redis = RedisServer(tmp_path)
    redis.start()
    try:
        with followed_room(settings, redis.url("127.0.0.1")) as room_:
            assert play_a_turn(room_)
            redis.stop()
            assert play_a_turn(room_)  # no news: the connection's own reads
            redis.start()
            for client, app in zip((*room_.members, room_.watcher), room_.apps, strict=True):
                subscribed(client, app)  # (each process hears the news again, and sends them)
            assert play_a_turn(room_)  # the news again
            assert room_.seen == list(range(1, len(room_.seen) + 1))
    finally:
        redis.stop()


def test_play_again_makes_one_next_room_that_the_others_join(people: list[TestClient]) -> None:
    ann, ben, cy, _ = people
    code = made(ann, clock=60)
    ben.post(f"/api/rooms/{code}/members")
    r = ann.post(f"/api/rooms/{code}/again")
    assert r.status_code == 409 and code_of(r) == "room_not_over"  # (not even started)
    ann.post(f"/api/rooms/{code}/start")
    while room(cy, code)["phase"] != "over":
        for p in (ann, ben):
            view = game(p, code)
            if view["phase"] != "over" and view["phase"] != "roll":
                end_turn(p, view)
    # the coach's score on the room's dice, computed in the background once asked for
    deadline = time.monotonic() + COACH_WAIT
    while (coach := room(cy, code)["coach"]) is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert isinstance(coach, int) and coach > 0
    r = cy.post(f"/api/rooms/{code}/again")
    assert r.status_code == 403 and code_of(r) == "not_room_member"
    first = ben.post(f"/api/rooms/{code}/again")  # ben asks first: he makes it
    assert first.status_code == 201, first.json()
    again = first.json()["code"]
    assert again != code and first.json()["url"].endswith(f"#room={again}")
    joined = ann.post(f"/api/rooms/{code}/again")
    assert joined.status_code == 200 and joined.json()["code"] == again
    assert ann.post(f"/api/rooms/{code}/again").json()["code"] == again  # (twice: the same)
    said = events(cy, code)[-1]
    assert said["type"] == "room_again" and said["body"]["code"] == again
    assert said["body"]["player"]["name"] == "Ben"
    assert room(cy, code)["next"] == again
    state = room(ann, again)
    assert state["phase"] == "waiting" and state["clock"] == 60
    assert state["difficulty"] == "survival"
    assert {m["name"]: m["maker"] for m in state["members"]} == {"Ben": True, "Ann": False}
    # new dice: the next room's games are not the last room's
    ben.post(f"/api/rooms/{again}/start")
    old, new = game(ben, code), game(ben, again)
    assert old["id"] != new["id"] and new["turns"] == 0


def test_same_dice_different_choices_for_any_two_players_of_a_room_over(
    people: list[TestClient],
) -> None:
    """Once the room is over every member's game is named, and any two are compared: where
    they parted (challenges' rule), null for two games that never did; nothing before."""
    ann, ben, cy, dee = people
    body = {"difficulty": "survival", "clock": 30, "seed": 11}  # (the same games every run)
    code = ann.post("/api/rooms", json=body).json()["code"]
    for p in (ben, cy):
        p.post(f"/api/rooms/{code}/members")
    ann.post(f"/api/rooms/{code}/start")
    r = dee.get(f"/api/rooms/{code}/compare", params={"a": "x", "b": "y"})
    assert r.status_code == 409 and code_of(r) == "room_not_over"
    assert all(m["game_id"] is None for m in room(ann, code)["members"])  # not while played
    # Ann and Ben play every turn alike; Cy spends a power on a REROLL of his first roll
    act(cy, game(cy, code), {"type": "reroll", "dice": [0]})
    while room(dee, code)["phase"] != "over":
        for p in (ann, ben, cy):
            view = game(p, code)
            if view["phase"] not in ("over", "roll"):
                end_turn(p, view)
    members = {m["name"]: m["game_id"] for m in room(dee, code)["members"]}
    assert all(members.values()) and len(set(members.values())) == 3

    def compare(a: str, b: str) -> dict[str, Any]:
        r = dee.get(f"/api/rooms/{code}/compare", params={"a": members[a], "b": members[b]})
        assert r.status_code == 200, r.json()
        return dict(r.json())

    same = compare("Ann", "Ben")
    assert same["parted_at"] is None and same["a"] == members["Ann"]
    assert same["turns"] == max(game(p, code)["turns"] for p in (ann, ben))  # (the two's)
    parted = compare("Ann", "Cy")
    assert parted == compare("Cy", "Ann") | {"a": members["Ann"], "b": members["Cy"]}
    assert parted["parted_at"] == 1  # another count of powers used
    # a game of another room, a room that is not there
    other = ann.post("/api/games", json={"difficulty": "peaceful", "abandon": True}).json()["id"]
    r = dee.get(f"/api/rooms/{code}/compare", params={"a": members["Ann"], "b": other})
    assert r.status_code == 404 and code_of(r) == "game_not_found"
    r = dee.get("/api/rooms/ZZZZZZZZZZ/compare", params={"a": members["Ann"], "b": members["Ben"]})
    assert r.status_code == 404 and code_of(r) == "room_not_found"
