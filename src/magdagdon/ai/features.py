"""Features of an afterstate (the permanent board after a turn) for the strong player.

A board is read as 16 square values (``EMPTY``, 1–6, ``RUIN``). An empty square can still
take only the values within ±1 of every number beside it (its *allowed mask*, bit ``v - 1``
for value ``v``). From that the features say, for every unfinished line, in how many ways it
can still become a STRAIGHT, a FOUR or TWO PAIRS and how many squares it still needs; how many
squares can no longer be filled (they will be RUINS), how tight the others are, what they are
likely to add to the base score, and how many powers are left.

The value of a board is ``score + weights · features`` (see :mod:`magdagdon.ai.strong`); the
weights are fitted from self-play (:mod:`magdagdon.ai.train`).

>>> cells = Board.parse("12../..../..../....").cells
>>> f = dict(zip(NAMES, features(cells, 0)))
>>> f["straight_need2_ways"], f["empty"], f["dead"]  # row 1 can only become 1-2-3-4
(1.0, 14.0, 0.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ..engine import BONUS_POINTS, EMPTY, RUIN, RUIN_PENALTY, Board, Bonus
from ..engine.board import NEIGHBOURS, bits
from ..engine.scoring import BONUS_PATTERNS, LINES

NEIGHBOUR_SQUARES: Final = tuple(tuple(bits(NEIGHBOURS[sq])) for sq in range(16))
ALL_VALUES: Final = 0b111111
NEAR: Final = (
    0,
    *tuple(sum(1 << w - 1 for w in range(max(1, v - 1), min(6, v + 1) + 1)) for v in range(1, 7)),
)
"""``NEAR[v]``: the allowed mask of a square next to a ``v`` (values ``v - 1`` … ``v + 1``)."""

PATTERNS: Final = tuple(BONUS_PATTERNS.items())
"""Every complete line that earns a bonus, by kind (the engine's
:data:`~magdagdon.engine.scoring.BONUS_PATTERNS`)."""

_KINDS = ("straight", "four", "two_pairs")
NAMES: Final = (
    *(f"{kind}_need{k}" for kind in _KINDS for k in range(1, 5)),
    *(f"{kind}_need{k}_ways" for kind in _KINDS for k in range(1, 5)),
    "open_line_no_bonus",
    "empty",
    "empty_squared",
    "dead",
    "tight1",
    "tight2",
    "tight3",
    "free",
    "allowed_value_sum",
    "frontier",
    "values_unplaceable",
    "values_one_square",
    "powers_left",
    "powers_left_x_empty",
    *(f"empty_is_{k}" for k in range(1, 16)),
)
"""The feature names, in the order :func:`features` returns them."""

_INDEX = {name: i for i, name in enumerate(NAMES)}
_NEED = tuple(tuple(_INDEX[f"{kind}_need{k}"] for k in range(1, 5)) for kind in _KINDS)
_WAYS = tuple(tuple(_INDEX[f"{kind}_need{k}_ways"] for k in range(1, 5)) for kind in _KINDS)
_NO_BONUS = _INDEX["open_line_no_bonus"]
_EMPTY, _EMPTY2, _DEAD, _FREE = (_INDEX[n] for n in ("empty", "empty_squared", "dead", "free"))
_TIGHT = (_DEAD, _INDEX["tight1"], _INDEX["tight2"], _INDEX["tight3"])
_VALUE_SUM, _FRONTIER = _INDEX["allowed_value_sum"], _INDEX["frontier"]
_UNPLACEABLE, _ONE_SQUARE = _INDEX["values_unplaceable"], _INDEX["values_one_square"]
_POWERS, _POWERS_EMPTY = _INDEX["powers_left"], _INDEX["powers_left_x_empty"]
_EMPTY_IS = (-1, *(_INDEX[f"empty_is_{k}"] for k in range(1, 16)))
_MASK_SIZE = tuple(m.bit_count() for m in range(64))
_MASK_SUM = tuple(sum(v + 1 for v in range(6) if m >> v & 1) for m in range(64))

_line_cache: dict[tuple[int, ...], tuple[tuple[int, float], ...]] = {}
_score_cache: dict[tuple[int, ...], int] = {}


def allowed_masks(cells: Sequence[int]) -> list[int]:
    """Per square: the allowed mask of an empty square, -1 for a number or a RUIN.

    >>> allowed_masks(Board.parse("3.../..../..../....").cells)[1]
    14
    """
    out = []
    for sq in range(16):
        if cells[sq] != EMPTY:
            out.append(-1)
            continue
        mask = ALL_VALUES
        for n in NEIGHBOUR_SQUARES[sq]:
            v = cells[n]
            if v != EMPTY and v != RUIN:
                mask &= NEAR[v]
        out.append(mask)
    return out


def _line_features(key: tuple[int, ...]) -> tuple[tuple[int, float], ...]:
    """Features of one unfinished line; ``key`` holds numbers 1–6 and ``8 + mask`` for empties."""
    need = sum(1 for c in key if c >= 8)
    found: list[tuple[int, float]] = []
    for kind, (_, patterns) in enumerate(PATTERNS):
        ways = 0
        for pattern in patterns:
            for c, v in zip(key, pattern, strict=True):
                if c >= 8:
                    if not (c - 8) >> (v - 1) & 1:
                        break
                elif c != v:
                    break
            else:
                ways += 1
        if ways:
            found.append((_NEED[kind][need - 1], 1.0))
            found.append((_WAYS[kind][need - 1], float(ways)))
    if not found:
        found.append((_NO_BONUS, 1.0))
    return tuple(found)


def features(cells: Sequence[int], powers_left: int) -> list[float]:
    """The feature vector of a board with ``powers_left`` (all zero on a full board)."""
    f = [0.0] * len(NAMES)
    allowed = allowed_masks(cells)
    empty = 0
    squares_for = [0] * 6  # per value: frontier squares where one die of it may go now
    for sq in range(16):
        m = allowed[sq]
        if m < 0:
            continue
        empty += 1
        if m != ALL_VALUES:
            for v in range(6):
                if m >> v & 1:
                    squares_for[v] += 1
        if m == ALL_VALUES:
            # no number beside it: anything may come, once the field reaches it
            f[_FREE] += 1
            continue
        size = _MASK_SIZE[m]
        f[_TIGHT[size]] += 1  # size 0: dead, it can only become a RUIN
        if size:
            f[_VALUE_SUM] += _MASK_SUM[m] / size  # the mean value it may still take
            f[_FRONTIER] += 1
    if not empty:
        return f
    if f[_FRONTIER]:
        f[_UNPLACEABLE] = float(squares_for.count(0))
        f[_ONE_SQUARE] = float(squares_for.count(1))
    f[_EMPTY] = float(empty)
    f[_EMPTY2] = float(empty * empty) / 16
    for line in LINES:
        key = []
        for sq in line:
            c = cells[sq]
            if c == RUIN:
                break
            key.append(8 + allowed[sq] if c == EMPTY else c)
        else:
            if max(key) < 8:
                continue
            k = tuple(key)
            found = _line_cache.get(k)
            if found is None:
                found = _line_cache[k] = _line_features(k)
            for i, x in found:
                f[i] += x
    f[_POWERS] = float(powers_left)
    f[_POWERS_EMPTY] = powers_left * empty / 16
    if empty < 16:
        f[_EMPTY_IS[empty]] = 1.0  # how the last turns divide the squares left is no line
    return f


class LinearValue:
    """``quick_score(cells) + bias + weights · features(cells, powers)`` (just the score on a
    full board), computed fast: each line's share, its points and its weighted line features,
    is remembered by the line's key (numbers, RUINS and the allowed masks of its empties)."""

    def __init__(self, weights: Sequence[float], bias: float) -> None:
        """A value function with these weights (in :data:`NAMES` order)."""
        if len(weights) != len(NAMES):
            raise ValueError(f"{len(NAMES)} weights are needed, got {len(weights)}")
        self.weights = tuple(weights)
        self.bias = bias
        self._lines: dict[tuple[int, ...], float] = {}

    def _line_value(self, key: tuple[int, ...]) -> float:
        points = float(sum(c for c in key if 1 <= c <= 6))
        if RUIN in key:
            return points
        if max(key) < 8:  # complete
            return float(_line_points(key))
        return points + sum(self.weights[i] * x for i, x in _line_features(key))

    def __call__(self, cells: Sequence[int], powers_left: int) -> float:
        """The value of a board with ``powers_left``."""
        w = self.weights
        allowed = allowed_masks(cells)
        lines = self._lines
        value = 0.0
        for line in LINES:
            key = tuple([8 + allowed[sq] if cells[sq] == EMPTY else cells[sq] for sq in line])
            part = lines.get(key)
            if part is None:
                part = lines[key] = self._line_value(key)
            value += part
        empty = 0
        ruins = 0
        frontier = 0
        rest = 0.0
        squares_for = [0] * 6
        for sq in range(16):
            m = allowed[sq]
            if m < 0:
                if cells[sq] == RUIN:
                    ruins += 1
                continue
            empty += 1
            if m == ALL_VALUES:
                rest += w[_FREE]
                continue
            size = _MASK_SIZE[m]
            rest += w[_TIGHT[size]]
            if size:
                rest += w[_VALUE_SUM] * _MASK_SUM[m] / size
                frontier += 1
                for v in range(6):
                    if m >> v & 1:
                        squares_for[v] += 1
        value -= ruins * RUIN_PENALTY
        if not empty:
            return value
        if frontier:
            rest += w[_FRONTIER] * frontier
            rest += w[_UNPLACEABLE] * squares_for.count(0) + w[_ONE_SQUARE] * squares_for.count(1)
        rest += w[_EMPTY] * empty + w[_EMPTY2] * empty * empty / 16
        rest += w[_POWERS] * powers_left + w[_POWERS_EMPTY] * powers_left * empty / 16
        if empty < 16:
            rest += w[_EMPTY_IS[empty]]
        return value + rest + self.bias


def quick_score(cells: Sequence[int]) -> int:
    """The board's score without power penalties (``score_board(...).total``), fast.

    >>> quick_score(Board.parse("3456/3456/3456/3456").cells)
    544
    """
    total = 0
    ruins = 0
    for line in LINES:
        key = tuple(cells[sq] for sq in line)
        points = _score_cache.get(key)
        if points is None:
            points = _score_cache[key] = _line_points(key)
        total += points
    for c in cells:
        if c == RUIN:
            ruins += 1
    return total - ruins * RUIN_PENALTY


def _line_points(line: tuple[int, ...]) -> int:
    numbers = [v for v in line if v != EMPTY and v != RUIN]
    points = sum(numbers)
    if len(numbers) == 4:
        for kind, patterns in PATTERNS:
            if line in patterns or (kind is Bonus.TWO_PAIRS and _two_pairs(line)):
                return points + BONUS_POINTS[kind]
    return points


def _two_pairs(line: tuple[int, ...]) -> bool:
    counts = sorted(line.count(v) for v in set(line))
    return counts == [2, 2]


__all__ = ["LINES", "NAMES", "LinearValue", "allowed_masks", "features", "quick_score"]
_ = Board  # used by the doctests
