"""History: the action log, to_dict / from_dict round trips, and replay from seed (R14)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from magdagdon.ai.random_player import play_game, play_turn
from magdagdon.engine import Difficulty, Game, Phase

from ..positions import game_at
from ..strategies import chaotic_turn


def test_round_trip_mid_turn() -> None:
    game = game_at("..../..../..../....", (3, 4, 4, 5))
    game.stage(0, 5)
    data = game.to_dict()
    restored = Game.from_dict(json.loads(json.dumps(data)))
    assert restored.to_dict() == data
    assert restored.dice == game.dice and restored.board == game.board


def test_from_dict_rejects_a_log_the_rules_reject() -> None:
    game = Game.new("peaceful", seed=3)
    data = game.to_dict()
    data["actions"] = [{"type": "confirm"}]
    data.pop("state")
    with pytest.raises(ValueError, match="action 0"):
        Game.from_dict(data)


def test_from_dict_rejects_a_state_that_does_not_match() -> None:
    game = Game.new("peaceful", seed=3)
    game.roll()
    data = game.to_dict()
    data["state"]["powers_used"] = 2
    with pytest.raises(ValueError, match="does not match"):
        Game.from_dict(data)


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"difficulty": "peaceful"},
        {"difficulty": "easy", "seed": "00", "actions": []},
        {"difficulty": "peaceful", "seed": "zz", "actions": []},
        {"difficulty": "peaceful", "seed": "00", "actions": [], "format": 99},
    ],
)
def test_from_dict_rejects_garbage(data: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        Game.from_dict(data)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(list(Difficulty)))
def test_replaying_seed_and_log_reproduces_the_finished_game(
    seed: int, difficulty: Difficulty
) -> None:
    game = play_game(Game.new(difficulty, seed=seed), random.Random(seed))
    again = Game.replay(difficulty, game.seed, game.actions)
    assert again.to_dict() == game.to_dict()
    assert again.score() == game.score()
    assert again.phase is Phase.OVER


def test_replay_takes_the_hex_seed_a_finished_games_replay_gives() -> None:
    game = play_game(Game.new("survival", seed=2024), random.Random(5))
    published: dict[str, Any] = {
        "difficulty": "survival",
        "seed": game.seed.hex(),
        "actions": game.actions,
    }
    again = Game.replay(published["difficulty"], published["seed"], published["actions"])
    assert again.to_dict() == game.to_dict()
    upper = Game.replay("survival", game.seed.hex().upper(), game.actions)
    assert upper.score() == game.score()


@pytest.mark.parametrize("seed", ["xyz", "abc", "12 3", "0x1f"])
def test_replay_refuses_a_seed_string_that_is_not_hex(seed: str) -> None:
    with pytest.raises(ValueError, match="a seed string must be hexadecimal"):
        Game.replay("peaceful", seed, [])


def test_copy_is_independent() -> None:
    game = Game.new("nightmare", seed=11)
    rng = random.Random(1)
    play_turn(game, rng)
    snapshot = game.to_dict()
    clone = game.copy()
    play_turn(clone, rng)
    assert game.to_dict() == snapshot
    assert clone.turns == game.turns + 1


def _states(game: Game) -> tuple[object, ...]:
    return (game.state(), game.turn_actions, game.score(include_staged=True), game.dead_end)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(list(Difficulty)), st.integers(0, 400))
def test_a_restored_snapshot_continues_exactly_like_the_game(
    seed: int, difficulty: Difficulty, cut: int
) -> None:
    """Restoring a snapshot taken at any action (mid-turn, after powers and rerolls) gives a
    game that answers every later action exactly as the original did: the same dice, the
    same rerolled values, the same state after each action."""
    game = Game.new(difficulty, seed=seed)
    rng = random.Random(seed)
    while game.phase is not Phase.OVER:
        chaotic_turn(game, rng)
    cut = min(cut, len(game.actions))
    before = Game.replay(difficulty, game.seed, game.actions[:cut])
    restored = Game.restore(difficulty, game.seed, json.loads(json.dumps(before.snapshot())))
    assert restored.actions == []
    assert _states(restored) == _states(before)
    for action in game.actions[cut:]:
        before.apply(action)
        restored.apply(action)
        assert _states(restored) == _states(before)
    assert restored.actions == game.actions[cut:]
    assert restored.to_dict()["state"] == game.to_dict()["state"]


def test_turn_actions_counts_the_actions_since_roll() -> None:
    game = game_at("..../..../..../....", (3, 4, 4, 5))
    assert game.turn_actions == 1
    game.stage(0, 5)
    game.unstage_all()
    game.stage(1, 5)
    game.stage(2, 6)
    assert game.turn_actions == 5
    game.confirm()
    assert game.turn_actions == 0


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda s: s.pop("next_slot"), "not a game snapshot"),
        (lambda s: s.update(phase="thinking"), "not a game snapshot"),
        (lambda s: s.update(board="xx"), "not a game snapshot"),
        (lambda s: s.update(dice=s["dice"][:3]), "four dice"),
        (lambda s: s["dice"][0].update(value=7), "die values"),
        (lambda s: s["dice"][0].update(cell=16), "squares 0-15"),
        (lambda s: s.update(staged=[]), "staged dice"),
        (lambda s: (s["dice"][1].update(cell=5), s.update(staged=[0, 1])), "one die per square"),
        (lambda s: s.update(board="..../.4../..../...."), "staged on empty squares"),
        (lambda s: s.update(powers_used=4), "powers used"),
        (lambda s: s.update(required=0), "the required dice"),
        (lambda s: s.update(phase="over"), "four dice"),
        (lambda s: s.update(next_slot=2), "counters"),
    ],
)
def test_restore_rejects_what_is_no_snapshot(change: Any, problem: str) -> None:
    game = game_at("..../..../..../....", (3, 4, 4, 5))
    game.stage(0, 5)
    snapshot = game.snapshot()
    change(snapshot)
    with pytest.raises(ValueError, match=problem):
        Game.restore("peaceful", game.seed, snapshot)
