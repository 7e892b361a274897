"""magdagdon.spiel: OpenSpiel's own tests (random simulation with serialisation, every state
of small positions), and the return is the engine's score."""

from __future__ import annotations

import doctest
import random

import numpy as np
import pytest

from magdagdon.engine import Board, score_board

pyspiel = pytest.importorskip("pyspiel")
mspiel = pytest.importorskip("magdagdon.spiel")
get_all_states = pytest.importorskip("open_spiel.python.algorithms.get_all_states")

LEVELS = ["peaceful", "survival", "nightmare"]


@pytest.mark.parametrize("difficulty", LEVELS)
@pytest.mark.parametrize("turn_level", [False, True])
def test_openspiels_random_simulation_passes(difficulty: str, turn_level: bool) -> None:
    game = pyspiel.load_game(
        "python_magdagdon", {"difficulty": difficulty, "turn_level": turn_level}
    )
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_every_state_of_small_positions() -> None:
    # Turn level, the last square of a NIGHTMARE board: a state for each of the 126 rolls
    # (a 5 or a 6 fits between the 6 above and the 5 beside, else MAGDAGDON), then the
    # three ends: a 5, a 6 or a RUIN.
    start = "3456/3456/3456/345."
    game = pyspiel.load_game(
        "python_magdagdon", {"difficulty": "nightmare", "turn_level": True, "board": start}
    )
    states = get_all_states.get_all_states(game, to_string=str)
    ends = {str(s.play.game.board): s.returns()[0] for s in states.values() if s.is_terminal()}
    assert len(states) == 126 + 3
    before = score_board(Board.parse(start)).total
    assert ends == {
        f"3456/3456/3456/345{v}": score_board(Board.parse(f"3456/3456/3456/345{v}")).total - before
        for v in "56X"
    }
    # Die level: every state of the first four moves, staging and taking back included.
    game = pyspiel.load_game("python_magdagdon", {"difficulty": "nightmare", "board": start})
    states = get_all_states.get_all_states(game, depth_limit=4, to_string=str)
    assert len(states) > 126 + 3


def test_the_return_is_the_engines_score() -> None:
    rng = random.Random(0)
    for turn_level in (False, True):
        game = pyspiel.load_game("python_magdagdon", {"turn_level": turn_level})
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probabilities)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        assert state.returns() == [state.play.game.score().total]
        again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
        assert str(again) == str(state) and again.returns() == state.returns()
        assert len(state.observation_tensor(0)) == 269
        assert state.information_state_string(0).startswith("PEACEFUL")


def test_the_modules_examples_run() -> None:
    assert doctest.testmod(mspiel).failed == 0


ENDING = {"board": "3456/3456/3456/34..", "rewards": "terminal"}
"""The last two squares of a PEACEFUL board, in OpenSpiel's terminal-reward form."""


def test_the_terminal_reward_form_declares_itself_and_pays_at_the_end() -> None:
    steps = pyspiel.load_game("python_magdagdon")
    terminal = pyspiel.load_game("python_magdagdon", {"rewards": "terminal"})
    assert steps.get_type().reward_model == pyspiel.GameType.RewardModel.REWARDS
    assert terminal.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
    rng = random.Random(4)
    state = terminal.new_initial_state()
    while not state.is_terminal():
        assert state.rewards() == [0.0]
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert state.rewards() == state.returns() and state.returns()[0] != 0.0
    with pytest.raises(ValueError, match="rewards is one of"):
        pyspiel.load_game("python_magdagdon", {"rewards": "sometimes"})


def test_openspiels_mcts_bot_plays_it_to_the_end() -> None:
    """OpenSpiel's own MCTS bot refused the step-reward form ("Game must have terminal
    rewards"); it plays the terminal one, through evaluate_bots too."""
    from open_spiel.python.algorithms import evaluate_bots, mcts

    game = pyspiel.load_game("python_magdagdon", ENDING)
    bot = mcts.MCTSBot(game, 2, 20, mcts.RandomRolloutEvaluator(1, np.random.RandomState(3)))
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), [bot], np.random.RandomState(5))
    # the return is the score gained from the start: the two last squares' worth
    start = score_board(Board.parse(ENDING["board"])).total
    assert len(returns) == 1 and mspiel.MIN_SCORE <= start + returns[0] <= mspiel.MAX_SCORE
    with pytest.raises(ValueError, match="terminal rewards"):
        mcts.MCTSBot(pyspiel.load_game("python_magdagdon"), 2, 20, mcts.RandomRolloutEvaluator(1))
