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
position ``"3456/3456/3456/34.."``), ``powers_used``, ``rewards``: ``"steps"`` (the
default: a reward at every step, the change of the score) or ``"terminal"`` (OpenSpiel's
terminal-reward form, which its MCTS bots ask for: no reward until the end, then the whole
return, and ``returns()`` 0 until the end as the rewards so far are; ``score_gained()``
gives the running score in both forms), and ``engine``: ``"auto"`` (the default: the
engine's C fast path, :mod:`magdagdon.engine.fast`, when it is built, else the pure-Python
engine), ``"c"`` (insist) or ``"python"`` (the reference). Both play the same game: the
same legal ids, observations, strings and rewards (the tests compare them).

``rewards()`` is the change of the score since the last decision node (a chance node
changes no score: the REROLL's penalty is paid when it is chosen): read it at decision
nodes and at the end, as OpenSpiel's ``random_sim_test`` and ``rl_environment`` do, and the
rewards sum to the return. (Read after a chance node too, it repeats the decision's.)

The information state is the history (perfect recall, as OpenSpiel asks of it): its string
is the position followed by every action since the start; the position alone (the
observation, a Markov state) is the observation string and tensor. No information-state
tensor is declared, and ``information_state_tensor()`` is a SpielError saying so: learn from
the observation tensor.

OpenSpiel's C++ ``pyspiel.MCTSBot`` crashes the interpreter in ``step()`` on any game
written in Python (see :class:`CppMCTSBot`, the wrapper that plays it): once this module is
imported, ``pyspiel.MCTSBot`` made on a Python game gives a RuntimeWarning that says so (on
OpenSpiel's C++ games it is the bot as it was).

>>> from open_spiel.python.algorithms import mcts
>>> ending = pyspiel.load_game("python_magdagdon",
...                            {"board": "3456/3456/3456/34..", "rewards": "terminal"})
>>> bot = mcts.MCTSBot(ending, 2, 10, mcts.RandomRolloutEvaluator(1))
>>> state = ending.new_initial_state(); state.apply_action(125)
>>> bot.step(state) in state.legal_actions()
True
"""

from __future__ import annotations

import warnings
from typing import Any, Final

import numpy as np
import pyspiel

from .engine import MAX_GAME_ACTIONS, Board, Difficulty, Game, fast
from .engine import encoding as enc
from .engine.dice import outcomes

SHORT_NAME: Final = "python_magdagdon"
_DEFAULT_PARAMS: Final[dict[str, Any]] = {
    "difficulty": "peaceful",
    "turn_level": False,
    "board": "..../..../..../....",
    "powers_used": 0,
    "rewards": "steps",
    "engine": "auto",
}
MIN_SCORE: Final = -15 * 16 - 70
"""No score is lower: sixteen RUINS and the dearest powers."""
NO_INFORMATION_STATE_TENSOR: Final = (
    "python_magdagdon declares no information-state tensor (its information state is the "
    "history): learn from observation_tensor(), the position, a Markov state"
)
"""What ``information_state_tensor()`` raises (a SpielError)."""
MAX_SCORE: Final = 2 * 6 * 16 + 8 * 60
"""No score is higher: sixes everywhere (each counts twice) and a STRAIGHT on every line."""

REWARD_MODELS: Final = {
    "steps": pyspiel.GameType.RewardModel.REWARDS,
    "terminal": pyspiel.GameType.RewardModel.TERMINAL,
}
"""The ``rewards`` parameter's values and the reward model each declares."""
_TERMINAL: Final = int(pyspiel.PlayerId.TERMINAL)
_CHANCE: Final = int(pyspiel.PlayerId.CHANCE)
ENGINES: Final = ("auto", "c", "python")
"""The ``engine`` parameter's values."""


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
        provides_information_state_tensor=False,
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
        if params["engine"] not in ENGINES:
            raise ValueError(f"engine is one of {', '.join(ENGINES)}, not {params['engine']!r}")
        if params["engine"] == "c" and not fast.AVAILABLE:
            raise ValueError("engine 'c': the C fast path is not built (see magdagdon.engine.fast)")
        self.use_fast = fast.AVAILABLE and params["engine"] != "python"
        """Whether states play on the engine's C fast path."""
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
        """The observer of states: of the position, or with ``iig_obs_type.perfect_recall``
        (OpenSpiel's information state) of the history too."""
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return MagdagdonObserver(params, perfect_recall=recall)


class MagdagdonState(pyspiel.State):  # type: ignore[misc]
    """A position: a :class:`~magdagdon.engine.fast.FastGame` (on the C fast path) or an
    :class:`~magdagdon.engine.encoding.EncodedGame`, without a stream."""

    def __init__(self, game: MagdagdonGame) -> None:
        """The game's initial state."""
        super().__init__(game)
        self.terminal_rewards = game.terminal_rewards
        self.play: fast.FastGame | enc.EncodedGame = (
            fast.FastGame.from_game(game.start, turn_level=game.turn_level)
            if game.use_fast
            else enc.EncodedGame(
                game.difficulty, turn_level=game.turn_level, game=game.start.copy()
            )
        )
        self._reward = 0.0
        self._start = self._score = self.play.score()
        self._player = self._whose()

    def _whose(self) -> int:
        if self.play.is_terminal():
            return _TERMINAL
        return _CHANCE if self.play.is_chance_node() else 0

    def position(self) -> tuple[Game, list[int]]:
        """The position as an engine game (a search copy, to read) and the dice of a chosen
        REROLL waiting for their outcome."""
        if isinstance(self.play, enc.EncodedGame):
            return self.play.game, self.play.pending
        return self.play.to_game()

    @property
    def game(self) -> Game:
        """The position as an engine game (to read; on the C path a copy made when asked)."""
        return self.position()[0]

    def current_player(self) -> int:
        """The player (0), CHANCE, or TERMINAL."""
        return self._player

    def _legal_actions(self, player: int) -> list[int]:
        return self.play.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcome indices of the chance node and their probabilities."""
        return self.play.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        chance = self._player == _CHANCE
        self.play.apply_action(int(action))
        score = self.play.score()
        # A chance node's change adds to the decision's before it: rewards are read at
        # decisions (and at the end), as OpenSpiel's tests read them.
        self._reward = (self._reward if chance else 0.0) + float(score - self._score)
        self._score = score
        self._player = self._whose()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            n = len(self.position()[1]) or 4
            return "dice " + "".join(map(str, outcomes(n)[action][0]))
        if action >= enc.PLAN:
            return "plan " + " ".join(f"{v}@{s}" for v, s in enc.plan_placements(self.game, action))
        return str(enc.decode(self.game, action))

    def is_terminal(self) -> bool:
        """True when the board is full."""
        return self._player == _TERMINAL

    def rewards(self) -> list[float]:
        """The change of the score since the last decision node (the last decision and the
        chance nodes after it); with terminal rewards, nothing until the end, then the
        return."""
        if self.terminal_rewards:
            return self.returns()
        return [self._reward]

    def returns(self) -> list[float]:
        """The score gained so far (the final score, from an empty board, at the end); with
        terminal rewards, 0 until the end, as the rewards so far are (OpenSpiel's contract:
        the returns are the sum of the rewards)."""
        if self.terminal_rewards and self._player != _TERMINAL:
            return [0.0]
        return [float(self._score - self._start)]

    def score_gained(self) -> float:
        """The score gained so far, whatever the reward model (the running score that
        :meth:`returns` shows only at the end in the terminal-reward form)."""
        return float(self._score - self._start)

    def __str__(self) -> str:
        game, pending = self.position()
        dice = ",".join(f"{d.value}{'' if d.cell is None else f'@{d.cell}'}" for d in game.dice)
        return (
            f"{game.board} {game.phase.value} dice={dice} staged={list(game.staged)} "
            f"powers={game.powers_used} required={game.required} turn={game.turns} "
            f"actions={game.turn_actions} pending={pending}"
        )


class MagdagdonObserver:
    """Observations as OpenSpiel's PyObserver: :func:`~magdagdon.engine.encoding.observation`
    as the tensor, the position as text; with ``perfect_recall`` (the information state) the
    text ends with the history, and there is no tensor."""

    def __init__(self, params: dict[str, Any] | None, *, perfect_recall: bool = False) -> None:
        """An observer (it takes no parameters)."""
        if params:
            raise ValueError(f"the observer takes no parameters, not {params}")
        self.perfect_recall = perfect_recall
        self.tensor: np.ndarray[Any, np.dtype[np.float32]] | None = (
            None if perfect_recall else np.zeros(enc.OBS_SIZE, np.float32)
        )
        self.dict = {} if self.tensor is None else {"observation": self.tensor}

    def set_from(self, state: MagdagdonState, player: int) -> None:
        """Fill the tensor from ``state``; for the information state, which has no tensor, a
        SpielError (so ``information_state_tensor()`` says so rather than giving ``[]``)."""
        if self.tensor is None:
            raise pyspiel.SpielError(NO_INFORMATION_STATE_TENSOR)
        if isinstance(state.play, fast.FastGame):
            state.play.observe(self.tensor)
        else:
            self.tensor[:] = state.play.observation()

    def string_from(self, state: MagdagdonState, player: int) -> str:
        """The position as text (with the turn's actions, which R17 counts); for the
        information state, then every action since the start."""
        game, pending = state.position()
        text = enc.text(game, pending) + str(state)
        if self.perfect_recall:
            text += "\nhistory " + " ".join(map(str, state.history()))
        return text


class CppMCTSBot(pyspiel.Bot):  # type: ignore[misc]
    """OpenSpiel's C++ ``pyspiel.MCTSBot``, playable on this Python game (and on any other).

    Its binding's ``step()`` lets go of Python's interpreter lock while it searches, and the
    search clones the state, which for a Python game runs Python code: a segmentation fault,
    on OpenSpiel's own ``python_tic_tac_toe`` as on this game. ``step_with_policy()`` keeps
    the lock; this bot's ``step()`` calls it, so ``evaluate_bots`` and other drivers of bots
    can use the C++ search. The game must have terminal rewards (``rewards="terminal"``).

    >>> game = pyspiel.load_game("python_magdagdon",
    ...                          {"board": "3456/3456/3456/34..", "rewards": "terminal"})
    >>> bot = CppMCTSBot(game, simulations=20, seed=1)
    >>> state = game.new_initial_state(); state.apply_action(125)
    >>> bot.step(state) in state.legal_actions()
    True
    """

    def __init__(
        self,
        game: pyspiel.Game,
        simulations: int,
        *,
        uct_c: float = 2.0,
        rollouts: int = 1,
        seed: int = 0,
    ) -> None:
        """A C++ MCTS of ``simulations`` a decision, each evaluated by ``rollouts`` random
        rollouts (OpenSpiel's ``RandomRolloutEvaluator``), exploring with ``uct_c``."""
        pyspiel.Bot.__init__(self)
        self.evaluator = pyspiel.RandomRolloutEvaluator(rollouts, seed)
        self.bot = _RAW_MCTS_BOT(
            game, self.evaluator, uct_c, simulations, 10**6, False, seed, False
        )

    def step(self, state: pyspiel.State) -> int:
        """The action the search chooses (``step_with_policy``: see the class)."""
        return int(self.step_with_policy(state)[1])

    def step_with_policy(self, state: pyspiel.State) -> tuple[list[tuple[int, float]], int]:
        """The search's policy at ``state`` and the action it chooses."""
        policy, action = self.bot.step_with_policy(state)
        return list(policy), int(action)

    def restart_at(self, state: pyspiel.State) -> None:
        """Forget the search (a new game, or a state not reached from the last)."""
        self.bot.restart_at(state)

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """Nothing to learn from an action played (MCTS searches afresh each decision)."""


def is_python_game(game: object) -> bool:
    """Whether ``game`` is written in Python (a ``pyspiel.Game`` subclass of a Python module,
    as this one and OpenSpiel's ``python_*`` games are), not one of OpenSpiel's C++ games."""
    return isinstance(game, pyspiel.Game) and type(game).__module__.split(".")[0] != "pyspiel"


MCTS_ON_A_PYTHON_GAME: Final = (
    "pyspiel.MCTSBot's step() crashes the interpreter (a segmentation fault) on a game "
    "written in Python such as python_magdagdon: it lets go of Python's lock while its "
    "search clones the state, which is Python code (an OpenSpiel bug; its own "
    "python_tic_tac_toe crashes too). Use magdagdon.spiel.CppMCTSBot, the same C++ search "
    "through step_with_policy(), or the bot's step_with_policy()"
)
"""The warning a ``pyspiel.MCTSBot`` made on a Python game gives."""


def _warning_mcts_bot(raw: Any) -> Any:
    """``pyspiel.MCTSBot`` that warns when it is made on a Python game (see
    :data:`MCTS_ON_A_PYTHON_GAME`); on OpenSpiel's C++ games it is the bot as it was."""

    class MCTSBot(raw):  # type: ignore[misc]
        __doc__ = raw.__doc__
        __module__ = raw.__module__
        __qualname__ = raw.__qualname__
        _magdagdon_warns = True

        def __init__(self, game: Any, *args: Any, **kwargs: Any) -> None:
            if is_python_game(game):
                warnings.warn(MCTS_ON_A_PYTHON_GAME, RuntimeWarning, stacklevel=2)
            super().__init__(game, *args, **kwargs)

    return MCTSBot


_RAW_MCTS_BOT: Final[Any] = getattr(pyspiel.MCTSBot, "_magdagdon_raw", pyspiel.MCTSBot)
"""OpenSpiel's own C++ MCTS bot (this module makes ``pyspiel.MCTSBot`` warn on Python
games; :class:`CppMCTSBot` searches with this one)."""
if not getattr(pyspiel.MCTSBot, "_magdagdon_warns", False):
    pyspiel.MCTSBot = _warning_mcts_bot(_RAW_MCTS_BOT)
    pyspiel.MCTSBot._magdagdon_raw = _RAW_MCTS_BOT

pyspiel.register_game(_GAME_TYPE, MagdagdonGame)

__all__ = [
    "ENGINES",
    "MAX_SCORE",
    "MCTS_ON_A_PYTHON_GAME",
    "MIN_SCORE",
    "NO_INFORMATION_STATE_TENSOR",
    "SHORT_NAME",
    "CppMCTSBot",
    "MagdagdonGame",
    "MagdagdonState",
    "is_python_game",
]
