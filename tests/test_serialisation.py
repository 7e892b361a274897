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

from .positions import game_at


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
