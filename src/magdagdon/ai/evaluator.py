"""Values of afterstates for the strong player: the learned value, the one-roll expectimax
and the exact endgame, memoised (in C where the accelerator is built, see :mod:`.fast`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

from ..engine import EMPTY, RUIN
from ..engine.placement import legal_mask, with_placed
from . import fast
from .features import LinearValue, quick_score
from .model import Model
from .ntuple import NTupleModel, NTupleValue, network_count
from .rolls import ROLLS, Roll, adjusted_rolls, sub_rolls

EXACT_EMPTY: Final = 4
"""With at most this many empty squares the search runs to the end of the game."""


class Evaluator:
    """Values of afterstates for one difficulty (memoised; one per game or per simulation)."""

    def __init__(self, model: Model | NTupleModel, native: bool | None = None) -> None:
        """An evaluator using ``model`` (the linear one, or an n-tuple network); ``native``:
        use the C accelerator (by default when it is available, see
        :mod:`magdagdon.ai.fast`); the values are the same either way."""
        self.model = model
        self.difficulty = model.difficulty
        self.minimum = model.difficulty.minimum
        self.penalties = model.difficulty.penalties
        if native is None:
            native = fast.AVAILABLE
        self._native: fast.NativeValue | fast.NativeNTuple | None = None
        self._linear: Callable[[tuple[int, ...], int], float]
        if isinstance(model, NTupleModel):
            if native:
                self._native = fast.NativeNTuple(model.weights, model.power_a, model.power_b)
            self._linear = self._native.value if self._native else NTupleValue(model)
        else:
            if native:
                self._native = fast.NativeValue(model.weights, model.bias)
            self._linear = (
                self._native.value if self._native else LinearValue(model.weights, model.bias)
            )
        self._per_power = isinstance(model, NTupleModel) and model.per_power
        self.work = 0
        """Staged sets looked at by the searches so far, a value found in the memo counted
        as when it was first computed: a measure of time that is the same on every machine
        and whatever was memoised before (the C version does not count the sets of the exact
        endgame)."""
        self._learned: dict[tuple[tuple[int, ...], int], float] = {}
        self._chances: dict[tuple[tuple[int, ...], int, bool], float] = {}
        self._rolls: dict[tuple[tuple[int, ...], int, bool], dict[Roll, float]] = {}
        self._costs: dict[tuple[tuple[int, ...], int, bool], int] = {}
        self._placed: dict[tuple[tuple[int, ...], int], dict[Roll, float]] = {}
        self._placed_costs: dict[tuple[tuple[int, ...], int], int] = {}

    def network_bytes(self) -> bytes | None:
        """The network with no power left, float32 weights as the C module reads them (None:
        no network, or no C module): of a network per number of powers left, the first."""
        if not isinstance(self._native, fast.NativeNTuple):
            return None
        network = self._native.network
        count, size = network_count(len(network) // 4)
        return network[: 4 * size] if count > 1 else network

    def clear(self) -> None:
        """Forget memoised values (call between games to bound memory)."""
        self._learned.clear()
        self._chances.clear()
        self._rolls.clear()
        self._costs.clear()
        self._placed.clear()
        self._placed_costs.clear()

    def bound_memory(self, learned: int = 300_000, rolls: int = 20_000) -> None:
        """Forget memoised values once there are more than ``learned`` learned values or
        ``rolls`` chance nodes (a long-lived player stays within a few hundred MB)."""
        if len(self._learned) > learned or len(self._rolls) > rolls:
            self.clear()

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
        placeable = self._placeable_rolls(cells, powers_left, exact)
        # a rescue (a die changed by 1) leaves a power fewer: a network per number of powers
        # values its placements with one power fewer; one value takes the linear model's
        # worth of a power off
        rescued = placeable
        spend = 0.0
        if powers_left:
            spend = float(self.power_cost(powers_left))
            if self._per_power:
                rescued = self._placeable_rolls(cells, powers_left - 1, exact)
            else:
                spend += self.model.power_value(empty)
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
                for other in adjusted_rolls(roll):
                    if other in rescued:
                        top = max(top, rescued[other] - spend)
            values[roll] = top
        self._rolls[key] = values
        self._costs[key] = self.work - start
        return values

    def best_placements(self, cells: tuple[int, ...], powers_left: int) -> dict[Roll, float]:
        """Per roll that can be placed on ``cells`` (with the minimum its empty squares ask
        for): the learned value of its best placement, ``powers_left`` held (memoised)."""
        key = (cells, powers_left)
        found = self._placed.get(key)
        if found is not None:
            self.work += self._placed_costs[key]  # (a memo hit counts the work it first took)
            return found
        start = self.work
        found = self._placed[key] = self._placeable_rolls(cells, powers_left, exact=False)
        self._placed_costs[key] = self.work - start
        return found

    def _placeable_rolls(
        self, cells: tuple[int, ...], powers_left: int, exact: bool
    ) -> dict[Roll, float]:
        """Per roll that can be placed on ``cells``: the value of its best next afterstate
        (with ``powers_left`` held; valued exactly near the end when ``exact``)."""
        required = self.difficulty.required(cells.count(EMPTY))
        if self._native is not None and (not exact or not powers_left):
            leaves = EXACT_EMPTY if exact else 0  # next afterstates valued exactly
            tops, work = self._native.best_rolls(cells, powers_left, required, self.minimum, leaves)
            self.work += work
            return {
                roll: top for (roll, _), top in zip(ROLLS, tops, strict=True) if top > -math.inf
            }
        child_value = self.value if exact else self.learned
        return self._placeable(cells, powers_left, required, child_value)

    def _placeable(
        self,
        cells: tuple[int, ...],
        powers_left: int,
        required: int,
        child_value: Callable[[tuple[int, ...], int], float],
    ) -> dict[Roll, float]:
        """Per roll that can be placed: the value of its best next afterstate."""
        best: dict[Roll, float] = {}
        results = free_results(cells)
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
            for sub in sub_rolls(roll):
                sub_value = best.get(sub)
                if sub_value is not None and sub_value > top:
                    top = sub_value
            if top > -math.inf:
                placeable[roll] = top
        return placeable


def free_results(cells: tuple[int, ...]) -> list[tuple[tuple[int, int], ...]]:
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
