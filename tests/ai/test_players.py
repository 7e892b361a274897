"""Players: every turn they return is legal, and they finish every game."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from magdagdon.ai.players import GreedyPlayer, RandomPlayer
from magdagdon.ai.registry import make_player
from magdagdon.ai.simulate import play
from magdagdon.engine import Difficulty, Game, Phase, perft, score_board

from ..positions import game_at


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**32), st.sampled_from(list(Difficulty)), st.sampled_from(["random", "greedy"])
)
def test_players_finish_every_game_with_legal_actions(
    seed: int, difficulty: Difficulty, bot: str
) -> None:
    game = Game.new(difficulty, seed=seed)
    play(game, make_player(bot, seed))  # Game.apply raises on any illegal action
    assert game.phase is Phase.OVER and game.board.is_full


def test_a_turn_is_roll_then_placement_or_ruin() -> None:
    game = Game.new("peaceful", seed=4)
    assert GreedyPlayer().turn(game) == [{"type": "roll"}]
    placeable = game_at("..../..../..../....", (3, 4, 5, 1))
    actions = GreedyPlayer().turn(placeable)
    assert [a["type"] for a in actions] == ["stage", "stage", "stage", "confirm"]
    stuck = game_at("3.../..../..../....", (1, 6, 6, 1))
    assert stuck.phase is Phase.MAGDAGDON
    assert GreedyPlayer().turn(stuck) == [{"type": "accept_magdagdon", "cell": 1}]


def test_greedy_takes_the_most_dice_then_the_best_score() -> None:
    game = game_at("..../..../..../....", (3, 4, 5, 6))
    for action in GreedyPlayer().turn(game):
        game.apply(action)
    assert game.board.numbers.bit_count() == 4
    # four dice in a row or column make a STRAIGHT: the best immediate score
    assert score_board(game.board).bonuses == 60


def test_greedy_starts_over_when_dice_are_staged() -> None:
    game = game_at("..../..../..../....", (3, 4, 5, 6))
    game.stage(0, 15)
    actions = GreedyPlayer().turn(game)
    assert actions[0] == {"type": "unstage_all"}
    for action in actions:
        game.apply(action)
    assert game.turns == 1


@pytest.mark.slow  # (make check leaves it out)
def test_random_is_uniform_over_staged_results() -> None:
    game = game_at("..../.34./..../....", (3, 4, 5, 6))
    total = perft(game.board, [3, 4, 5, 6], 2)
    seen = set()
    player = RandomPlayer(random.Random(5))
    for _ in range(4000):
        order = [(a["die"], a["cell"]) for a in player.turn(game) if a["type"] == "stage"]
        seen.add(frozenset((game.dice[d].value, c) for d, c in order))
    assert len(seen) == total  # every result is reachable (497 of them, 4000 draws)


def test_unknown_player_name() -> None:
    with pytest.raises(ValueError, match="unknown player"):
        make_player("oracle")


def test_greedy_beats_random_on_the_same_seeds() -> None:
    """Deterministic: 40 fixed seeds, so this is a regression check, not a gamble."""
    totals = {}
    for bot in ("random", "greedy"):
        scores = []
        for i in range(40):
            game = Game.new("nightmare", seed=10_000 + i)
            play(game, make_player(bot, seed=i))
            scores.append(game.score().total)
        totals[bot] = sum(scores) / len(scores)
    assert totals["greedy"] > totals["random"] + 30, totals
