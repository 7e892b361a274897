"""The heuristic player: its board features, its choices, and that it beats greedy."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from magdagdon.ai.heuristic import HeuristicPlayer, board_value
from magdagdon.ai.registry import make_player
from magdagdon.ai.simulate import play
from magdagdon.engine import Board, Difficulty, Game, Phase
from magdagdon.engine.placement import allowed_values

from ..positions import game_at


def test_allowed_values_respect_every_neighbour() -> None:
    board = Board.parse("..../.3.4/..../....")
    assert allowed_values(board, 6) == {3, 4}
    assert allowed_values(board, 3) == {3, 4, 5}  # touches only the 4 below
    assert allowed_values(Board.parse("2.5./..../..../...."), 1) == frozenset()


def test_a_square_that_can_never_be_filled_costs_a_ruin() -> None:
    fine = board_value(Board.parse("3.4./..../..../...."))  # same sum as 2 and 5
    dead = board_value(Board.parse("2.5./..../..../...."))
    assert fine - dead > 15


def test_a_line_that_can_still_become_a_straight_is_worth_more() -> None:
    open_straight = board_value(Board.parse("123./..../..../...."))
    blocked = board_value(Board.parse("123X/..../..../...."))
    assert open_straight > blocked + 15  # the ruin's 15 points and the lost STRAIGHT


def test_it_builds_the_straight() -> None:
    game = game_at("123./..../..../....", (4, 6, 6, 1))
    actions = HeuristicPlayer().turn(game)
    for action in actions:
        game.apply(action)
    assert str(game.board).startswith("1234")


def test_it_uses_a_power_only_when_worth_its_cost() -> None:
    stuck = game_at("3.../..../..../....", (1, 6, 6, 1), "peaceful")
    assert stuck.phase is Phase.MAGDAGDON
    assert HeuristicPlayer().turn(stuck)[0]["type"] in ("adjust", "accept_magdagdon")
    survival = game_at("3.../..../..../....", (1, 6, 6, 1), "survival")
    # SURVIVAL's one power costs 70: a ruin early on is cheaper
    assert HeuristicPlayer().turn(survival)[0]["type"] == "accept_magdagdon"


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(list(Difficulty)))
def test_it_finishes_games_with_legal_actions(seed: int, difficulty: Difficulty) -> None:
    game = Game.new(difficulty, seed=seed)
    play(game, make_player("heuristic"))
    assert game.phase is Phase.OVER


def test_it_beats_greedy_on_the_same_seeds() -> None:
    """Deterministic: 25 fixed NIGHTMARE seeds, a regression check."""
    means = {}
    for bot in ("greedy", "heuristic"):
        scores = []
        for i in range(25):
            game = Game.new("nightmare", seed=20_000 + i)
            play(game, make_player(bot))
            scores.append(game.score().total)
        means[bot] = sum(scores) / len(scores)
    assert means["heuristic"] > means["greedy"] + 40, means
