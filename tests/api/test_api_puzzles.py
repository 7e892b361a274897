"""Puzzles through the HTTP API: the next one and the daily one, a turn played on one, attempts
graded and rated (once), STREAK, the player's own games' puzzles, MY GAMES, and what a player
owns of them in the export, the deletion and the merge on signing in."""

from __future__ import annotations

import random
import time
from functools import cache
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, select, text

from magdagdon.ai import puzzles as P
from magdagdon.ai.coach import _canonical
from magdagdon.ai.puzzles import starter_puzzles
from magdagdon.engine import Game
from magdagdon.settings import Settings
from magdagdon.web.app import create_app

from ..utils.api import Client, new_game, play_to_end
from .test_api_accounts import code_for, sign_in

CONTRACT = {"id", "difficulty", "position", "themes", "rating"}


@cache
def shipped() -> dict[str, P.Puzzle]:
    return {key(p.position.to_dict()): p for p in starter_puzzles()}


def key(position: dict[str, Any]) -> str:
    return (
        f"{position['difficulty']}|{position['board']}|{position['dice']}|{position['powers_used']}"
    )


def is_starter(puzzle: dict[str, Any]) -> bool:
    """Whether a puzzle given by the server is one of the starter set's (a server also serves
    the puzzles it found in its players' finished games: a shared test server's depend on what
    the tests before played)."""
    return key(puzzle["position"]) in shipped()


def best_of(puzzle: dict[str, Any]) -> list[Any]:
    """The best plan of a puzzle given by the server (the starter set says it)."""
    return list(shipped()[key(puzzle["position"])].best)


def other_plan(puzzle: dict[str, Any]) -> list[Any] | None:
    """A placement that leaves another board than the best plan, up to the board's symmetries
    (it misses by the margin), or None where every placement is the best's mirror image."""
    position = P.Position.from_dict(puzzle["position"])
    best = P.play_plan(position, best_of(puzzle)).board.cells
    for plan in position.game().turn_plans():
        if _canonical(P.play_plan(position, plan).board.cells) != _canonical(best):
            return plan
    return None


def missing_plan(puzzle: dict[str, Any]) -> list[Any]:
    """:func:`other_plan` of a puzzle that has one (:func:`placing` gives only those)."""
    plan = other_plan(puzzle)
    assert plan is not None, "no other placement"
    return plan


def ok(r: Any, status: int = 200) -> Any:
    assert r.status_code == status, r.text
    return r.json()


def placing(client: Client, difficulty: str = "peaceful") -> Any:
    """The next puzzle that is a roll to place whose best plan is dice placed and CONFIRM (no
    power), with another placement to miss it by."""
    for _ in range(60):
        found = ok(client.get(f"/api/puzzles/next?difficulty={difficulty}"))
        plain = {a["type"] for a in best_of(found)} == {"stage", "confirm"}
        # the puzzle is drawn at random: one whose every placement is a mirror image of the
        # best cannot be missed by a placement, so it is passed over
        if found["view"]["phase"] == "place" and plain and other_plan(found) is not None:
            return found
    raise AssertionError("no placing puzzle")


def attempt(client: Client, puzzle: dict[str, Any], plan: list[Any]) -> Any:
    return ok(client.post(f"/api/puzzles/{puzzle['id']}/attempts", json={"actions": plan}))


def test_the_next_puzzle_keeps_the_contract_and_the_library_reads_its_position(
    client: TestClient,
) -> None:
    found = ok(client.get("/api/puzzles/next?difficulty=survival"))
    assert set(found) >= CONTRACT and found["difficulty"] == "survival"
    game = Game.from_position(**found["position"])
    assert str(game.board) == found["view"]["board"] and found["view"]["staged"] == []
    assert found["rating"] == 1500.0 and found["player_rating"] == 1500.0
    assert set(found["themes"]) <= set(P.THEMES)


def test_a_solved_puzzle_raises_the_rating_and_a_second_try_changes_nothing(
    client: TestClient,
) -> None:
    puzzle = placing(client)
    plan = best_of(puzzle)
    result = attempt(client, puzzle, plan)
    assert result["solved"] and result["rated"]
    assert result["best"] == plan and result["expected"]["yours"] == result["expected"]["best"]
    assert result["player_rating"]["after"] > result["player_rating"]["before"] == 1500.0
    again = attempt(client, puzzle, missing_plan(puzzle))
    assert not again["solved"] and not again["rated"]
    assert again["player_rating"]["before"] == again["player_rating"]["after"]
    me = ok(client.get("/api/players/me/puzzles"))
    assert me["rating"]["rating"] == result["player_rating"]["after"]
    assert me["rating"]["attempts"] == me["rating"]["solved"] == 1
    assert [h["rating"] for h in me["history"]] == [result["player_rating"]["after"]]
    assert me["solved"]["public"]["peaceful"] == {"attempts": 1, "solved": 1}


def test_a_missed_puzzle_shows_the_best_plan_and_lowers_the_rating(client: TestClient) -> None:
    puzzle = placing(client, "nightmare")
    result = attempt(client, puzzle, missing_plan(puzzle))
    assert not result["solved"] and result["rated"]
    assert result["best"] == best_of(puzzle)
    assert result["expected"]["yours"] <= result["expected"]["best"] - P.MARGIN + 0.1
    assert result["player_rating"]["after"] < 1500.0
    position = P.Position.from_dict(puzzle["position"])
    assert result["best_board"] == str(P.play_plan(position, result["best"]).board)
    # what the best does that the plan does not, the two plans compared
    mine = missing_plan(puzzle)
    assert result["differences"] == P.differences(position, mine, result["best"])
    # a new player's miss does not move the puzzle (only established players' attempts do)
    assert result["puzzle_rating"] == 1500.0


def test_a_turn_is_played_on_the_puzzle_one_action_at_a_time(client: TestClient) -> None:
    puzzle = placing(client)
    first = best_of(puzzle)[0]
    view = ok(client.post(f"/api/puzzles/{puzzle['id']}/view", json={"actions": [first]}))
    assert view["staged"] == [first["die"]]
    bad = client.post(f"/api/puzzles/{puzzle['id']}/view", json={"actions": [first, first]})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "die_staged"
    ends = client.post(f"/api/puzzles/{puzzle['id']}/view", json={"actions": [{"type": "confirm"}]})
    assert ends.status_code == 422 and ends.json()["error"]["code"] == "plan_ends_turn"
    path = f"/api/puzzles/{puzzle['id']}/attempts"
    for plan, code in (
        (best_of(puzzle)[:1], "plan_unfinished"),
        ([*best_of(puzzle), {"type": "confirm"}], "plan_too_long"),
    ):
        r = client.post(path, json={"actions": plan})
        assert r.status_code == 422 and r.json()["error"]["code"] == code
    assert attempt(client, puzzle, best_of(puzzle))["rated"]  # nothing was counted before


@pytest.mark.parametrize(
    ("plan", "code"),
    [
        ([{"type": "confirm"}], "below_minimum"),
        ([{"type": "unstage_all"}], "nothing_staged"),
        ([{"type": "roll"}], "wrong_phase"),
    ],
)
def test_an_illegal_plan_is_refused_with_the_rules_code_and_changes_nothing(
    client: TestClient, plan: list[Any], code: str
) -> None:
    puzzle = placing(client)
    r = client.post(f"/api/puzzles/{puzzle['id']}/attempts", json={"actions": plan})
    assert r.status_code == 422 and r.json()["error"]["code"] == code
    assert ok(client.get("/api/players/me/puzzles"))["rating"]["attempts"] == 0
    assert attempt(client, puzzle, best_of(puzzle))["rated"]  # the first try is still to come


def test_only_a_puzzle_given_to_the_player_may_be_played(
    client: TestClient, settings: Settings
) -> None:
    puzzle = placing(client)
    with TestClient(create_app(settings)) as other:
        for r in (
            other.post(f"/api/puzzles/{puzzle['id']}/attempts", json={"actions": best_of(puzzle)}),
            other.get(f"/api/puzzles/{puzzle['id']}"),
            other.post(f"/api/puzzles/{puzzle['id']}/view", json={"actions": []}),
        ):
            assert r.status_code == 404 and r.json()["error"]["code"] == "puzzle_not_found"
    again = ok(client.get(f"/api/puzzles/{puzzle['id']}"))  # the player's own: shown again
    assert again["id"] == puzzle["id"]


def test_a_puzzle_is_never_given_twice_and_themes_are_kept(client: TestClient) -> None:
    seen = [ok(client.get("/api/puzzles/next?difficulty=peaceful"))["id"] for _ in range(25)]
    assert len(set(seen)) == 25
    themed = [ok(client.get("/api/puzzles/next?theme=straight")) for _ in range(5)]
    assert all("straight" in p["themes"] for p in themed)
    r = client.get("/api/puzzles/next?theme=dragons")
    assert r.status_code == 422 and r.json()["error"]["code"] == "unknown_theme"


def test_the_daily_puzzle_is_everybodys(client: TestClient, settings: Settings) -> None:
    mine = ok(client.get("/api/puzzles/daily", headers={"X-Magdagdon-Test-Date": "2026-12-20"}))
    with TestClient(create_app(settings)) as other:
        theirs = ok(
            other.get("/api/puzzles/daily", headers={"X-Magdagdon-Test-Date": "2026-12-20"})
        )
        tomorrow = ok(
            other.get("/api/puzzles/daily", headers={"X-Magdagdon-Test-Date": "2026-12-21"})
        )
    assert mine["id"] == theirs["id"] != tomorrow["id"] and mine["mode"] == "daily"
    assert (mine["date"], tomorrow["date"]) == ("2026-12-20", "2026-12-21")  # said on screen


def test_streak_counts_solves_in_a_row_and_is_not_rated(client: TestClient) -> None:
    for streak in (1, 2, 3):
        puzzle = ok(client.get("/api/puzzles/next?mode=streak&difficulty=survival"))
        assert puzzle["mode"] == "streak"
        result = attempt(client, puzzle, best_of(puzzle))
        assert result["streak"] == streak and not result["rated"]
    me = ok(client.get("/api/players/me/puzzles"))["rating"]
    assert me["best_streak"] == 3 and me["rating"] == 1500.0 and me["attempts"] == 0
    puzzle = placing(client, "survival")  # (a rated one)
    streak_puzzle = ok(client.get("/api/puzzles/next?mode=streak&difficulty=survival"))
    if (
        streak_puzzle["view"]["phase"] == "place"
        and len(Game.from_position(**streak_puzzle["position"]).turn_plans()) > 1
    ):
        assert attempt(client, streak_puzzle, missing_plan(streak_puzzle))["streak"] == 0
    assert puzzle["mode"] == "rated"


def test_my_games_come_newest_first_page_by_page(client: TestClient) -> None:
    finished = []
    for i, difficulty in enumerate(["peaceful", "nightmare", "peaceful"]):
        view = new_game(client, difficulty, seed=40 + i, abandon=True)
        finished.append(play_to_end(client, view)["id"])
    page = ok(client.get("/api/players/me/games?limit=2"))
    assert [g["id"] for g in page["games"]] == finished[::-1][:2] and page["next"] == finished[1]
    rest = ok(client.get(f"/api/players/me/games?limit=2&before={page['next']}"))
    assert [g["id"] for g in rest["games"]] == [finished[0]] and rest["next"] is None
    only = ok(client.get("/api/players/me/games?difficulty=nightmare"))
    assert [g["id"] for g in only["games"]] == [finished[1]]
    assert only["games"][0]["score"] > 0 and only["games"][0]["daily"] is None
    r = client.get("/api/players/me/games?before=nosuchgame")
    assert r.status_code == 404


def test_my_own_games_give_puzzles_of_their_own_rated_apart(client: TestClient) -> None:
    """A player who plays the first placement the view offers loses points to the coach; the
    turns where they lost the most become their own puzzles, searched in the background."""
    view = new_game(client, "nightmare", seed=61, abandon=True)
    play_to_end(client, view)
    for _ in range(2):  # STATISTICS reads the rating only: the games are not searched
        assert not ok(client.get("/api/players/me/puzzles?search=false"))["own"]["searching"]
    me = ok(client.get("/api/players/me/puzzles"))
    assert me["own"]["searching"]
    deadline = time.monotonic() + 600  # (the search runs below the tests' priority)
    while me["own"]["searching"] and time.monotonic() < deadline:
        time.sleep(0.5)
        me = ok(client.get("/api/players/me/puzzles"))
    assert not me["own"]["searching"] and me["own"]["left"] >= 1
    own = ok(client.get("/api/puzzles/next?mode=own&difficulty=nightmare"))
    assert own["mode"] == "own"
    result = attempt(client, own, _any_plan(own))
    assert result["rated"]
    after = ok(client.get("/api/players/me/puzzles"))
    assert after["own"]["attempts"] == 1 and after["rating"]["attempts"] == 0  # rated apart
    assert after["rating"]["rating"] == 1500.0


def _any_plan(puzzle: dict[str, Any]) -> list[Any]:
    game = Game.from_position(**puzzle["position"])
    plans = game.turn_plans()
    if plans:
        return plans[0]
    return [{"type": "accept_magdagdon", "cell": game.ruin_choices[0]}]


def test_puzzles_join_the_export_the_deletion_and_the_merge(
    client: TestClient, settings: Settings
) -> None:
    with TestClient(create_app(settings)) as phone:
        puzzle = placing(phone)
        attempt(phone, puzzle, best_of(puzzle))
        code = code_for(client)  # the laptop is the account
        sign_in(phone, code)
        me = ok(phone.get("/api/players/me/puzzles"))
        assert me["rating"]["attempts"] == 1 and me["rating"]["rating"] > 1500.0
        assert attempt(phone, puzzle, best_of(puzzle))["rated"] is False  # tried on the phone
        exported = ok(client.get("/api/players/me/export"))["puzzles"]
        assert [a["puzzle_id"] for a in exported["attempts"]] == [puzzle["id"], puzzle["id"]]
        assert exported["ratings"][0]["pool"] == "public"
        assert client.delete("/api/players/me").status_code == 204
    engine = create_engine(settings.database_url)
    with engine.connect() as c:
        for table in ("puzzle_attempts", "puzzle_ratings", "puzzle_served"):
            assert c.execute(text(f"SELECT count(*) FROM {table}")).scalar() == 0, table
    engine.dispose()


def test_puzzles_given_and_attempted_are_rate_limited(settings: Settings) -> None:
    limited = settings.model_copy(update={"rate_limits": True, "player_puzzles_per_hour": 8})
    with TestClient(create_app(limited)) as c:
        answers = [c.get("/api/puzzles/next").status_code for _ in range(4)]
    assert answers[:2] == [200, 200] and answers[-1] == 429


def test_a_pool_holds_one_puzzle_a_position_up_to_the_boards_symmetries(
    client: TestClient,
) -> None:
    """A game's puzzle whose position the public pool holds already, mirrored, with the dice
    in another order, on another turn, is not added; the player's own pool is apart (issue 44,
    item 3: one puzzle per position, as the starter set is made)."""
    from dataclasses import replace

    from magdagdon.ai import puzzlecheck as C
    from magdagdon.store.models import players
    from magdagdon.store.puzzles import insert_puzzles, puzzle_shape

    ok(client.get("/api/puzzles/next"))  # (the player, and the starter set loaded)
    starter = next(p for p in starter_puzzles() if len(set(p.position.dice)) > 1)
    rows = starter.position.board.split("/")
    mirrored = replace(
        starter.position,
        board="/".join(row[::-1] for row in rows),
        dice=tuple(reversed(starter.position.dice)),
        turns=starter.position.turns + 1,
    )
    assert mirrored != starter.position
    assert C.position_key(mirrored) == C.position_key(starter.position)
    assert puzzle_shape(mirrored) == puzzle_shape(starter.position)
    found = replace(starter, position=mirrored, source="game")
    store = client.app.state.store  # type: ignore[attr-defined]
    with store.db.transaction(write=True) as c:
        player = c.execute(select(players.c.id)).scalars().first()
        assert insert_puzzles(c, [found]) == 0  # the public pool has it
        assert insert_puzzles(c, [found], owner=player) == 1  # the player's own pool has not
        assert insert_puzzles(c, [replace(found, position=starter.position)], owner=player) == 0
    # shapes tell positions apart as the puzzle check does
    sample = random.Random(44).sample(starter_puzzles(), 300)
    by_key = {C.position_key(p.position) for p in sample}
    assert len({puzzle_shape(p.position) for p in sample}) == len(by_key)
