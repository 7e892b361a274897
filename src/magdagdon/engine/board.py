"""The 4×4 board, its notation and the bit masks the rules are computed with.

Squares are numbered 0–15 row-major (``4 * row + col``). A square holds nothing
(:data:`EMPTY`), a number 1–6, or a :data:`RUIN`.

The notation is four rows, top to bottom, joined by ``/``; in each row ``.`` is
empty, ``1``–``6`` a number and ``X`` a ruin:

>>> board = Board.parse("12../.3X./..../....")
>>> board[1], board[6]
(2, 7)
>>> str(board)
'12../.3X./..../....'
>>> board
Board('12../.3X./..../....')
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Final

EMPTY: Final = 0
"""The value of a square that holds neither a number nor a ruin."""
RUIN: Final = 7
"""The value of a RUIN square (it is not a number)."""

SIZE: Final = 4
SQUARES: Final = tuple(range(SIZE * SIZE))
FULL: Final = (1 << 16) - 1
"""The mask of all sixteen squares."""

_NOT_LEFT_EDGE: Final = 0xEEEE  # squares that have a left neighbour
_NOT_RIGHT_EDGE: Final = 0x7777  # squares that have a right neighbour


def neighbours(mask: int) -> int:
    """The squares orthogonally adjacent to any square of ``mask``.

    >>> square_names(neighbours(1 << 5))
    [1, 4, 6, 9]
    """
    return (
        ((mask << 4) & FULL)
        | (mask >> 4)
        | ((mask & _NOT_RIGHT_EDGE) << 1)
        | ((mask & _NOT_LEFT_EDGE) >> 1)
    )


NEIGHBOURS: Final = tuple(neighbours(1 << sq) for sq in SQUARES)
"""``NEIGHBOURS[sq]`` is the mask of the squares orthogonally adjacent to ``sq``."""


def bits(mask: int) -> Iterator[int]:
    """The squares of a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def square_names(mask: int) -> list[int]:
    """The squares of a mask as a sorted list (for messages and doctests)."""
    return list(bits(mask))


def square_label(square: int) -> str:
    """A square as people read it: ``'square 6 (row 2, column 3)'``."""
    return f"square {square} (row {square // SIZE + 1}, column {square % SIZE + 1})"


class NotationError(ValueError):
    """Raised for text that is not valid board notation."""


_CHAR_TO_VALUE: Final = {".": EMPTY, "X": RUIN, **{str(v): v for v in range(1, 7)}}
_VALUE_TO_CHAR: Final = {v: c for c, v in _CHAR_TO_VALUE.items()}


def _parse_cells(text: str) -> list[int]:
    rows = text.split("/")
    if len(rows) != SIZE:
        raise NotationError(f"{text!r} has {len(rows)} rows separated by '/', a board has {SIZE}")
    cells: list[int] = []
    for r, row in enumerate(rows):
        if len(row) != SIZE:
            raise NotationError(f"row {r + 1} {row!r} has {len(row)} squares, a row has 4")
        for c, char in enumerate(row):
            value = _CHAR_TO_VALUE.get(char)
            if value is None:
                raise NotationError(
                    f"{square_label(4 * r + c)}: {char!r} is not a square "
                    "(use '.', '1'-'6' or 'X', nothing else: no spaces, no lower case)"
                )
            cells.append(value)
    return cells


class Board:
    """The permanent squares of a game: immutable, hashable, with bit masks.

    ``masks`` are computed once: :attr:`empty`, :attr:`ruins`, :attr:`numbers`
    and :attr:`value_masks` (index 1–6 the squares holding that number; index
    0 and 7 are always 0 so that ``value_masks[v - 1] | value_masks[v + 1]`` is
    safe for every die value).
    """

    __slots__ = ("_cells", "empty", "numbers", "ruins", "value_masks")

    _cells: tuple[int, ...]
    empty: int
    numbers: int
    ruins: int
    value_masks: tuple[int, ...]

    def __init__(self, cells: str | Sequence[int] | None = None) -> None:
        """A board from notation or 16 square values (``EMPTY``, 1–6, ``RUIN``); empty by default.

        >>> Board("1.../..../..../...X") == Board([1] + [0] * 14 + [7])
        True
        """
        if cells is None:
            cells = (EMPTY,) * 16
        elif isinstance(cells, str):
            cells = _parse_cells(cells)
        cells = tuple(cells)
        if len(cells) != 16:
            raise NotationError(f"a board has 16 squares, got {len(cells)}")
        vm = [0] * 8
        empty = ruins = 0
        for sq, value in enumerate(cells):
            if type(value) is not int or not EMPTY <= value <= RUIN:
                raise NotationError(f"{square_label(sq)}: {value!r} is not a square value")
            if value == EMPTY:
                empty |= 1 << sq
            elif value == RUIN:
                ruins |= 1 << sq
            else:
                vm[value] |= 1 << sq
        self._cells = cells
        self.empty = empty
        self.ruins = ruins
        self.numbers = FULL & ~empty & ~ruins
        self.value_masks = tuple(vm)

    @classmethod
    def parse(cls, text: str) -> Board:
        """A board from its notation; raises :class:`NotationError` with the reason.

        >>> Board.parse("1234/..../..../...")
        Traceback (most recent call last):
        ...
        magdagdon.engine.board.NotationError: row 4 '...' has 3 squares, a row has 4
        """
        if not isinstance(text, str):
            raise NotationError(f"board notation must be text, got {type(text).__name__}")
        return cls(text)

    def __str__(self) -> str:
        chars = "".join(_VALUE_TO_CHAR[v] for v in self._cells)
        return "/".join(chars[i : i + SIZE] for i in range(0, 16, SIZE))

    def __repr__(self) -> str:
        return f"Board('{self}')"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self._cells == other._cells

    def __hash__(self) -> int:
        return hash(self._cells)

    def __getitem__(self, square: int) -> int:
        return self._cells[square]

    def __iter__(self) -> Iterator[int]:
        return iter(self._cells)

    @property
    def cells(self) -> tuple[int, ...]:
        """The 16 square values, row-major."""
        return self._cells

    @property
    def empty_count(self) -> int:
        """How many squares are empty (R1)."""
        return self.empty.bit_count()

    @property
    def empty_squares(self) -> list[int]:
        """The empty squares, in order (R1: where numbers and RUINS may still go).

        >>> Board.parse("1.../..../..../...X").empty_squares[:3]
        [1, 2, 3]
        """
        return list(bits(self.empty))

    @property
    def ruin_count(self) -> int:
        """How many squares are RUINS."""
        return self.ruins.bit_count()

    @property
    def is_full(self) -> bool:
        """True when every square holds a number or a RUIN (the game is over)."""
        return self.empty == 0

    def with_numbers(self, placements: Iterable[tuple[int, int]]) -> Board:
        """A new board with numbers put on empty squares: ``placements`` are (value, square)."""
        cells = list(self._cells)
        for value, square in placements:
            if cells[square] != EMPTY:
                raise ValueError(f"{square_label(square)} is not empty")
            if not 1 <= value <= 6:
                raise ValueError(f"{value!r} is not a die value")
            cells[square] = value
        return Board(cells)

    def with_ruin(self, square: int) -> Board:
        """A new board with a RUIN on an empty square."""
        if self._cells[square] != EMPTY:
            raise ValueError(f"{square_label(square)} is not empty")
        cells = list(self._cells)
        cells[square] = RUIN
        return Board(cells)

    def rows(self) -> list[tuple[int, ...]]:
        """The four rows, top to bottom, each left to right."""
        return [self._cells[r * SIZE : (r + 1) * SIZE] for r in range(SIZE)]

    def columns(self) -> list[tuple[int, ...]]:
        """The four columns, left to right, each top to bottom."""
        return [self._cells[c::SIZE] for c in range(SIZE)]
