"""MAGDAGDON as an OpenSpiel game: ``pip install 'magdagdon[spiel]'``, then

>>> import pyspiel
>>> import magdagdon.spiel
>>> game = pyspiel.load_game("python_magdagdon", {"difficulty": "nightmare"})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())
(True, 126)
>>> state.apply_action(125); state.legal_actions()[:3]
[81, 82, 83]

One player against chance. Chance nodes are the ROLLs and the REROLLs: outcome ``k`` is
``magdagdon.engine.dice.outcomes(n)[k]`` (the distinct sorted results of ``n`` dice, with
their probabilities). The decisions are the ids of :mod:`magdagdon.engine.encoding`: die
level, or with ``turn_level=True`` one id per legal staged set besides the powers and the
RUINS. The reward of a step is the change of the engine's score, so the return is the final
score. The game is finite (R17): at most :data:`~magdagdon.engine.MAX_GAME_ACTIONS`
decisions at die level.

Parameters: ``difficulty`` (``"peaceful"``, ``"survival"``, ``"nightmare"``), ``turn_level``
(bool), ``board`` (the board to start from, in the engine's notation, e.g. an end-game
position ``"3456/3456/3456/34.."``), ``powers_used``, and ``rewards``: ``"steps"`` (the
default: a reward at every step, the change of the score) or ``"terminal"`` (OpenSpiel's
terminal-reward form, which its MCTS bots ask for: no reward until the end, then the whole
return).

>>> from open_spiel.python.algorithms import mcts
>>> ending = pyspiel.load_game("python_magdagdon",
...                            {"board": "3456/3456/3456/34..", "rewards": "terminal"})
>>> bot = mcts.MCTSBot(ending, 2, 10, mcts.RandomRolloutEvaluator(1))
>>> state = ending.new_initial_state(); state.apply_action(125)
>>> bot.step(state) in state.legal_actions()
True
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import pyspiel

from .engine import MAX_GAME_ACTIONS, Board, Difficulty, Game
from .engine import encoding as enc
from .engine.dice import outcomes

SHORT_NAME: Final = "python_magdagdon"
_DEFAULT_PARAMS: Final[dict[str, Any]] = {
    "difficulty": "peaceful",
    "turn_level": False,
    "board": "..../..../..../....",
    "powers_used": 0,
    "rewards": "steps",
}
MIN_SCORE: Final = -15 * 16 - 70
"""No score is lower: sixteen RUINS and the dearest powers."""
MAX_SCORE: Final = 2 * 6 * 16 + 8 * 60
"""No score is higher: sixes everywhere (each counts twice) and a STRAIGHT on every line."""

REWARD_MODELS: Final = {
    "steps": pyspiel.GameType.RewardModel.REWARDS,
    "terminal": pyspiel.GameType.RewardModel.TERMINAL,
}
"""The ``rewards`` parameter's values and the reward model each declares."""


def _game_type(rewards: str) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="MAGDAGDON",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=REWARD_MODELS[rewards],
        max_num_players=1,
        min_num_players=1,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_DEFAULT_PARAMS,
    )


_GAME_TYPE: Final = _game_type("steps")


class MagdagdonGame(pyspiel.Game):  # type: ignore[misc]
    """The game: its parameters, and the states and observers made from them."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        """The game of ``params`` (see the module's documentation)."""
        params = {**_DEFAULT_PARAMS, **(params or {})}
        self.difficulty = Difficulty(params["difficulty"])
        self.turn_level = bool(params["turn_level"])
        self.board = Board.parse(params["board"])
        self.powers_used = int(params["powers_used"])
        if params["rewards"] not in REWARD_MODELS:
            raise ValueError(
                f"rewards is one of {', '.join(REWARD_MODELS)}, not {params['rewards']!r}"
            )
        self.terminal_rewards = params["rewards"] == "terminal"
        self.start = Game.from_position(self.difficulty, self.board, powers_used=self.powers_used)
        self.start = self.start.search_copy()
        turns = 16 + self.difficulty.powers
        super().__init__(
            _game_type(params["rewards"]),
            pyspiel.GameInfo(
                num_distinct_actions=enc.NUM_TURN_ACTIONS if self.turn_level else enc.NUM_ACTIONS,
                max_chance_outcomes=enc.MAX_CHANCE_OUTCOMES,
                num_players=1,
                min_utility=float(MIN_SCORE),
                max_utility=float(MAX_SCORE),
                utility_sum=None,
                max_game_length=turns if self.turn_level else MAX_GAME_ACTIONS,
            ),
            params,
        )

    def new_initial_state(self) -> MagdagdonState:
        """The start: the board of the parameters, waiting for its ROLL (a chance node)."""
        return MagdagdonState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> MagdagdonObserver:
        """The observer of states (the same for observations and information states: the
        game is of perfect information and its state is all that matters)."""
        return MagdagdonObserver(params)


class MagdagdonState(pyspiel.State):  # type: ignore[misc]
    """A position: an :class:`~magdagdon.engine.encoding.EncodedGame` without a stream."""

    def __init__(self, game: MagdagdonGame) -> None:
        """The game's initial state."""
        super().__init__(game)
        self.terminal_rewards = game.terminal_rewards
        self.play = enc.EncodedGame(
            game.difficulty, turn_level=game.turn_level, game=game.start.copy()
        )
        self._reward = 0.0
        self._start = self._score = self.play.score()

    def current_player(self) -> int:
        """The player (0), CHANCE, or TERMINAL."""
        if self.play.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        if self.play.is_chance_node():
            return int(pyspiel.PlayerId.CHANCE)
        return 0

    def _legal_actions(self, player: int) -> list[int]:
        return self.play.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcome indices of the chance node and their probabilities."""
        return self.play.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        chance = self.play.is_chance_node()
        self.play.apply_action(int(action))
        score = self.play.score()
        # A chance node's change adds to the decision's before it: rewards are read at
        # decisions (and at the end), as OpenSpiel's tests read them.
        self._reward = (self._reward if chance else 0.0) + float(score - self._score)
        self._score = score

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            n = len(self.play.pending) or 4
            return "dice " + "".join(map(str, outcomes(n)[action][0]))
        if action >= enc.PLAN:
            return "plan " + " ".join(
                f"{v}@{s}" for v, s in enc.plan_placements(self.play.game, action)
            )
        return str(enc.decode(self.play.game, action))

    def is_terminal(self) -> bool:
        """True when the board is full."""
        return self.play.is_terminal()

    def rewards(self) -> list[float]:
        """The change of the score since the last decision node (the last decision and the
        chance nodes after it); with terminal rewards, nothing until the end, then the
        return."""
        if self.terminal_rewards:
            return self.returns() if self.play.is_terminal() else [0.0]
        return [self._reward]

    def returns(self) -> list[float]:
        """The score gained so far (the final score, from an empty board, at the end)."""
        return [float(self._score - self._start)]

    def __str__(self) -> str:
        game = self.play.game
        dice = ",".join(f"{d.value}{'' if d.cell is None else f'@{d.cell}'}" for d in game.dice)
        return (
            f"{game.board} {game.phase.value} dice={dice} staged={list(game.staged)} "
            f"powers={game.powers_used} required={game.required} turn={game.turns} "
            f"actions={game.turn_actions} pending={self.play.pending}"
        )


class MagdagdonObserver:
    """Observations as OpenSpiel's PyObserver: :func:`~magdagdon.engine.encoding.observation`
    as the tensor, the position as text."""

    def __init__(self, params: dict[str, Any] | None) -> None:
        """An observer (it takes no parameters)."""
        if params:
            raise ValueError(f"the observer takes no parameters, not {params}")
        self.tensor = np.zeros(enc.OBS_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: MagdagdonState, player: int) -> None:
        """Fill the tensor from ``state``."""
        self.tensor[:] = state.play.observation()

    def string_from(self, state: MagdagdonState, player: int) -> str:
        """The position as text (with the turn's actions, which R17 counts)."""
        return enc.text(state.play.game, state.play.pending) + str(state)


pyspiel.register_game(_GAME_TYPE, MagdagdonGame)

__all__ = ["MAX_SCORE", "MIN_SCORE", "SHORT_NAME", "MagdagdonGame", "MagdagdonState"]
