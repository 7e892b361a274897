"""A deliberately simple second implementation of legality, MAGDAGDON and perft.

No bit masks, no shortcuts: a board is a list of 16 characters, squares are
looked at one by one, and every staging order of every die is tried. It is slow
and obviously right; the fast engine is tested against it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

Grid = list[str]  # 16 characters: '.', '1'-'6' or 'X'


def grid(notation: str) -> Grid:
    """The 16 squares of a board written in notation."""
    return list(notation.replace("/", ""))


def orthogonal(square: int) -> list[int]:
    """The squares directly up, down, left and right of ``square``."""
    row, col = divmod(square, 4)
    out = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        r, c = row + dr, col + dc
        if 0 <= r < 4 and 0 <= c < 4:
            out.append(4 * r + c)
    return out


def is_legal(board: Grid, value: int, square: int) -> bool:
    """Whether one die of ``value`` may go on ``square`` of ``board`` now (R3, R4)."""
    if board[square] != ".":
        return False
    if not any(ch.isdigit() for ch in board):
        return True
    touching = [int(board[n]) for n in orthogonal(square) if board[n].isdigit()]
    if not touching:
        return False
    return all(abs(n - value) <= 1 for n in touching)


def legal_squares(board: Grid, value: int) -> set[int]:
    """All squares where a die of ``value`` may go."""
    return {sq for sq in range(16) if is_legal(board, value, sq)}


def iter_staging_orders(
    board: Grid, dice: Sequence[int], depth: int
) -> Iterator[list[tuple[int, int]]]:
    """Every legal staging order of exactly ``depth`` of the dice, as (value, square) lists,
    depth first (so the first one comes without looking at the rest)."""
    if depth == 0:
        yield []
        return
    for i, value in enumerate(dice):
        rest = list(dice[:i]) + list(dice[i + 1 :])
        for sq in range(16):
            if is_legal(board, value, sq):
                after = list(board)
                after[sq] = str(value)
                for tail in iter_staging_orders(after, rest, depth - 1):
                    yield [(value, sq), *tail]


def staging_orders(board: Grid, dice: Sequence[int], depth: int) -> list[list[tuple[int, int]]]:
    """All legal staging orders of exactly ``depth`` of the dice."""
    return list(iter_staging_orders(board, dice, depth))


def first_staging_order(
    board: Grid, dice: Sequence[int], required: int
) -> list[tuple[int, int]] | None:
    """A naive depth-first search: the first legal staging order of ``required`` dice, or None."""
    return next(iter_staging_orders(board, dice, required), None)


def is_magdagdon(board: Grid, dice: Sequence[int], required: int) -> bool:
    """R5: no legal staging order of ``required`` dice exists."""
    return first_staging_order(board, dice, required) is None


def order_is_legal(board: Grid, order: Sequence[tuple[int, int]]) -> bool:
    """Whether staging ``order`` one die at a time is legal at every step."""
    board = list(board)
    for value, sq in order:
        if not is_legal(board, value, sq):
            return False
        board[sq] = str(value)
    return True


def perft(board: Grid, dice: Sequence[int], required: int) -> int:
    """Distinct staged results (sets of (square, value)) of at least ``required`` dice."""
    results: set[frozenset[tuple[int, int]]] = set()
    for depth in range(max(required, 0), len(dice) + 1):
        for order in staging_orders(board, dice, depth):
            results.add(frozenset((sq, v) for v, sq in order))
    return len(results)


def line_bonus(line: Sequence[int]) -> int:
    """R12 bonus points of one line of four numbers (0 if none)."""
    a, b, c, d = line
    if (b == a + 1 and c == b + 1 and d == c + 1) or (b == a - 1 and c == b - 1 and d == c - 1):
        return 60
    if a == b == c == d:
        return 40
    values = sorted(line)
    if values[0] == values[1] and values[2] == values[3] and values[1] != values[2]:
        return 20
    return 0


def score(board: Grid, powers_penalty: int = 0) -> int:
    """The total score of a board written as squares."""
    total = 0
    lines = [[4 * r + c for c in range(4)] for r in range(4)]
    lines += [[4 * r + c for r in range(4)] for c in range(4)]
    for line in lines:
        chars = [board[sq] for sq in line]
        total += sum(int(ch) for ch in chars if ch.isdigit())
        if all(ch.isdigit() for ch in chars):
            total += line_bonus([int(ch) for ch in chars])
    total -= 15 * board.count("X")
    return total - powers_penalty
