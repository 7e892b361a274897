"""Scoring: line sums, combination bonuses (R12), ruin and power penalties (R13).

>>> score_board(Board.parse("3456/3456/3456/3456")).total
544
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import pairwise, product
from typing import Any, Final

from .board import EMPTY, RUIN, Board, bits
from .placement import allowed_values

RUIN_PENALTY: Final = 15
"""Points each RUIN costs."""


class Bonus(StrEnum):
    """A combination bonus of a complete all-number line (R12)."""

    STRAIGHT = "straight"
    FOUR = "four"
    TWO_PAIRS = "two_pairs"

    @property
    def points(self) -> int:
        """What the bonus is worth."""
        return BONUS_POINTS[self]


BONUS_POINTS: Final = {Bonus.STRAIGHT: 60, Bonus.FOUR: 40, Bonus.TWO_PAIRS: 20}

ROWS: Final = tuple(tuple(4 * r + c for c in range(4)) for r in range(4))
COLUMNS: Final = tuple(tuple(4 * r + c for r in range(4)) for c in range(4))
LINES: Final = ROWS + COLUMNS
"""The eight scoring lines (R11), each in board order: rows left to right, columns top down."""


def line_bonus(line: Sequence[int]) -> Bonus | None:
    """The bonus a line earns, in board order (R12), or None.

    >>> line_bonus([6, 5, 4, 3]), line_bonus([2, 5, 5, 2]), line_bonus([3, 3, 3, 4])
    (<Bonus.STRAIGHT: 'straight'>, <Bonus.TWO_PAIRS: 'two_pairs'>, None)
    """
    if len(line) != 4 or any(v in (EMPTY, RUIN) for v in line):
        return None
    steps = {line[i + 1] - line[i] for i in range(3)}
    if steps == {1} or steps == {-1}:
        return Bonus.STRAIGHT
    counts = sorted(Counter(line).values())
    if counts == [4]:
        return Bonus.FOUR
    if counts == [2, 2]:
        return Bonus.TWO_PAIRS
    return None


@dataclass(frozen=True)
class LineScore:
    """One row or column: the sum of its numbers and its bonus, if any."""

    total: int
    bonus: Bonus | None

    @property
    def bonus_points(self) -> int:
        """The bonus's points (0 without a bonus)."""
        return self.bonus.points if self.bonus else 0

    def to_dict(self) -> dict[str, Any]:
        """As JSON."""
        return {
            "sum": self.total,
            "bonus": self.bonus.value if self.bonus else None,
            "bonus_points": self.bonus_points,
        }


def _line_score(line: Sequence[int]) -> LineScore:
    return LineScore(sum(v for v in line if 1 <= v <= 6), line_bonus(line))


@dataclass(frozen=True)
class ScoreBreakdown:
    """The full score: ``total = base + bonuses - ruin_penalty - power_penalty``."""

    rows: tuple[LineScore, ...]
    columns: tuple[LineScore, ...]
    ruins: int
    power_penalty: int = 0
    lines: tuple[LineScore, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "lines", self.rows + self.columns)

    @property
    def base(self) -> int:
        """Sum of every row and column sum (each number counts twice)."""
        return sum(line.total for line in self.lines)

    @property
    def bonuses(self) -> int:
        """Sum of the line bonuses."""
        return sum(line.bonus_points for line in self.lines)

    @property
    def ruin_penalty(self) -> int:
        """15 points per RUIN."""
        return RUIN_PENALTY * self.ruins

    @property
    def total(self) -> int:
        """The score."""
        return self.base + self.bonuses - self.ruin_penalty - self.power_penalty

    def with_power_penalty(self, penalty: int) -> ScoreBreakdown:
        """The same breakdown with the Majda Power penalty set."""
        return ScoreBreakdown(self.rows, self.columns, self.ruins, penalty)

    def to_dict(self) -> dict[str, Any]:
        """As JSON (the game view's ``score``)."""
        return {
            "rows": [line.to_dict() for line in self.rows],
            "columns": [line.to_dict() for line in self.columns],
            "base": self.base,
            "bonuses": self.bonuses,
            "ruins": self.ruins,
            "ruin_penalty": self.ruin_penalty,
            "power_penalty": self.power_penalty,
            "total": self.total,
        }


def score_board(board: Board) -> ScoreBreakdown:
    """The score of a board: line sums, bonuses and ruin penalties (no power penalty)."""
    return ScoreBreakdown(
        rows=tuple(_line_score(row) for row in board.rows()),
        columns=tuple(_line_score(col) for col in board.columns()),
        ruins=board.ruin_count,
    )


def _fillable(line: tuple[int, ...]) -> bool:
    return all(abs(a - b) <= 1 for a, b in pairwise(line))


BONUS_PATTERNS: Final = {
    bonus: tuple(
        line
        for line in product(range(1, 7), repeat=4)
        if line_bonus(line) is bonus and _fillable(line)
    )
    for bonus in Bonus
}
"""Every complete line that earns each bonus and can be filled (neighbours along a line differ
by at most 1, so TWO PAIRS is a, a, a+1, a+1 in some order), in sorted order.

>>> BONUS_PATTERNS[Bonus.STRAIGHT][:2], len(BONUS_PATTERNS[Bonus.TWO_PAIRS])
(((1, 2, 3, 4), (2, 3, 4, 5)), 30)
"""


def line_prospects(board: Board) -> list[Bonus | None]:
    """For each line (in :data:`LINES` order: rows, then columns) still open, the best bonus
    it can still make; None for a line that is complete (its bonus is scored), holds a RUIN,
    or can make none. A bonus is still possible when one of its :data:`BONUS_PATTERNS` agrees
    with the line's numbers and puts on each empty square a value within 1 of every number
    next to it (numbers placed later may rule out more).

    >>> [b and b.value for b in line_prospects(Board.parse("1222/2.../..../...."))][:3]
    [None, 'four', 'straight']
    """
    allowed = {square: allowed_values(board, square) for square in bits(board.empty)}
    found: list[Bonus | None] = []
    for line in LINES:
        cells = [board[square] for square in line]
        if RUIN in cells or EMPTY not in cells:
            found.append(None)
            continue
        best = None
        for bonus in sorted(Bonus, key=lambda b: -BONUS_POINTS[b]):
            if any(
                all(
                    pattern[k] == cells[k] if cells[k] != EMPTY else pattern[k] in allowed[sq]
                    for k, sq in enumerate(line)
                )
                for pattern in BONUS_PATTERNS[bonus]
            ):
                best = bonus
                break
        found.append(best)
    return found
