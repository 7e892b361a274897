"""magdagdon.spiel: OpenSpiel's own tests (random simulation with serialisation, every state
of small positions), and the return is the engine's score."""

from __future__ import annotations

import doctest
import random
from typing import Any

import numpy as np
import pytest

from magdagdon.engine import Board, score_board

pyspiel = pytest.importorskip("pyspiel")
mspiel = pytest.importorskip("magdagdon.spiel")
get_all_states = pytest.importorskip("open_spiel.python.algorithms.get_all_states")

LEVELS = ["peaceful", "survival", "nightmare"]


@pytest.mark.parametrize("rewards", ["steps", "terminal"])
@pytest.mark.parametrize("difficulty", LEVELS)
@pytest.mark.parametrize("turn_level", [False, True])
def test_openspiels_random_simulation_passes(
    difficulty: str, turn_level: bool, rewards: str
) -> None:
    """Every setup of both reward forms passes OpenSpiel's own random simulation test, with
    serialisation (in the terminal form it once failed: returns() showed the running score
    while the rewards so far were 0, and OpenSpiel checks that they are equal)."""
    params = {"difficulty": difficulty, "turn_level": turn_level, "rewards": rewards}
    game = pyspiel.load_game("python_magdagdon", params)
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
    ends = {str(s.game.board): s.returns()[0] for s in states.values() if s.is_terminal()}
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
        assert state.returns() == [state.game.score().total]
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
    state, running = terminal.new_initial_state(), set()
    while not state.is_terminal():
        assert state.rewards() == [0.0]
        assert state.returns() == [0.0]  # the rewards so far, as OpenSpiel asks
        running.add(state.score_gained())  # the running score, shown in either form
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert state.rewards() == state.returns() and state.returns()[0] != 0.0
    assert state.returns() == [state.score_gained()] and len(running) > 1
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


def _engines(params: dict[str, object]) -> tuple[Any, Any]:
    return tuple(
        pyspiel.load_game("python_magdagdon", {**params, "engine": e}) for e in ("c", "python")
    )


@pytest.mark.parametrize("difficulty", LEVELS)
@pytest.mark.parametrize("turn_level", [False, True])
def test_the_c_engine_plays_the_same_game_as_the_python_one(
    difficulty: str, turn_level: bool
) -> None:
    """The C fast path (the default where it is built) and the pure-Python engine: the same
    legal ids, chance outcomes, strings, tensors, action names and rewards, step by step
    (powers, REROLLs and RUINS included: random play at die level meets them all)."""
    from magdagdon.engine import fast

    if not fast.AVAILABLE:
        pytest.skip("the C fast path is not built")
    rng = random.Random(hash((difficulty, turn_level)) & 0xFFFF)
    for params in (
        {"difficulty": difficulty, "turn_level": turn_level},
        {
            "difficulty": difficulty,
            "turn_level": turn_level,
            "board": "12../.3X./..../6...",
            "powers_used": 0 if difficulty == "nightmare" else 1,
        },
    ):
        quick_game, slow_game = _engines(params)
        assert quick_game.use_fast and not slow_game.use_fast
        for _ in range(3):
            quick, slow = quick_game.new_initial_state(), slow_game.new_initial_state()
            while True:
                assert quick.current_player() == slow.current_player()
                assert str(quick) == str(slow)
                assert quick.rewards() == slow.rewards() and quick.returns() == slow.returns()
                if quick.is_terminal():
                    break
                assert quick.observation_string(0) == slow.observation_string(0)
                assert quick.information_state_string(0) == slow.information_state_string(0)
                assert quick.observation_tensor(0) == slow.observation_tensor(0)
                if quick.is_chance_node():
                    assert quick.chance_outcomes() == slow.chance_outcomes()
                    outcomes, probabilities = zip(*quick.chance_outcomes(), strict=True)
                    action = rng.choices(outcomes, probabilities)[0]
                else:
                    legal = quick.legal_actions()
                    assert legal == slow.legal_actions()
                    action = rng.choice(legal)
                player = quick.current_player()
                assert quick.action_to_string(player, action) == slow.action_to_string(
                    player, action
                )
                quick.apply_action(action)
                slow.apply_action(action)
            assert quick.game.state() == slow.game.state()


def test_the_engine_parameter_is_checked() -> None:
    with pytest.raises(ValueError, match="engine is one of"):
        pyspiel.load_game("python_magdagdon", {"engine": "rust"})
    assert not pyspiel.load_game("python_magdagdon", {"engine": "python"}).use_fast


def test_rewards_read_at_decisions_sum_to_the_return() -> None:
    """As the module says: rewards() is the change since the last decision node, read at
    decision nodes and at the end (as OpenSpiel's random_sim_test reads it)."""
    rng = random.Random(7)
    for turn_level in (False, True):
        game = pyspiel.load_game("python_magdagdon", {"turn_level": turn_level})
        state, total = game.new_initial_state(), 0.0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probabilities)[0])
                continue
            total += state.rewards()[0]
            state.apply_action(rng.choice(state.legal_actions()))
        total += state.rewards()[0]
        assert total == state.returns()[0] == state.game.score().total


def test_the_information_state_has_perfect_recall() -> None:
    """Two histories that reach the same position (a die staged and taken back, or not)
    share the observation but not the information state, which is the history; the game
    declares no information-state tensor (the observation tensor is the one to learn
    from)."""
    game = pyspiel.load_game("python_magdagdon")
    assert not game.get_type().provides_information_state_tensor
    straight, detour = game.new_initial_state(), game.new_initial_state()
    for state in (straight, detour):
        state.apply_action(0)
    first = straight.legal_actions()[0]
    detour.apply_action(first)
    detour.apply_action(next(a for a in detour.legal_actions() if 97 <= a < 113))
    straight.apply_action(first)
    detour.apply_action(first)
    assert (
        straight.observation_string(0).split("actions=")[0]
        == detour.observation_string(0).split("actions=")[0]
    )
    assert straight.observation_tensor(0)[:-20] == detour.observation_tensor(0)[:-20]
    recall = straight.information_state_string(0)
    assert recall != detour.information_state_string(0)
    assert recall.endswith("history " + " ".join(map(str, straight.history())))
    observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    assert observer.tensor is None
    assert observer.string_from(straight, 0) == recall


def test_the_information_state_tensor_is_refused_not_empty() -> None:
    """The game declares no information-state tensor: asking for one is a SpielError that
    says where to look (it once gave [] silently), and OpenSpiel's rl_environment learns
    from the observation tensor."""
    from open_spiel.python import rl_environment

    game = pyspiel.load_game("python_magdagdon", {"difficulty": "nightmare"})
    state = game.new_initial_state()
    state.apply_action(125)
    for ask in (
        lambda: state.information_state_tensor(0),
        lambda: state.information_state_tensor(),
        game.information_state_tensor_shape,
    ):
        with pytest.raises(pyspiel.SpielError, match="observation_tensor"):
            ask()
    assert len(state.observation_tensor(0)) == 269
    step = rl_environment.Environment(game).reset()
    assert len(step.observations["info_state"][0]) == 269


def test_the_raw_cpp_mcts_bot_warns_on_a_python_game() -> None:
    """pyspiel.MCTSBot's step() crashes on a game written in Python (upstream): made on one,
    it warns and names the wrapper; on OpenSpiel's C++ games, and inside CppMCTSBot, it
    says nothing."""
    import warnings

    import open_spiel.python.games  # noqa: F401 - registers python_tic_tac_toe

    evaluator = pyspiel.RandomRolloutEvaluator(1, 0)
    for name, params in (("python_magdagdon", ENDING), ("python_tic_tac_toe", {})):
        game = pyspiel.load_game(name, params)
        assert mspiel.is_python_game(game)
        with pytest.warns(RuntimeWarning, match="CppMCTSBot") as caught:
            bot = pyspiel.MCTSBot(game, evaluator, 2.0, 5, 10**6, False, 0, False)
        assert caught[0].filename == __file__  # the warning points at the caller's line
        state = game.new_initial_state()
        if state.is_chance_node():
            state.apply_action(125)
        assert bot.step_with_policy(state)[1] in state.legal_actions()
    cpp_game = pyspiel.load_game("tic_tac_toe")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not mspiel.is_python_game(cpp_game)
        bot = pyspiel.MCTSBot(cpp_game, evaluator, 2.0, 5, 10**6, False, 0, False)
        assert bot.step(cpp_game.new_initial_state()) in range(9)
        mspiel.CppMCTSBot(pyspiel.load_game("python_magdagdon", ENDING), simulations=5)
    assert isinstance(bot, pyspiel.MCTSBot)


@pytest.mark.parametrize("turn_level", [False, True])
def test_openspiels_cpp_mcts_plays_it_through_the_wrapper(turn_level: bool) -> None:
    """OpenSpiel's C++ MCTS searches this Python game through CppMCTSBot (its step()
    would crash: see the class), and evaluate_bots plays a game to the end with it."""
    from open_spiel.python.algorithms import evaluate_bots

    params = {**ENDING, "turn_level": turn_level}
    game = pyspiel.load_game("python_magdagdon", params)
    bot = mspiel.CppMCTSBot(game, simulations=30, seed=2)
    state = game.new_initial_state()
    state.apply_action(125)
    policy, action = bot.step_with_policy(state)
    assert action in state.legal_actions() and abs(sum(p for _, p in policy) - 1) < 1e-9
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), [bot], np.random.RandomState(1))
    start = score_board(Board.parse(ENDING["board"])).total
    assert len(returns) == 1 and mspiel.MIN_SCORE <= start + returns[0] <= mspiel.MAX_SCORE
    with pytest.raises(pyspiel.SpielError, match="terminal rewards"):
        mspiel.CppMCTSBot(pyspiel.load_game("python_magdagdon"), simulations=5)


def test_openspiels_python_mcts_plays_a_whole_game() -> None:
    """The Python MCTS bot plays a whole NIGHTMARE game at turn level, on the C path."""
    from open_spiel.python.algorithms import evaluate_bots, mcts

    game = pyspiel.load_game(
        "python_magdagdon", {"difficulty": "nightmare", "turn_level": True, "rewards": "terminal"}
    )
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(3))
    bot = mcts.MCTSBot(game, 2, 8, evaluator, random_state=np.random.RandomState(4))
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), [bot], np.random.RandomState(5))
    assert mspiel.MIN_SCORE <= returns[0] <= mspiel.MAX_SCORE
