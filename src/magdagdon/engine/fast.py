"""The engine's fast path: :class:`~.encoding.EncodedGame`'s die-level play in C.

:class:`FastGame` plays a game by the die-level ids of :mod:`.encoding`, chance as chance,
with the same rules, ids and observation as the pure-Python engine, which stays the
reference (the tests compare both on many random positions). :func:`random_games` plays
whole games at random inside C. The C module (``magdagdon.engine._fastgame``) is built when
the package is installed with a C compiler at hand; without one, or with
``MAGDAGDON_PURE_PYTHON=1`` in the environment, :data:`AVAILABLE` is False,
:class:`FastGame` cannot be made, and :func:`random_games` plays in Python (slowly).

>>> scores, decisions = random_games("nightmare", 3, seed=1)
>>> len(scores), decisions >= 3 * 4  # a game has at least 4 turns (of 4 dice)
(3, True)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from types import ModuleType
from typing import Any, Final

from .board import Board
from .dice import DiceStream, chance_probabilities, outcomes
from .encoding import DECREASE, NUM_ACTIONS, OBS_SIZE, PLAN, EncodedGame, SeededChance
from .game import Difficulty, Game, Phase
from .native import native

_native: ModuleType | None = native("magdagdon.engine._fastgame")

AVAILABLE: Final = _native is not None
"""Whether the C fast path is built and switched on."""

if _native is not None and (_native.NUM_ACTIONS, _native.OBS_SIZE) != (NUM_ACTIONS, OBS_SIZE):
    raise RuntimeError(  # pragma: no cover - a stale build
        "magdagdon.engine._fastgame disagrees with encoding.py: rebuild it (pip install -e .)"
    )

_DIFFICULTIES: Final = tuple(Difficulty)
_PHASES: Final = (Phase.ROLL, Phase.PLACE, Phase.MAGDAGDON, Phase.OVER)


class FastGame(SeededChance):
    """A game played by die-level ids in C, chance as chance: the interface of
    :class:`~.encoding.EncodedGame` (die level). With a ``seed`` the dice come from the
    game's stream, as the server's do."""

    __slots__ = ("_core", "_legal", "_plans", "difficulty", "stream", "turn_level")

    def __init__(
        self,
        difficulty: Difficulty | str,
        seed: bytes | int | None = None,
        *,
        turn_level: bool = False,
    ) -> None:
        """A new game; its dice from ``seed``'s stream, or chosen at each chance node; its
        decisions die-level ids, or with ``turn_level`` plans, powers and RUINS."""
        if _native is None:
            raise RuntimeError("the C fast path is not available (see magdagdon.engine.fast)")
        self.difficulty = Difficulty(difficulty)
        self.stream = None if seed is None else DiceStream(seed)
        self.turn_level = turn_level
        self._core: Any = _native.FastGame(_DIFFICULTIES.index(self.difficulty))
        self._legal: list[int] | None = None  # turn level: the legal ids, until an action
        self._plans: tuple[list[int], bytes] | None = None

    @classmethod
    def from_game(
        cls, game: Game, pending: Sequence[int] = (), *, turn_level: bool = False
    ) -> FastGame:
        """The position of an engine game (without a stream: dice are chosen), with the dice
        of a chosen REROLL ``pending``."""
        fast = cls(game.difficulty, turn_level=turn_level)
        dice = game.dice
        fast._core.set_state(
            bytes(game.board.cells),
            _DIFFICULTIES.index(game.difficulty),
            _PHASES.index(game.phase),
            game.required,
            game.powers_used,
            game.turns,
            [d.value for d in dice],
            [d.cell for d in dice],
            list(game.staged),
            game.turn_actions,
            sum(1 << i for i in pending),
            game.reroll_slot,
        )
        return fast

    def state(self) -> tuple[Any, ...]:
        """Everything the game holds, as a tuple: the board's cells, the difficulty, the
        phase, the required dice, the powers used, the turns, the dice values, their squares,
        the staging order, the turn's actions, the pending REROLL's dice (bit set) and the
        next stream slot."""
        state: tuple[Any, ...] = self._core.get_state()
        return state

    def clone(self) -> FastGame:
        """An independent copy."""
        other = FastGame.__new__(FastGame)
        other.difficulty, other.stream, other.turn_level = (
            self.difficulty,
            self.stream,
            self.turn_level,
        )
        other._core, other._legal, other._plans = self._core.clone(), self._legal, self._plans
        return other

    def __deepcopy__(self, memo: dict[int, object]) -> FastGame:
        return self.clone()

    def __reduce__(self) -> tuple[Any, ...]:
        return (_unpickle, (self.difficulty, self.stream, self.turn_level, self.state()))

    def to_game(self) -> tuple[Game, list[int]]:
        """The position as an engine game, a search copy (no dice stream, an empty log), and
        the dice of a chosen REROLL waiting for their outcome (die indices, as
        :attr:`~.encoding.EncodedGame.pending`): what text, pictures and action names are
        drawn from, in time independent of the game's length.

        >>> quick = FastGame("survival", seed=3)
        >>> quick.roll_stream(); game, pending = quick.to_game()
        >>> game.phase.value, sorted(d.value for d in game.dice), pending
        ('place', [1, 3, 4, 6], [])
        """
        cells, _, phase, required, powers, turns, values, squares, staged, acts, bits, slot = (
            self.state()
        )
        snapshot = {
            "phase": _PHASES[phase].value,
            "board": str(Board(list(cells))),
            "dice": [{"value": v, "cell": c} for v, c in zip(values, squares, strict=True)],
            "staged": list(staged),
            "required": required,
            "powers_used": powers,
            "turns": turns,
            "next_slot": slot,
            "turn_actions": acts,
        }
        game = Game.restore(self.difficulty, 0, snapshot).search_copy()
        return game, [i for i in range(4) if bits >> i & 1]

    def is_chance_node(self) -> bool:
        """True when dice are to be rolled."""
        return bool(self._core.chance_count())

    def is_terminal(self) -> bool:
        """True when the game is over."""
        return bool(self._core.phase() == 3)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcome indices of the chance node and their probabilities."""
        n = self._core.chance_count()
        return list(chance_probabilities(n)) if n else []

    def _stream_values(self) -> list[int]:
        assert self.stream is not None
        state = self.state()
        turns, pending, slot = state[5], state[10], state[11]
        if not pending:
            return list(self.stream.roll(turns))
        return [self.stream.value(turns, slot + k) for k in range(pending.bit_count())]

    def roll_stream(self) -> None:
        """At a chance node of a seeded game: the stream's dice, in its order (the server's
        game of the seed has them on the same dice)."""
        self._core.apply_chance(self._stream_values())

    def apply_dice(self, values: Sequence[int]) -> None:
        """At a chance node: these dice, in die index order."""
        self._forget()
        self._core.apply_chance(list(values))

    def _forget(self) -> None:
        self._legal = self._plans = None

    def plans(self) -> tuple[list[int], bytes]:
        """In PLACE, every distinct legal staged set of the turn's dice: its plan code
        (:func:`~.encoding.plan_code` without ``PLAN``), increasing, and the 16 squares of
        the board it makes, concatenated (the afterstates of a turn-level decision)."""
        if self._plans is None:
            self._plans = self._core.plans()
        return self._plans

    def legal_actions(self) -> list[int]:
        """The legal ids at a decision node, increasing (none at a chance node)."""
        if self._core.chance_count():
            return []
        if not self.turn_level:
            found: list[int] = self._core.legal_actions()
            return found
        if self._legal is None:
            powers = [i for i in self._core.legal_actions() if i >= DECREASE]
            self._legal = powers + [PLAN + code for code in self.plans()[0]]
        return list(self._legal)

    def legal_mask(self, out: Any) -> int:
        """Write the legal die-level ids' mask into ``out`` (a writable buffer of NUM_ACTIONS
        bytes, e.g. a numpy bool array); return how many are legal."""
        if self.turn_level:
            raise ValueError("legal_mask() is die level: use legal_actions() at turn level")
        count: int = self._core.legal_mask(out)
        return count

    def apply_action(self, action_id: int) -> None:
        """Apply an id at a decision node, or an outcome index at a chance node."""
        n = self._core.chance_count()
        if not n:
            if self.turn_level:
                legal = self.legal_actions()
                if action_id not in legal:
                    raise ValueError(f"{action_id!r} is not legal now")
                self._forget()
                if action_id >= PLAN:
                    self._core.apply_plan(action_id - PLAN)
                    return
            self._core.apply(action_id)
            self._forget()
            return
        self._forget()
        if type(action_id) is not int or not 0 <= action_id < len(outcomes(n)):
            raise ValueError(f"{action_id!r} is not an outcome of this chance node")
        if self.stream is not None:
            if action_id != self.stream_outcome():
                raise ValueError("a seeded game takes the outcome its seed brings")
            self.roll_stream()
        else:
            self._core.apply_chance(list(outcomes(n)[action_id][0]))

    def observe(self, out: Any) -> None:
        """Write the observation into ``out`` (a writable buffer of OBS_SIZE float32)."""
        self._core.observe(out)

    def dead_end(self) -> bool:
        """R7 (the staged dice leave the minimum out of reach)."""
        return bool(self._core.dead_end())

    def score(self) -> int:
        """The engine's score now (the final score once the game is over), a REROLL chosen
        counted as used."""
        score: int = self._core.score()
        return score

    def play_random(self, seed: int) -> int:
        """Play to the end inside C, every decision uniform among the legal ids and fair
        dice from an RNG of ``seed`` (not the stream); return the decisions made."""
        steps: int = self._core.play_random(seed)
        return steps


def _unpickle(
    difficulty: Difficulty, stream: DiceStream | None, turn_level: bool, state: tuple[Any, ...]
) -> FastGame:
    """A pickled :class:`FastGame` again."""
    game = FastGame(difficulty, turn_level=turn_level)
    game.stream = stream
    game._core.set_state(*state)
    return game


def random_games(difficulty: Difficulty | str, games: int, seed: int = 0) -> tuple[list[int], int]:
    """Play ``games`` games at random, every decision uniform among the legal die-level ids
    and fair dice: their final scores, and the decisions made. In C when :data:`AVAILABLE`
    (its own generator), else with :class:`~.encoding.EncodedGame` (the same distribution,
    not the same games)."""
    level = Difficulty(difficulty)
    if _native is not None:
        scores, steps = _native.random_games(_DIFFICULTIES.index(level), games, seed)
        return list(scores), int(steps)
    rng = random.Random(seed)
    scores, steps = [], 0
    for _ in range(games):
        play = EncodedGame(level)
        while not play.is_terminal():
            if play.is_chance_node():
                play.apply_action(play.sample_outcome(rng))
            else:
                play.apply_action(rng.choice(play.legal_actions()))
                steps += 1
        scores.append(play.score())
    return scores, steps


__all__ = ["AVAILABLE", "FastGame", "random_games"]
