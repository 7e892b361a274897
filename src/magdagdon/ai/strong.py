"""The strong player: a learned afterstate value, one-roll expectimax, exact search at the end.

The value of an *afterstate* (the permanent board after a turn, with the powers left) is its
score plus ``weights · features`` (:mod:`magdagdon.ai.features`), fitted from self-play by
:mod:`magdagdon.ai.train`: an estimate of the points still to come.

A decision lists every option of the turn, each with the afterstate it leads to:

- PLACE: every distinct staged result of at least the minimum;
- MAGDAGDON: a RUIN on every empty square;
- with powers left, in either: the same after any number and order of DECREASE/INCREASE the
  powers allow (one roll for each distinct set of dice they lead to), and every REROLL of a
  set of tray dice after any such changes (one for each distinct set of dice kept), valued as
  the expectation over the rerolled dice; the penalties counted (:meth:`~StrongPlayer.candidates`).

The options are ranked by the learned value; the best few (``breadth``, more within a work
``budget``, fewer once a work ``limit`` is reached) are then valued by a one-roll expectimax:
the mean, over the 126 distinct rolls of four dice weighted by their probabilities, of the
best afterstate of the next turn (a RUIN, or a ±1 rescue, when the roll cannot be placed).
When few squares remain (:data:`EXACT_EMPTY`) the search runs to the end of the game, so the
last turns are played exactly (powers inside the search count as ±1 rescues). The depth
searched is set per difficulty (:data:`SEARCH`).

The search is the player's strength: on 300 paired games, searching the best 30 options from
the first turn on, rather than 3 options from 9 empty squares, scored 21 points more in
PEACEFUL and in SURVIVAL, and 10 options from 13 squares 14 more in NIGHTMARE (30 from 16: 2
more again). It is affordable with the C version of the inner loop (:mod:`.fast`), which
gives the same values about 30 times faster; without it the player plays the same moves,
slowly.

A power on a roll that can be placed must beat the best placement by ``power_margin``
points: the largest of many estimates is biased upwards, and a power spent is gone.

The player never looks at the game's seed: it knows the dice shown, nothing more.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Final

from ..engine import EMPTY, RUIN, Action, Difficulty, Game, Phase, actions, staged_results
from ..engine.board import NEIGHBOURS
from . import fast
from .evaluator import EXACT_EMPTY, Evaluator
from .model import WEIGHTS_FILE, Model, load_models, shipped_model
from .ntuple import NTupleModel
from .players import staging_actions
from .rolls import ROLLS, Roll, outcomes, reroll_rolls
from .values import VALUES, value_model, values_problem

SEARCH: Final = {
    Difficulty.PEACEFUL: (30, 16),
    Difficulty.SURVIVAL: (30, 16),
    Difficulty.NIGHTMARE: (30, 16),
}
"""Per difficulty: (options searched, most empty squares after the turn to search). Searching
all options rather than 30 changed no mean by more than 1 point (300 paired games each)."""


PRUNE_SLACK: Final = 0.01
"""How far a roll's best placement as :meth:`Evaluator.best_placements` values it (in C, in
single precision) may lie below the same placement valued one by one."""


@dataclass
class Option:
    """One way to play the turn: its actions and its value (expected final score).

    A placement's staging actions are made when asked for (:attr:`actions`): most options
    are only ranked, never played.
    """

    prefix: list[Action]
    """The actions before the staging (a power, ACCEPT MAGDAGDON, …)."""
    value: float
    after: tuple[int, ...] | None = None
    """The afterstate board (None for a REROLL, whose outcome is not known)."""
    powers_left: int = 0
    cost: int = 0
    """Power penalties this option pays now."""
    searched: bool = False
    order: list[tuple[int, int]] | None = None
    """The staged result as (value, square) pairs, for a placement."""
    game: Game | None = field(default=None, repr=False, compare=False)
    """The game whose dice stage ``order`` (after the prefix's power, if any)."""

    @property
    def actions(self) -> list[Action]:
        """Every action of the option, to send one after another."""
        if self.order is None or self.game is None:
            return list(self.prefix)
        return self.prefix + staging_actions(self.game, self.order)


def _place(cells: tuple[int, ...], order: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    out = list(cells)
    for v, sq in order:
        out[sq] = v
    return tuple(out)


def _staging_order(cells: tuple[int, ...], placed: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """A legal staging order of a legal staged set ((value, square) pairs): each die beside a
    number already there (the first on an empty board anywhere); values are pairwise within 1
    of their neighbours whatever the order."""
    numbers = {sq for sq in range(16) if cells[sq] not in (EMPTY, RUIN)}
    rest = list(placed)
    order: list[tuple[int, int]] = []
    while rest:
        for i, (v, sq) in enumerate(rest):
            if not numbers or NEIGHBOURS[sq] & sum(1 << n for n in numbers):
                order.append((v, sq))
                numbers.add(sq)
                del rest[i]
                break
        else:
            raise ValueError(f"{placed!r} is not joined to the numbers of {cells!r}")
    return order


def models_problem() -> str | None:
    """Why the coach's values cannot be loaded (:func:`~.values.values_problem`), or None:
    what ``/api/ready`` and ``magdagdon serve`` check."""
    return values_problem()


class StrongPlayer:
    """The strong player (see the module docstring). ``breadth`` options get the expectimax."""

    name = "strong"

    def __init__(
        self,
        model: Model | NTupleModel | None = None,
        breadth: int | None = None,
        search: bool = True,
        search_empty: int | None = None,
        budget: int = 0,
        power_margin: float = 10.0,
        limit: int = 0,
        value: str = "coach",
        name: str | None = None,
    ):
        """A player with ``model``; by default the value of the game's difficulty that
        ``value`` names in :mod:`.values`'s table: ``"coach"`` the coach's, ``"network"``
        the difficulty's network, ``"linear"`` the linear model. ``name``: the player's name
        (``strong`` by default).

        ``breadth`` options are searched, among afterstates with at most ``search_empty``
        empty squares (both by default the difficulty's :data:`SEARCH`); more while fewer
        than ``budget`` staged sets were looked at in the decision; none after ``limit``
        staged sets (0: no limit), which bounds the time of a decision (for hints).
        """
        if value not in VALUES:
            raise ValueError(f"unknown value {value!r}: {', '.join(VALUES)}")
        self._model = model
        self.value = value
        if name is not None:
            self.name = name
        self.budget = budget
        self.limit = limit
        self.power_margin = power_margin
        self.search_empty = search_empty
        self.breadth = breadth
        self.search = search
        self._evaluators: dict[Difficulty, Evaluator] = {}
        self._openings: dict[tuple[Any, ...], list[tuple[int, int]]] = {}

    def settings(self, difficulty: Difficulty) -> tuple[int, int]:
        """(options searched, most empty squares searched) in a difficulty."""
        breadth, empty = SEARCH[difficulty]
        return (
            breadth if self.breadth is None else self.breadth,
            empty if self.search_empty is None else self.search_empty,
        )

    def evaluator(self, difficulty: Difficulty) -> Evaluator:
        """The (memoising) evaluator of a difficulty."""
        ev = self._evaluators.get(difficulty)
        if ev is None:
            ev = self._evaluators[difficulty] = Evaluator(self.model(difficulty))
        ev.bound_memory()
        return ev

    def model(self, difficulty: Difficulty) -> Model | NTupleModel:
        """The value this player plays a difficulty with (see the constructor)."""
        if self._model is not None:
            return self._model
        return value_model(difficulty, self.value)

    def options(self, game: Game) -> list[Option]:
        """The options of the turn the player weighs, best first (PLACE or MAGDAGDON): the
        :meth:`candidates`, but that on a roll that can be placed a power must beat the best
        placement by ``power_margin`` (the best of many estimates is biased upwards, and a
        power is spent for good); the best of them searched."""
        placing = game.phase is Phase.PLACE and game.powers_left > 0
        found = self.candidates(game, self.power_margin if placing else None)
        found.sort(key=lambda o: -o.value)
        if self.search:
            ev = self.evaluator(game.difficulty)
            self._search(found, ev, game.power_penalty, *self.settings(game.difficulty))
        return found

    def candidates(self, game: Game, margin: float | None = None) -> list[Option]:
        """Every plan of the turn (PLACE or MAGDAGDON), up to equivalence, valued by the
        learned value of its afterstate (a REROLL by its expectation), its penalties paid:
        after each distinct roll that ±1 changes lead to (:meth:`_power_states`, the roll as
        it is first), every placement in PLACE and every RUIN in MAGDAGDON, and with a power
        left every REROLL of a set of tray dice. Two plans are equivalent when they leave the
        same afterstate with the same powers, or reroll as many dice keeping the same values
        with the same powers (staging before a REROLL only keeps a die out of it).

        With a ``margin`` (a roll to place): only the plans that spend no power and those
        that beat the best of them by more than ``margin``; the placements after ±1 changes
        are enumerated only where their best can (the best placement of every roll comes
        from :meth:`Evaluator.best_placements`, in C where it is built)."""
        if game.phase not in (Phase.PLACE, Phase.MAGDAGDON):
            return []
        ev = self.evaluator(game.difficulty)
        paid = game.power_penalty
        cells = game.board.cells
        found: list[Option] = []
        afters: set[tuple[tuple[int, ...], int]] = set()
        kept_sets: set[tuple[Roll, int, int]] = set()
        bar = -math.inf
        for i, (trial, before, cost) in enumerate(self._power_states(game, ev)):
            p = trial.powers_left
            plans: list[Option] = []
            if i == 0 and trial.phase is Phase.PLACE:
                plans = self._placements(game, ev, [], p, paid)  # (the staged dice kept)
                if margin is not None:
                    bar = max(o.value for o in plans) + margin
            elif trial.phase is Phase.PLACE:
                roll = tuple(sorted(d.value for d in trial.dice))
                top = ev.best_placements(cells, p).get(roll, -math.inf) - paid - cost
                if top + PRUNE_SLACK > bar:
                    plans = self._placements(trial, ev, before, p, paid + cost)
            elif trial.phase is Phase.MAGDAGDON:
                for sq in range(16):
                    if cells[sq] == EMPTY:
                        after = (*cells[:sq], RUIN, *cells[sq + 1 :])
                        value = ev.learned(after, p) - paid - cost
                        plans.append(
                            Option([*before, actions.accept_magdagdon(sq)], value, after, p)
                        )
            for option in plans:
                if (option.after, p) in afters:
                    continue  # the same afterstate by other changes (the same penalties)
                afters.add((option.after, p))  # type: ignore[arg-type]
                option.cost = cost
                found.append(option)
            if p > 0:
                found += self._rerolls(trial, ev, before, cost, kept_sets)
        if margin is not None:
            found = [o for o in found if o.powers_left == game.powers_left or o.value > bar]
        return found

    def _power_states(self, game: Game, ev: Evaluator) -> list[tuple[Game, list[Action], int]]:
        """The turn's roll (staged dice taken back) after each distinct sequence of ±1 changes
        the powers allow, the roll as it is first: (the game after them, their actions, the
        penalties they cost). Sequences that lead to the same dice with the same powers are
        one."""
        start = game.copy()
        before: list[Action] = []
        if start.staged:
            start.unstage_all()
            before.append(actions.unstage_all())
        states = [(start, before, 0)]
        seen = {(tuple(sorted(d.value for d in start.dice)), start.powers_left)}
        frontier = list(states)
        while frontier:
            grown = []
            for trial, done, cost in frontier:
                if trial.powers_left == 0 or trial.phase not in (Phase.PLACE, Phase.MAGDAGDON):
                    continue
                price = ev.power_cost(trial.powers_left)
                for die in trial.dice:
                    for delta in (-1, 1):
                        if not trial.can_adjust(die.index, delta):
                            continue
                        changed = trial.copy()
                        changed.adjust(die.index, delta)
                        key = (tuple(sorted(d.value for d in changed.dice)), changed.powers_left)
                        if key in seen:
                            continue
                        seen.add(key)
                        grown.append(
                            (changed, [*done, actions.adjust(die.index, delta)], cost + price)
                        )
            states += grown
            frontier = grown
        return states

    def _placements(
        self, game: Game, ev: Evaluator, before: list[Action], p: int, paid: int
    ) -> list[Option]:
        cells = game.board.cells
        out = []
        for order in staged_results(game.board, [d.value for d in game.dice], game.required):
            after = _place(cells, order)
            value = ev.learned(after, p) - paid
            out.append(Option(before, value, after, p, order=order, game=game))
        return out

    def reroll_value(self, game: Game, chosen: Sequence[int]) -> float:
        """The expected final score of a REROLL of the ``chosen`` dice (by index), its penalty
        paid: the mean, over what the rerolled dice may show, of the best play of the roll."""
        ev = self.evaluator(game.difficulty)
        p = game.powers_left
        dice = [d.value for d in game.dice]
        kept = tuple(sorted(dice[i] for i in range(len(dice)) if i not in chosen))
        values = _reroll_values(ev, game)
        return _expected(values, kept, len(chosen)) - game.power_penalty - ev.power_cost(p)

    def _rerolls(
        self,
        game: Game,
        ev: Evaluator,
        before: list[Action],
        cost: int,
        seen: set[tuple[Roll, int, int]],
    ) -> list[Option]:
        """Every REROLL of a set of the dice of ``game`` (nothing staged), after ``before``
        (that cost ``cost``), but those keeping values already ``seen`` (with as many dice
        rerolled and as many powers left), which it adds to. Each is valued as
        :meth:`reroll_value` values it."""
        p = game.powers_left
        price = ev.power_cost(p)
        paid = game.power_penalty
        dice = [d.value for d in game.dice]
        values: dict[Roll, float] | None = None  # the rolls' values, looked up once needed
        out = []
        for k in range(1, 5):
            for chosen in combinations(range(4), k):
                kept = tuple(sorted(dice[i] for i in range(4) if i not in chosen))
                if (kept, k, p - 1) in seen:
                    continue
                seen.add((kept, k, p - 1))
                if values is None:
                    values = _reroll_values(ev, game)
                value = _expected(values, kept, k) - paid - price
                action: Action = actions.reroll(chosen)
                out.append(
                    Option([*before, action], value, None, p - 1, cost + price, searched=True)
                )
        return out

    def _search(
        self, found: list[Option], ev: Evaluator, paid: int, breadth: int, search_empty: int
    ) -> None:
        """Value the best options (by the learned value) by search, best first, until the
        work budget is spent (at least ``breadth`` of them, unless the work ``limit`` is
        reached first): exactly to the end of the game when few squares remain, else by the
        one-roll expectimax."""
        start = ev.work
        searched = 0
        for option in found:
            if option.after is None or option.searched:
                continue
            empty = option.after.count(EMPTY)
            if empty == 0:
                option.searched = True  # a full board's value is its score
                continue
            if empty > search_empty:
                continue
            if searched >= breadth and ev.work - start >= self.budget:
                break
            if self.limit and searched and ev.work - start >= self.limit:
                break
            searched += 1
            option.value = ev.searched(option.after, option.powers_left) - paid - option.cost
            option.searched = True
        # options not searched keep their learned values and rank after the searched ones
        found.sort(key=lambda o: (not o.searched, -o.value))

    def _greedy(self, game: Game) -> list[Action] | None:
        """The best afterstate of a placeable roll by the network, chosen in C (no power
        left, no search: the same choice as :meth:`options`, up to ties), or None where the C
        module or a network is missing."""
        ev = self.evaluator(game.difficulty)
        if not isinstance(ev.model, NTupleModel) or not fast.AVAILABLE:
            return None
        network = ev.network_bytes()
        cells = game.board.cells
        dice = tuple(d.value for d in game.dice)
        if len(dice) != 4 or network is None:
            return None
        _, after = fast.nt_best(cells, (dice[0], dice[1], dice[2], dice[3]), game.required, network)
        placed = [(after[sq], sq) for sq in range(16) if after[sq] != cells[sq]]
        if any(v == RUIN for v, _ in placed):
            return None  # cannot happen in PLACE; the options say so if it does
        return staging_actions(game, _staging_order(cells, placed))

    def turn(self, game: Game) -> list[Action]:
        """See :class:`~magdagdon.ai.players.Player`."""
        if game.phase is Phase.ROLL:
            return [actions.roll()]
        if not self.search and game.phase is Phase.PLACE and not game.powers_left:
            quick = self._greedy(game)
            if quick is not None:
                return quick
        if game.phase is Phase.PLACE and not game.board.numbers and not game.staged:
            # the first placement of a game: one of 126 rolls, worth remembering
            dice = tuple(sorted(d.value for d in game.dice))
            key = (game.difficulty, dice, game.powers_left, game.required, game.board.cells)
            order = self._openings.get(key)
            if order is None:
                best = self.options(game)[0]
                if best.order is None or best.cost:
                    return best.actions
                order = self._openings[key] = best.order
            return staging_actions(game, order)
        return self.options(game)[0].actions


def _reroll_values(ev: Evaluator, game: Game) -> dict[Roll, float]:
    """What each roll is worth after a REROLL in ``game``: its best play with a power fewer
    (exactly to the end when few squares are empty)."""
    cells = game.board.cells
    return ev.roll_values(cells, game.powers_left - 1, exact=cells.count(EMPTY) <= EXACT_EMPTY)


def _expected(values: dict[Roll, float], kept: Roll, rerolled: int) -> float:
    """The mean of ``values`` over the rolls a REROLL of ``rerolled`` dice keeping ``kept``
    comes to (summed in the order of :func:`outcomes`)."""
    expected = 0.0
    for roll, prob in reroll_rolls(kept, rerolled):
        expected += prob * values[roll]
    return expected


__all__ = [
    "EXACT_EMPTY",
    "ROLLS",
    "SEARCH",
    "WEIGHTS_FILE",
    "Evaluator",
    "Model",
    "Option",
    "Roll",
    "StrongPlayer",
    "load_models",
    "models_problem",
    "outcomes",
    "shipped_model",
]
