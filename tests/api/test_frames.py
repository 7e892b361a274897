"""The replay viewer's frames: the game's story told again by the engine, one roll, power,
placed die or RUIN a frame, ending where the game ended."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import pairwise

from fastapi.testclient import TestClient
from hypothesis import given, settings

from magdagdon.engine import EMPTY, RUIN, Board, Game, score_board
from magdagdon.store import GameRow, GameStatus
from magdagdon.web.frames import replay_frames

from ..strategies import chaotic_games
from ..utils.api import new_game, play_to_end


def row_of(game: Game) -> GameRow:
    """A finished game as the store hands it out."""
    now = datetime.now(UTC)
    return GameRow("g", 1, game.difficulty, 1, GameStatus.OVER, 0, now, now, game)


def changed_squares(before: str, after: str) -> list[tuple[int, str, str]]:
    a, b = before.replace("/", ""), after.replace("/", "")
    return [(i, x, y) for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]


@settings(max_examples=60, deadline=None)
@given(chaotic_games())
def test_frames_tell_the_whole_game_and_nothing_else(game: Game) -> None:
    frames = replay_frames(row_of(game))
    assert frames[0].kind == "start" and frames[0].board == "..../..../..../...."
    last = frames[-1]
    assert last.kind == "end" and last.phase == "over"
    assert last.board == str(game.board)
    assert last.score == game.score().total
    assert last.powers_used == game.powers_used and last.turn == game.turns
    kinds = [f.kind for f in frames]
    assert kinds.count("roll") == game.turns
    assert kinds.count("place") == sum(1 for sq in range(16) if game.board[sq] not in (EMPTY, RUIN))
    assert kinds.count("ruin") == game.board.ruin_count
    powers = sum(1 for a in game.actions if a["type"] in ("adjust", "reroll"))
    assert kinds.count("adjust") + kinds.count("reroll") == powers
    for before, frame in pairwise(frames):
        changes = changed_squares(before.board, frame.board)
        if frame.kind == "place":  # one die lands on an empty square, with its value
            assert changes == [(frame.cell, ".", str(frame.value))]
            assert frame.value == frame.dice[frame.changed[0]]
        elif frame.kind == "ruin":
            assert changes == [(frame.cell, ".", "X")]
        else:
            assert changes == []
        if frame.kind in ("adjust", "reroll"):
            assert frame.powers_used == before.powers_used + 1
        assert frame.turn >= before.turn
    for frame in frames:  # each line's sum and bonus are its board's
        lines = score_board(Board.parse(frame.board))
        assert [r.model_dump() for r in frame.rows] == [r.to_dict() for r in lines.rows]
        assert [c.model_dump() for c in frame.columns] == [c.to_dict() for c in lines.columns]


def test_a_finished_game_is_watchable_by_anyone_with_the_link(client: TestClient) -> None:
    view = play_to_end(client, new_game(client, "survival", seed=11), use_power=True)
    client.put("/api/players/me", json={"name": "Mari"})
    with TestClient(client.app) as stranger:
        watched = stranger.get(f"/api/games/{view['id']}/frames").json()
    assert watched["id"] == view["id"] and watched["name"] == "Mari"
    assert watched["difficulty"] == "survival" and watched["daily"] is None
    assert watched["score"] == view["final_score"]["total"] == watched["frames"][-1]["score"]
    assert watched["turns"] == view["turns"]
    assert watched["powers_total"] == 1  # SURVIVAL's one Majda Power
    assert "seed" not in str(watched)


def test_frames_say_whether_the_difficulty_has_powers(client: TestClient) -> None:
    """The viewer showed "Powers 0" in NIGHTMARE, which has none: the frames say how many
    Majda Powers the game's difficulty gives (the engine's), and the viewer shows no count
    when it is 0."""
    for difficulty, powers in (("peaceful", 3), ("nightmare", 0)):
        view = play_to_end(client, new_game(client, difficulty, seed=12), use_power=True)
        watched = client.get(f"/api/games/{view['id']}/frames").json()
        assert watched["powers_total"] == view["powers_total"] == powers


def test_an_unfinished_game_is_not_watchable(client: TestClient) -> None:
    view = new_game(client, "peaceful", seed=1)
    r = client.get(f"/api/games/{view['id']}/frames")
    assert r.status_code == 409 and r.json()["error"]["code"] == "game_not_over"
    with TestClient(client.app) as stranger:
        r = stranger.get(f"/api/games/{view['id']}/frames")
        assert r.status_code == 404 and r.json()["error"]["code"] == "game_not_found"
        assert stranger.get("/api/games/nothing/frames").status_code == 404
