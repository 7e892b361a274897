"""Challenges over the API: a finished game's dice offered to friends (store/challenges.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from magdagdon.settings import Settings
from magdagdon.store.challenges import parted_at, shape
from magdagdon.web.app import create_app
from magdagdon.web.deps import TEST_DATE_HEADER

from ..utils.api import ViewPlayer, act, new_game, play_to_end

DAY = "2026-12-05"
Client = TestClient


@pytest.fixture
def app(settings: Settings) -> Any:
    return create_app(settings.model_copy(update={"daily_par": False}))


@pytest.fixture
def friends(app: Any) -> Iterator[tuple[TestClient, TestClient, TestClient]]:
    """Three devices of three players on :data:`DAY`."""
    day = {TEST_DATE_HEADER: DAY}
    with (
        TestClient(app, headers=day) as ann,
        TestClient(app, headers=day) as ben,
        TestClient(app, headers=day) as cid,
    ):
        yield ann, ben, cid


def finished(client: Client, difficulty: str = "peaceful", seed: int | None = None) -> Any:
    """A finished regular game of the client's (an unknown seed unless given)."""
    return play_to_end(client, new_game(client, difficulty, seed=seed, abandon=True))


def challenge(client: Client, game: dict[str, Any]) -> str:
    r = client.post("/api/challenges", json={"game_id": game["id"]})
    assert r.status_code == 201, r.json()
    assert r.json()["url"].endswith(f"/#challenge={r.json()['code']}")
    return str(r.json()["code"])


def start(client: Client, code: str) -> Any:
    r = client.post(f"/api/challenges/{code}/games")
    assert r.status_code == 201, r.json()
    return r.json()


def log_of(client: Client, game_id: str) -> list[dict[str, Any]]:
    r = client.get(f"/api/games/{game_id}/replay")
    assert r.status_code == 200, r.json()
    return list(r.json()["actions"])


def replay_actions(client: Client, view: dict[str, Any], actions: list[dict[str, Any]]) -> Any:
    for action in actions:
        view = act(client, view, action)
    return view


def test_a_link_shows_who_and_what_but_never_the_dice(
    friends: tuple[Client, Client, Client],
) -> None:
    ann, ben, _ = friends
    ann.put("/api/players/me", json={"name": "Ann"})
    game = finished(ann, "survival")
    code = challenge(ann, game)
    again = ann.post("/api/challenges", json={"game_id": game["id"]})
    assert again.status_code == 200 and again.json()["code"] == code  # one challenge a game
    seen = ben.get(f"/api/challenges/{code}")
    assert seen.status_code == 200
    body = seen.json()
    assert body["by"] == "Ann" and body["difficulty"] == "survival" and body["players"] == 0
    assert body["mine"] is False and body["game_id"] is None
    for secret in ("seed", "board", "dice", "score", "rows"):
        assert secret not in body
    assert game["id"] not in seen.text  # not the way to the challenger's replay either
    assert ben.get(f"/api/challenges/{code.lower()}").status_code == 200  # as typed
    missing = ben.get("/api/challenges/NOSUCHCODE")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "challenge_not_found"


def test_only_the_owner_challenges_and_only_a_finished_game(
    friends: tuple[Client, Client, Client],
) -> None:
    ann, ben, _ = friends
    game = finished(ann)
    r = ben.post("/api/challenges", json={"game_id": game["id"]})
    assert r.status_code == 404
    going = act(ann, new_game(ann, "peaceful", abandon=True), {"type": "roll"})
    r = ann.post("/api/challenges", json={"game_id": going["id"]})
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_finished"
    assert ann.post("/api/challenges", json={"game_id": "x" * 65}).status_code == 422
    assert ann.post("/api/challenges", json={}).status_code == 422


def test_a_daily_is_a_challenge_once_its_day_is_over(
    friends: tuple[Client, Client, Client],
) -> None:
    ann, ben, _ = friends
    r = ann.post("/api/daily/peaceful")
    assert r.status_code == 201
    daily = play_to_end(ann, r.json())
    refused = ann.post("/api/challenges", json={"game_id": daily["id"]})
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "daily_not_over"
    tomorrow = {TEST_DATE_HEADER: "2026-12-06"}
    made = ann.post("/api/challenges", json={"game_id": daily["id"]}, headers=tomorrow)
    assert made.status_code == 201
    game = start(ben, made.json()["code"])
    assert game["daily"] is None and game["challenge"] == made.json()["code"]
    assert game["board"] == "..../..../..../...."


def test_the_same_moves_on_the_same_dice_give_the_same_score(
    friends: tuple[Client, Client, Client],
) -> None:
    ann, ben, _ = friends
    game = finished(ann, "nightmare")
    code = challenge(ann, game)
    view = start(ben, code)
    assert view["challenge"] == code and view["difficulty"] == "nightmare"
    assert view["places"] is None
    final = replay_actions(ben, view, log_of(ann, game["id"]))
    assert final["phase"] == "over"
    assert final["final_score"]["total"] == game["final_score"]["total"]
    assert final["board"] == game["board"]
    results = ben.get(f"/api/challenges/{code}/results").json()
    rows = {r["game_id"]: r for r in results["rows"]}
    assert rows[game["id"]]["challenger"] is True and rows[game["id"]]["parted_at"] is None
    assert rows[final["id"]]["mine"] is True and rows[final["id"]]["parted_at"] is None
    assert rows[final["id"]]["rank"] == rows[game["id"]]["rank"] == 1  # a tie shares a rank


def test_the_same_shape_moved_turned_or_mirrored_is_the_same_play() -> None:
    """Parting is a different play, not another square for an equivalent one: the games said
    "parted at turn 1" when both placed the same dice in the same shape one row apart."""
    first = shape("45../5.../..../....")
    assert first == shape("..../45../5.../....")  # one row lower
    assert first == shape("..54/...5/..../....")  # mirrored, at the other edge
    assert first == shape("..../..../...5/..54")  # turned
    assert first != shape("45../.5../..../....")  # another shape
    assert first != shape("44../5.../..../....")  # other numbers
    assert shape("X.../..../..../....") != shape("3.../..../..../....")  # a RUIN is no die
    same, lower = [(first, 0)], [(shape("..../45../5.../...."), 0)]
    assert parted_at(same, lower) is None
    assert parted_at(same, [(first, 1)]) == 1  # a power used: another play
    assert parted_at(same + same, same) == 2


def test_different_choices_say_the_turn_where_they_parted(
    friends: tuple[Client, Client, Client],
) -> None:
    ann, ben, _ = friends
    game = finished(ann, "nightmare", seed=5)
    code = challenge(ann, game)
    turns = by_turn(log_of(ann, game["id"]))
    view = replay_actions(ben, start(ben, code), turns[0])  # turn 1 as Ann played it
    rolled = act(ben, view, {"type": "roll"})
    frames = ann.get(f"/api/games/{game['id']}/frames").json()["frames"]
    second = next(f["dice"] for f in frames if f["turn"] == 2 and f["kind"] == "roll")
    assert [d["value"] for d in rolled["dice"]] == list(second)  # the same dice
    assert rolled["phase"] == "place"  # (seed 5's second turn is placeable)
    hers = next(a for a in turns[1] if a["type"] == "stage")
    other = next(
        {"type": "stage", "die": d["index"], "cell": cell}
        for d in rolled["dice"]
        for cell in d["legal_cells"]
        if {"type": "stage", "die": d["index"], "cell": cell} != hers
    )
    view = act(ben, rolled, other)
    bot = ViewPlayer()
    while view["phase"] != "over":
        view = act(ben, view, bot.next_action(view))
    results = ann.get(f"/api/challenges/{code}/results").json()
    row = next(r for r in results["rows"] if r["game_id"] == view["id"])
    assert row["parted_at"] == 2 and row["mine"] is False
    assert results["by"] is None and results["seed"]


def by_turn(log: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """A game's log split into its turns (each begins with its ROLL)."""
    turns: list[list[dict[str, Any]]] = []
    for action in log:
        if action["type"] == "roll":
            turns.append([])
        turns[-1].append(action)
    return turns


def test_a_challenge_is_played_once_and_the_challenger_has_played_it(
    friends: tuple[Client, Client, Client],
) -> None:
    ann, ben, _ = friends
    game = finished(ann)
    code = challenge(ann, game)
    first = start(ben, code)
    again = ben.post(f"/api/challenges/{code}/games")
    assert again.status_code == 409
    assert (
        again.json()["error"]["code"] == "already_played" and again.json()["game_id"] == first["id"]
    )
    own = ann.post(f"/api/challenges/{code}/games")
    assert own.status_code == 409 and own.json()["game_id"] == game["id"]
    assert ben.get(f"/api/challenges/{code}").json()["game_id"] == first["id"]


def test_the_table_is_for_the_challenger_and_those_who_finished(
    friends: tuple[Client, Client, Client],
) -> None:
    ann, ben, cid = friends
    game = finished(ann)
    code = challenge(ann, game)
    assert ann.get(f"/api/challenges/{code}/results").status_code == 200
    refused = cid.get(f"/api/challenges/{code}/results")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "play_first"
    view = act(ben, start(ben, code), {"type": "roll"})
    assert ben.get(f"/api/challenges/{code}/results").status_code == 403  # not over yet
    final = play_to_end(ben, view)
    rows = ben.get(f"/api/challenges/{code}/results").json()["rows"]
    assert [r["game_id"] for r in rows] == sorted(
        [game["id"], final["id"]],
        key=lambda g: -(game if g == game["id"] else final)["final_score"]["total"],
    ) or rows[0]["score"] == rows[1]["score"]
    assert cid.get(f"/api/challenges/{code}").json()["players"] == 1


def test_a_challenge_stays_out_of_the_high_scores_counts_in_statistics_and_keeps_my_game(
    friends: tuple[Client, Client, Client],
) -> None:
    ann, ben, _ = friends
    game = finished(ann, "survival")
    code = challenge(ann, game)
    regular = act(ben, new_game(ben, "nightmare"), {"type": "roll"})
    final = play_to_end(ben, start(ben, code))
    assert ben.get("/api/games/current").json()["id"] == regular["id"]  # not touched
    scores = ben.get("/api/highscores/survival", params={"scope": "me"}).json()
    assert all(row["game_id"] != final["id"] for row in scores["rows"])
    stats = ben.get("/api/players/me/stats").json()
    assert stats["difficulties"]["survival"]["finished"] == 1


def test_rematch_plays_fresh_dice_and_answers_the_challenger(
    friends: tuple[Client, Client, Client],
) -> None:
    ann, ben, _ = friends
    ann.put("/api/players/me", json={"name": "Ann"})
    ben.put("/api/players/me", json={"name": "Ben"})
    game = finished(ann)
    code = challenge(ann, game)
    play_to_end(ben, start(ben, code))
    own = ann.post(f"/api/challenges/{code}/rematch", json={})
    assert own.status_code == 409 and own.json()["error"]["code"] == "own_challenge"
    r = ben.post(f"/api/challenges/{code}/rematch", json={"abandon": True})
    assert r.status_code == 201, r.json()
    assert (r.json()["rematch_of"], r.json()["sent_back"]) == (code, None)
    rematch = play_to_end(ben, r.json())
    assert rematch["challenge"] is None
    mine = ann.get("/api/challenges").json()
    reply = next(c for c in mine["challenges"] if c["role"] == "reply")
    # the game's end says it went back as a challenge, and which (its table is Ben's to see)
    assert (rematch["rematch_of"], rematch["sent_back"]) == (code, reply["code"])
    again = ben.get(f"/api/games/{rematch['id']}").json()
    assert again["sent_back"] == reply["code"]
    assert ben.get(f"/api/challenges/{reply['code']}/results").status_code == 200
    assert reply["by"] == "Ben" and mine["news"] == 2  # Ben played mine, and answered
    # each counted for what it is (the line said "2 friends played your challenge")
    assert (mine["played"], mine["replies"]) == (1, 1)
    view = start(ann, reply["code"])
    assert view["challenge"] == reply["code"]
    assert ben.get("/api/challenges").json()["challenges"][0]["role"] in {"made", "played"}
    assert ann.post("/api/challenges/seen").status_code == 204
    after = ann.get("/api/challenges").json()
    assert after["news"] == after["played"] == after["replies"] == 0  # reply taken, Ben's seen


def test_the_news_is_the_players_on_every_device_and_says_who_did_what(
    friends: tuple[Client, Client, Client],
) -> None:
    """The news line came only to a browser that had once made a challenge (a local flag) and
    counted a REMATCH not played as a play: it is the account's, on each of its devices, each
    thing said for what it is, and seen on one device, seen on all."""
    ann, ben, phone = friends  # the third: Ann's phone, signed in to her account below
    ann.put("/api/players/me", json={"name": "Ann"})
    ben.put("/api/players/me", json={"name": "Ben"})
    transfer = ann.post("/api/account/transfer-codes")
    assert transfer.status_code == 201, transfer.json()
    signed = phone.post("/api/account/sign-in/transfer", json={"code": transfer.json()["code"]})
    assert signed.status_code == 200, signed.json()
    assert "X-Magdagdon-News" not in ann.get("/api/games/current").headers
    game = finished(ann)
    code = challenge(ann, game)
    final = play_to_end(ben, start(ben, code))
    played = {
        "kind": "played",
        "code": code,
        "difficulty": "peaceful",
        "who": "Ben",
        "score": final["final_score"]["total"],
        "against": game["final_score"]["total"],
    }
    for device in (ann, phone):
        assert device.get("/api/games/current").headers["X-Magdagdon-News"] == "1"
        news = device.get("/api/challenges").json()
        assert (news["news"], news["played"], news["replies"]) == (1, 1, 0)
        assert [{k: v for k, v in i.items() if k != "at"} for i in news["items"]] == [played]
    rematch = ben.post(f"/api/challenges/{code}/rematch", json={"abandon": True})
    play_to_end(ben, rematch.json())
    news = phone.get("/api/challenges").json()
    assert (news["news"], news["played"], news["replies"]) == (2, 1, 1)
    assert [(i["kind"], i["who"]) for i in news["items"]] == [("reply", "Ben"), ("played", "Ben")]
    # seen on the phone: seen on the other device too, the REMATCH still in the list to play
    assert phone.post("/api/challenges/seen").status_code == 204
    assert "X-Magdagdon-News" not in ann.get("/api/games/current").headers
    after = ann.get("/api/challenges").json()
    assert (after["news"], after["items"]) == (0, [])
    assert [c["role"] for c in after["challenges"]].count("reply") == 1


def test_the_export_deletion_and_sign_in_keep_challenges_the_players(
    friends: tuple[Client, Client, Client], settings: Settings
) -> None:
    ann, ben, cid = friends
    game = finished(ann)
    code = challenge(ann, game)
    taken = play_to_end(ben, start(ben, code))
    export = ann.get("/api/players/me/export").json()
    assert [c["code"] for c in export["challenges"]] == [code]
    theirs = ben.get("/api/players/me/export").json()
    assert [g["challenge"] for g in theirs["games"]] == [code]
    # Cid plays it on one device, then signs in to Ben's account (who played it too): one
    # game of the challenge stays under the account, the first finished
    r = ben.post("/api/account/transfer-codes")
    assert r.status_code == 201
    cids = play_to_end(cid, start(cid, code))
    signed = cid.post("/api/account/sign-in/transfer", json={"code": r.json()["code"]})
    assert signed.status_code == 200, signed.json()
    games = [g for g in cid.get("/api/players/me/export").json()["games"] if g["challenge"]]
    kept = [g for g in games if not g["left_on_sign_in"]]
    assert [g["id"] for g in kept] == [taken["id"]] and cids["id"] in {g["id"] for g in games}
    # Ann deletes her data: her challenge goes, Ben's game of it stays his
    assert ann.delete("/api/players/me").status_code == 204
    engine = create_engine(settings.database_url)
    with engine.connect() as c:
        assert c.execute(text("SELECT COUNT(*) FROM game_challenges")).scalar() == 0
        assert (
            c.execute(text("SELECT COUNT(*) FROM games WHERE id = :g"), {"g": taken["id"]}).scalar()
            == 1
        )
    engine.dispose()
    assert ben.get(f"/api/challenges/{code}").status_code == 404
    assert ben.get(f"/api/games/{taken['id']}").status_code == 200


def test_codes_named_are_rate_limited_per_address(settings: Settings) -> None:
    limited = settings.model_copy(
        update={"rate_limits": True, "address_links_per_hour": 4, "daily_par": False}
    )
    with TestClient(create_app(limited)) as client:
        answers = [client.get(f"/api/challenges/GUESS{n:05d}").status_code for n in range(4)]
        assert answers == [404, 404, 429, 429]  # a burst of half an hour's worth: 2
        assert "Retry-After" in client.get("/api/challenges/GUESS99999").headers


def test_the_challengers_games_puzzles_wait_until_a_friend_has_played_it(
    app: Any, friends: tuple[Client, Client, Client]
) -> None:
    """A public puzzle mined from the challenger's game would show its dice to the friends it
    was sent to: it is served to them once they have played the challenge, to others at once."""
    from datetime import date

    from sqlalchemy import delete

    from magdagdon.ai.puzzles import starter_puzzles
    from magdagdon.store.models import puzzle_attempts, puzzle_served, puzzles

    ann, ben, cid = friends
    game = finished(ann)
    code = challenge(ann, game)
    store = app.state.store
    with store.db.transaction(write=True) as c:  # (the one puzzle below is the whole pool)
        for table in (puzzle_attempts, puzzle_served, puzzles):
            c.execute(delete(table))
    store._puzzles_loaded = True  # (and no starter set loaded again)
    puzzle = next(p for p in starter_puzzles() if p.position.difficulty.value == "peaceful")
    assert store.store_mined(game["id"], [puzzle], [], date(2026, 12, 5)) == (1, 0)
    ben.get(f"/api/challenges/{code}")  # Ben has the link
    assert ben.get("/api/puzzles/next").status_code == 404  # not before he has played it
    assert ben.get("/api/puzzles/next?difficulty=peaceful").status_code == 404
    play_to_end(ben, start(ben, code))
    assert ben.get("/api/puzzles/next").status_code == 200  # played: now it is his to solve
    assert cid.get("/api/puzzles/next").status_code == 404  # anyone may be sent the link
