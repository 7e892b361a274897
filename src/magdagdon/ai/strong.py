"""The strong player: a learned afterstate value, one-roll expectimax, exact search at the end.

The value of an *afterstate* (the permanent board after a turn, with the powers left) is its
score plus ``weights · features`` (:mod:`magdagdon.ai.features`), fitted from self-play by
:mod:`magdagdon.ai.train`: an estimate of the points still to come.

A decision lists every option of the turn, each with the afterstate it leads to:

- PLACE: every distinct staged result of at least the minimum; with powers left, also every
  DECREASE/INCREASE of one die followed by the best placement of the changed roll (its
  penalty counted);
- MAGDAGDON: a RUIN on every empty square; with powers left, every certain ±1 rescue, and
  every REROLL of a set of dice, valued as the expectation over the rerolled dice.

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

import json
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from itertools import combinations, combinations_with_replacement
from typing import Any, Final

from ..engine import EMPTY, RUIN, Action, Difficulty, Game, Phase, actions, staged_results
from ..engine.placement import legal_mask, with_placed
from . import fast
from .features import NAMES, LinearValue, quick_score
from .players import staging_actions

EXACT_EMPTY: Final = 4
"""With at most this many empty squares the search runs to the end of the game."""
SEARCH: Final = {
    Difficulty.PEACEFUL: (30, 16),
    Difficulty.SURVIVAL: (30, 16),
    Difficulty.NIGHTMARE: (30, 16),
}
"""Per difficulty: (options searched, most empty squares after the turn to search). Searching
all options rather than 30 changed no mean by more than 1 point (300 paired games each)."""

Roll = tuple[int, ...]


def _probability(roll: Roll) -> float:
    counts = Counter(roll).values()
    ways = math.factorial(len(roll)) // math.prod(math.factorial(c) for c in counts)
    return ways / float(6 ** len(roll))


ROLLS: Final = tuple(
    (roll, _probability(roll)) for roll in combinations_with_replacement(range(1, 7), 4)
)
"""The 126 distinct rolls of four dice (sorted) with their probabilities (they sum to 1)."""


@cache
def outcomes(n: int) -> tuple[tuple[Roll, float], ...]:
    """The distinct results of rolling ``n`` dice (sorted) with their probabilities."""
    return tuple((r, _probability(r)) for r in combinations_with_replacement(range(1, 7), n))


@cache
def _sub_rolls(roll: Roll) -> tuple[Roll, ...]:
    """The distinct sub-multisets of a roll, largest first."""
    found = {tuple(c) for k in range(1, len(roll) + 1) for c in combinations(roll, k)}
    return tuple(sorted(found, key=lambda r: (-len(r), r)))


@cache
def _adjusted_rolls(roll: Roll) -> tuple[Roll, ...]:
    """The rolls one DECREASE/INCREASE of one die makes of ``roll``."""
    found = set()
    for i, v in enumerate(roll):
        for w in (v - 1, v + 1):
            if 1 <= w <= 6:
                found.add(tuple(sorted((*roll[:i], w, *roll[i + 1 :]))))
    return tuple(sorted(found))


@dataclass(frozen=True)
class Model:
    """The fitted weights of one difficulty, in :data:`~magdagdon.ai.features.NAMES` order."""

    difficulty: Difficulty
    weights: tuple[float, ...]
    bias: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def power_value(self, empty: int) -> float:
        """What holding one more power is worth on a board with ``empty`` empty squares."""
        i, j = NAMES.index("powers_left"), NAMES.index("powers_left_x_empty")
        return self.weights[i] + self.weights[j] * empty / 16


WEIGHTS_FILE: Final = "weights.json"


def load_models(text: str | None = None) -> dict[Difficulty, Model]:
    """The models shipped in ``weights.json`` (or parsed from ``text``)."""
    if text is None:
        text = resources.files(__package__).joinpath(WEIGHTS_FILE).read_text(encoding="utf-8")
    data = json.loads(text)
    names = data["features"]
    if list(names) != list(NAMES):
        raise ValueError("the weights file was fitted on other features: run `magdagdon train`")
    meta = {k: v for k, v in data.items() if k != "models"}
    return {
        Difficulty(name): Model(
            Difficulty(name), tuple(float(w) for w in m["weights"]), float(m["bias"]), meta
        )
        for name, m in data["models"].items()
    }


@cache
def shipped_model(difficulty: Difficulty) -> Model:
    """The shipped model of a difficulty."""
    return load_models()[difficulty]


def models_problem() -> str | None:
    """Why the shipped models cannot be loaded (a file missing from an install, fitted on
    other features, a difficulty left out), or None when every difficulty's loads."""
    try:
        for difficulty in Difficulty:
            shipped_model(difficulty)  # cached once loaded; a failure is tried again
    except (OSError, ValueError, KeyError) as exc:
        return f"the strong player's weights cannot be loaded: {type(exc).__name__}: {exc}"
    return None


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


class Evaluator:
    """Values of afterstates for one difficulty (memoised; one per game or per simulation)."""

    def __init__(self, model: Model, native: bool | None = None) -> None:
        """An evaluator using ``model``; ``native``: use the C accelerator (by default when it
        is available, see :mod:`magdagdon.ai.fast`); the values are the same either way."""
        self.model = model
        self.difficulty = model.difficulty
        self.minimum = model.difficulty.minimum
        self.penalties = model.difficulty.penalties
        if native is None:
            native = fast.AVAILABLE
        self._native = fast.NativeValue(model.weights, model.bias) if native else None
        self._linear: Callable[[tuple[int, ...], int], float] = (
            self._native.value if self._native else LinearValue(model.weights, model.bias)
        )
        self.work = 0
        """Staged sets looked at by the searches so far, a value found in the memo counted
        as when it was first computed: a measure of time that is the same on every machine
        and whatever was memoised before (the C version does not count the sets of the exact
        endgame)."""
        self._learned: dict[tuple[tuple[int, ...], int], float] = {}
        self._chances: dict[tuple[tuple[int, ...], int, bool], float] = {}
        self._rolls: dict[tuple[tuple[int, ...], int, bool], dict[Roll, float]] = {}
        self._costs: dict[tuple[tuple[int, ...], int, bool], int] = {}

    def clear(self) -> None:
        """Forget memoised values (call between games to bound memory)."""
        self._learned.clear()
        self._chances.clear()
        self._rolls.clear()
        self._costs.clear()

    def power_cost(self, powers_left: int) -> int:
        """The penalty of the next power when ``powers_left`` remain."""
        return self.penalties[len(self.penalties) - powers_left]

    def learned(self, cells: tuple[int, ...], powers_left: int) -> float:
        """The learned value of an afterstate: its score plus ``weights · features``."""
        key = (cells, powers_left)
        found = self._learned.get(key)
        if found is None:
            found = self._linear(cells, powers_left)
            self._learned[key] = found
        return found

    def value(self, cells: tuple[int, ...], powers_left: int) -> float:
        """The expected final score from an afterstate, before penalties already paid: exact
        (searched to the end) with few empty squares, else the learned value."""
        empty = cells.count(EMPTY)
        if 0 < empty <= EXACT_EMPTY:
            if self._native is not None and not powers_left:
                return self._native.exact(cells, self.minimum)
            return self.chance(cells, powers_left, exact=True)
        return self.learned(cells, powers_left)

    def searched(self, cells: tuple[int, ...], powers_left: int) -> float:
        """The value the search gives an afterstate: exact with few empty squares, else the
        one-roll expectimax."""
        if cells.count(EMPTY) <= EXACT_EMPTY:
            return self.value(cells, powers_left)
        return self.chance(cells, powers_left)

    def chance(self, cells: tuple[int, ...], powers_left: int, exact: bool = False) -> float:
        """One-roll expectimax: the mean over the next roll of the best next afterstate
        (valued by :meth:`value` when ``exact``, else by :meth:`learned`)."""
        key = (cells, powers_left, exact)
        found = self._chances.get(key)
        if found is not None:
            self.work += self._costs.get(key, 0)
        else:
            if EMPTY not in cells:
                found = float(quick_score(cells))
            else:
                values = self.roll_values(cells, powers_left, exact)
                found = sum(p * values[roll] for roll, p in ROLLS)
            self._chances[key] = found
        return found

    def roll_values(
        self, cells: tuple[int, ...], powers_left: int, exact: bool = False
    ) -> dict[Roll, float]:
        """For each of the 126 rolls: the value of its best play on this board."""
        key = (cells, powers_left, exact)
        found = self._rolls.get(key)
        if found is not None:
            self.work += self._costs[key]
            return found
        start = self.work
        child_value = self.value if exact else self.learned
        empty = cells.count(EMPTY)
        required = self.difficulty.required(empty)
        if self._native is not None and (not exact or not powers_left):
            leaves = EXACT_EMPTY if exact else 0  # next afterstates valued exactly
            tops, work = self._native.best_rolls(cells, powers_left, required, self.minimum, leaves)
            self.work += work
            placeable: dict[Roll, float] = {
                roll: top for (roll, _), top in zip(ROLLS, tops, strict=True) if top > -math.inf
            }
        else:
            placeable = self._placeable(cells, powers_left, required, child_value)
        ruin: float | None = None
        values: dict[Roll, float] = {}
        for roll, _ in ROLLS:
            if roll in placeable:
                values[roll] = placeable[roll]
                continue
            if ruin is None:
                ruin = max(
                    child_value((*cells[:sq], RUIN, *cells[sq + 1 :]), powers_left)
                    for sq in range(16)
                    if cells[sq] == EMPTY
                )
            top = ruin
            if powers_left:
                spend = self.power_cost(powers_left) + self.model.power_value(empty)
                for other in _adjusted_rolls(roll):
                    if other in placeable:
                        top = max(top, placeable[other] - spend)
            values[roll] = top
        self._rolls[key] = values
        self._costs[key] = self.work - start
        return values

    def _placeable(
        self,
        cells: tuple[int, ...],
        powers_left: int,
        required: int,
        child_value: Callable[[tuple[int, ...], int], float],
    ) -> dict[Roll, float]:
        """Per roll that can be placed: the value of its best next afterstate."""
        best: dict[Roll, float] = {}
        results = _free_results(cells)
        self.work += len(results)
        for placed in results:
            if len(placed) < required:
                continue
            child = list(cells)
            for sq, v in placed:
                child[sq] = v
            value = child_value(tuple(child), powers_left)
            m = tuple(sorted(v for _, v in placed))
            if value > best.get(m, -math.inf):
                best[m] = value
        placeable: dict[Roll, float] = {}
        for roll, _ in ROLLS:
            top = -math.inf
            for sub in _sub_rolls(roll):
                sub_value = best.get(sub)
                if sub_value is not None and sub_value > top:
                    top = sub_value
            if top > -math.inf:
                placeable[roll] = top
        return placeable


def _free_results(cells: tuple[int, ...]) -> list[tuple[tuple[int, int], ...]]:
    """Every distinct legal staged set of 1–4 dice of any values on a board, each as
    (square, value) pairs in a legal staging order."""
    vm0 = [0] * 8
    empty0 = numbers0 = 0
    for sq, c in enumerate(cells):
        if c == EMPTY:
            empty0 |= 1 << sq
        elif c != RUIN:
            numbers0 |= 1 << sq
            vm0[c] |= 1 << sq
    seen: set[int] = set()  # a staged set as an int: value v on square sq is v << 3 * sq
    found: list[tuple[tuple[int, int], ...]] = []
    frontier: list[tuple[int, tuple[tuple[int, int], ...]]] = [(0, ())]
    for _ in range(4):
        nxt = []
        for key, staged in frontier:
            empty, numbers, vm = with_placed(empty0, numbers0, vm0, ((v, sq) for sq, v in staged))
            for v in range(1, 7):
                mask = legal_mask(empty, numbers, vm, v)
                while mask:
                    low = mask & -mask
                    sq = low.bit_length() - 1
                    mask ^= low
                    k = key | v << 3 * sq
                    if k not in seen:
                        seen.add(k)
                        nxt.append((k, (*staged, (sq, v))))
        found.extend(s for _, s in nxt)
        frontier = nxt
    return found


def _place(cells: tuple[int, ...], order: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    out = list(cells)
    for v, sq in order:
        out[sq] = v
    return tuple(out)


class StrongPlayer:
    """The strong player (see the module docstring). ``breadth`` options get the expectimax."""

    name = "strong"

    def __init__(
        self,
        model: Model | None = None,
        breadth: int | None = None,
        search: bool = True,
        search_empty: int | None = None,
        budget: int = 0,
        power_margin: float = 10.0,
        limit: int = 0,
    ):
        """A player with ``model`` (the shipped one of the game's difficulty by default).

        ``breadth`` options are searched, among afterstates with at most ``search_empty``
        empty squares (both by default the difficulty's :data:`SEARCH`); more while fewer
        than ``budget`` staged sets were looked at in the decision; none after ``limit``
        staged sets (0: no limit), which bounds the time of a decision (for hints).
        """
        self._model = model
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
            model = self._model if self._model is not None else shipped_model(difficulty)
            ev = self._evaluators[difficulty] = Evaluator(model)
        if len(ev._learned) > 300_000 or len(ev._rolls) > 20_000:
            ev.clear()
        return ev

    def options(self, game: Game) -> list[Option]:
        """Every option of the turn, best first (PLACE or MAGDAGDON)."""
        ev = self.evaluator(game.difficulty)
        paid = game.power_penalty
        p = game.powers_left
        cells = game.board.cells
        found: list[Option] = []
        if game.phase is Phase.PLACE:
            found += self._placements(game, ev, [], p, paid)
        elif game.phase is Phase.MAGDAGDON:
            for sq in range(16):
                if cells[sq] == EMPTY:
                    after = (*cells[:sq], RUIN, *cells[sq + 1 :])
                    found.append(
                        Option(
                            [actions.accept_magdagdon(sq)],
                            ev.learned(after, p) - paid,
                            after,
                            p,
                        )
                    )
        else:
            return []
        if p > 0:
            adjusted = self._adjustments(game, ev, p, paid)
            if game.phase is Phase.PLACE:
                # a power on a placeable roll must beat the best placement by a margin: the
                # best of many estimates is biased upwards, and a power is spent for good
                bar = max(o.value for o in found) + self.power_margin
                adjusted = [o for o in adjusted if o.value > bar]
            found += adjusted
            if game.phase is Phase.MAGDAGDON:
                found += self._rerolls(game, ev, p, paid)
        found.sort(key=lambda o: -o.value)
        if self.search:
            self._search(found, ev, paid, *self.settings(game.difficulty))
        return found

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

    def _adjustments(self, game: Game, ev: Evaluator, p: int, paid: int) -> list[Option]:
        cost = ev.power_cost(p)
        out: list[Option] = []
        seen: set[tuple[int, int]] = set()
        for die in game.dice:
            for delta in (-1, 1):
                if (die.value, delta) in seen:
                    continue
                if die.cell is not None:
                    continue  # a staged twin of a tray value was or will be considered
                trial = game.copy()
                before: list[Action] = []
                if trial.staged:
                    trial.unstage_all()
                    before.append(actions.unstage_all())
                if not trial.can_adjust(die.index, delta):
                    continue
                seen.add((die.value, delta))
                trial.adjust(die.index, delta)
                if trial.phase is not Phase.PLACE:
                    continue
                before.append(actions.adjust(die.index, delta))
                for option in self._placements(trial, ev, before, p - 1, paid + cost):
                    option.cost = cost
                    out.append(option)
        return out

    def reroll_value(self, game: Game, chosen: Sequence[int]) -> float:
        """The expected final score of a REROLL of the ``chosen`` dice (by index), its penalty
        paid: the mean, over what the rerolled dice may show, of the best play of the roll."""
        ev = self.evaluator(game.difficulty)
        p = game.powers_left
        cells = game.board.cells
        values = ev.roll_values(cells, p - 1, exact=cells.count(EMPTY) <= EXACT_EMPTY)
        dice = [d.value for d in game.dice]
        kept = tuple(sorted(dice[i] for i in range(len(dice)) if i not in chosen))
        expected = 0.0
        for outcome, prob in outcomes(len(chosen)):
            expected += prob * values[tuple(sorted(kept + outcome))]
        return expected - game.power_penalty - ev.power_cost(p)

    def _rerolls(self, game: Game, ev: Evaluator, p: int, paid: int) -> list[Option]:
        cost = ev.power_cost(p)
        dice = [d.value for d in game.dice]
        out = []
        seen: set[Roll] = set()
        for k in range(1, 5):
            for chosen in combinations(range(4), k):
                kept = tuple(sorted(dice[i] for i in range(4) if i not in chosen))
                if kept in seen:
                    continue
                seen.add(kept)
                value = self.reroll_value(game, chosen)
                action: Action = actions.reroll(chosen)
                out.append(Option([action], value, None, p - 1, cost, searched=True))
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

    def turn(self, game: Game) -> list[Action]:
        """See :class:`~magdagdon.ai.players.Player`."""
        if game.phase is Phase.ROLL:
            return [actions.roll()]
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
