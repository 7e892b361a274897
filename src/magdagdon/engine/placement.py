"""Where dice may go: legality (R3, R4), the MAGDAGDON search (R5) and perft.

Everything here works on bit masks (bit ``sq`` set = square ``sq``). For a die
of value ``v`` on a position with at least one number, the legal squares are::

    empty & neighbours(numbers) & ~neighbours(numbers far from v)

where "far from v" means a number that differs from ``v`` by 2 or more. With no
number on the board (R3) every empty square is legal.

The search (:func:`find_placement`) answers without enumerating staging orders
where a direct answer exists: one die is a mask test, two dice are a handful of
mask operations per pair of dice values (see :func:`_pair`), a board with no
number yet is answered from its shape; only three or more dice on a board with
numbers branch on the first placement.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

from .board import NEIGHBOURS, Board, bits, neighbours

Placement = tuple[int, int]
"""One staged die as ``(value, square)``."""


def legal_mask(empty: int, numbers: int, value_masks: Sequence[int], value: int) -> int:
    """The mask of squares where one die of ``value`` may be staged now.

    ``value_masks[v]`` holds the squares with number ``v`` (index 0 and 7 are 0);
    staged dice count as numbers (R4).
    """
    if not numbers:
        return empty  # R3: the first number of the game may go anywhere
    far = numbers & ~(value_masks[value - 1] | value_masks[value] | value_masks[value + 1])
    return empty & neighbours(numbers) & ~neighbours(far)


def with_placed(
    empty: int, numbers: int, value_masks: Sequence[int], placed: Iterable[tuple[int, int]]
) -> tuple[int, int, list[int]]:
    """The masks ``(empty, numbers, value_masks)`` with more numbers on them: ``placed`` are
    (value, square) pairs on empty squares, as staged dice count for the dice after them.

    >>> with_placed(0b11, 0, [0] * 8, [(4, 0)])[:2]
    (2, 1)
    """
    vm = list(value_masks)
    for value, square in placed:
        bit = 1 << square
        vm[value] |= bit
        empty &= ~bit
        numbers |= bit
    return empty, numbers, vm


def allowed_values(board: Board, square: int) -> frozenset[int]:
    """The values an empty square could still take, given the numbers next to it (R4: within
    1 of each).

    >>> sorted(allowed_values(Board.parse("3.../.4../..../...."), 1))
    [3, 4]
    """
    low, high = 1, 6
    for near in bits(NEIGHBOURS[square] & board.numbers):
        low, high = max(low, board[near] - 1), min(high, board[near] + 1)
    return frozenset(range(low, high + 1))


def legal_cells(board: Board, value: int) -> frozenset[int]:
    """The squares of ``board`` where one die of ``value`` may go now.

    >>> sorted(legal_cells(Board.parse("..../.3../..../...."), 5))
    []
    >>> sorted(legal_cells(Board.parse("..../.34./..../...."), 5))
    [2, 7, 10]
    """
    _check_value(value)
    return frozenset(bits(legal_mask(board.empty, board.numbers, board.value_masks, value)))


def find_placement(board: Board, dice: Iterable[int], required: int) -> list[Placement] | None:
    """A legal staging order of ``required`` of ``dice``, or None (MAGDAGDON, R5).

    The answer is a list of ``(die value, square)`` in an order in which each
    placement is legal when it is staged.

    >>> find_placement(Board.parse("3.../..../..../...."), [1, 6, 6, 1], 2)
    >>> find_placement(Board.parse("3.../..../..../...."), [1, 2, 6, 6], 2)
    [(2, 1), (1, 2)]
    """
    values = _dice_tuple(dice)
    _check_required(required, values)
    return search(board.empty, board.numbers, board.value_masks, values, required)


def search(
    empty: int, numbers: int, value_masks: Sequence[int], dice: tuple[int, ...], required: int
) -> list[Placement] | None:
    """:func:`find_placement` on masks; ``dice`` must be sorted."""
    if required <= 0:
        return []
    if required > len(dice) or required > empty.bit_count():
        return None
    if not numbers:
        return _search_unanchored(empty, dice, required)
    forbidden = {}
    for v in _distinct(dice):
        forbidden[v] = neighbours(
            numbers & ~(value_masks[v - 1] | value_masks[v] | value_masks[v + 1])
        )
    return _search(empty, neighbours(numbers), forbidden, dice, required)


def _search(
    empty: int, near: int, forbidden: dict[int, int], dice: tuple[int, ...], k: int
) -> list[Placement] | None:
    """The search on a position with numbers.

    ``near`` is the mask of squares touching a number; ``forbidden[v]`` the
    squares touching a number far from ``v``.
    """
    open_ = empty & near
    if k == 1:
        for v in _distinct(dice):
            legal = open_ & ~forbidden[v]
            if legal:
                return [(v, (legal & -legal).bit_length() - 1)]
        return None
    if k == 2:
        return _pair(empty, open_, forbidden, dice)
    dice = _usable(empty, open_, forbidden, dice, k)
    if len(dice) < k:
        return None
    for v in _distinct(dice):
        rest = _without(dice, v)
        far_values = _FAR[v]
        for sq in bits(open_ & ~forbidden[v]):
            nb = NEIGHBOURS[sq]
            after = {w: (f | nb) if w in far_values else f for w, f in forbidden.items()}
            found = _search(empty & ~(1 << sq), near | nb, after, rest, k - 1)
            if found is not None:
                return [(v, sq), *found]
    return None


def _usable(
    empty: int, open_: int, forbidden: dict[int, int], dice: tuple[int, ...], k: int
) -> tuple[int, ...]:
    """The dice that some legal staging could put somewhere (a sound over-estimate).

    A die of value ``w`` is staged either on one of its legal squares now, or
    next to an earlier staged die within 1 of ``w``; so the squares it can
    ever reach grow from its legal squares through such neighbours, at most
    ``k - 1`` steps. A die that can reach no square is never part of a legal
    set, and the search need not branch on it.
    """
    values = _distinct(dice)
    reach = {w: open_ & ~forbidden[w] for w in values}
    for _ in range(k - 1):
        grown = {
            w: reach[w]
            | (
                neighbours(reach.get(w - 1, 0) | reach[w] | reach.get(w + 1, 0))
                & empty
                & ~forbidden[w]
            )
            for w in values
        }
        if grown == reach:
            break
        reach = grown
    if all(reach.values()):
        return dice
    return tuple(v for v in dice if reach[v])


def _pair(
    empty: int, open_: int, forbidden: dict[int, int], dice: tuple[int, ...]
) -> list[Placement] | None:
    """Two dice on a position with numbers, without enumerating orders.

    A legal pair either has both dice touching the numbers already there
    (any two distinct legal squares, not adjacent when the values are 2+
    apart), or one die touching the numbers and the other joined through it
    (adjacent to it, values within 1, and fitting its own number neighbours).
    """
    legal = {v: open_ & ~forbidden[v] for v in _distinct(dice)}
    for a, b in _pairs(dice):
        la, lb = legal[a], legal[b]
        if not la and not lb:
            continue
        if b - a <= 1:
            both = la | lb
            if la and lb and both & (both - 1):
                first = la & -la
                second = lb & ~first
                if not second:  # lb is the single square of `first`
                    second = lb
                    first = la & ~lb
                    first &= -first
                return [(a, first.bit_length() - 1), (b, (second & -second).bit_length() - 1)]
            joined = neighbours(la) & empty & ~forbidden[b]
            if joined:
                sq = (joined & -joined).bit_length() - 1
                anchor = la & NEIGHBOURS[sq]
                return [(a, (anchor & -anchor).bit_length() - 1), (b, sq)]
            joined = neighbours(lb) & empty & ~forbidden[a]
            if joined:
                sq = (joined & -joined).bit_length() - 1
                anchor = lb & NEIGHBOURS[sq]
                return [(b, (anchor & -anchor).bit_length() - 1), (a, sq)]
        else:
            for sq in bits(la):
                apart = lb & ~((1 << sq) | NEIGHBOURS[sq])
                if apart:
                    return [(a, sq), (b, (apart & -apart).bit_length() - 1)]
    return None


def _search_unanchored(empty: int, dice: tuple[int, ...], k: int) -> list[Placement] | None:
    """The search on a board with no number (R3): the dice form one connected group.

    Any connected set of 2 or 3 squares is a path, so the answer depends only
    on whether the empty squares hold such a path and the dice can be ordered
    along it with neighbours within 1.
    """
    if k == 1:
        return [(dice[0], (empty & -empty).bit_length() - 1)]
    if k == 2:
        pair = next(((a, b) for a, b in _pairs(dice) if b - a <= 1), None)
        ends = empty & neighbours(empty)
        if pair is None or not ends:
            return None
        first = (ends & -ends).bit_length() - 1
        other = NEIGHBOURS[first] & empty
        return [(pair[0], first), (pair[1], (other & -other).bit_length() - 1)]
    if k == 3:
        chain = _chain3(dice)
        if chain is None:
            return None
        for middle in bits(empty):
            around = NEIGHBOURS[middle] & empty
            if around & (around - 1):
                one = around & -around
                two = around & ~one
                two &= -two
                return [
                    (chain[1], middle),
                    (chain[0], one.bit_length() - 1),
                    (chain[2], two.bit_length() - 1),
                ]
        return None
    # Four or more dice on a board with no number: branch on the first die.
    for v in _distinct(dice):
        rest = _without(dice, v)
        for sq in bits(empty):
            vm = [0] * 8
            vm[v] = 1 << sq
            found = search(empty & ~(1 << sq), 1 << sq, vm, rest, k - 1)
            if found is not None:
                return [(v, sq), *found]
    return None


def perft(board: Board, dice: Iterable[int], required: int) -> int:
    """How many distinct staged results of at least ``required`` dice legal staging reaches.

    A result is a set of (square, value); different staging orders that reach
    the same set count once. It is the placement counterpart of chess perft, a
    conformance count for the move generator.

    >>> perft(Board.parse("..../..../..../...."), [3, 3, 3, 3], 4)
    113
    """
    return len(staged_results(board, dice, required))


def divide(board: Board, dice: Iterable[int], required: int) -> dict[Placement, int]:
    """:func:`perft` split by the first placement, for finding where two counts differ.

    ``divide(...)[(v, sq)]`` counts the results reachable with a die of value
    ``v`` staged first on ``sq``. Results reachable from several first
    placements are counted under each, so the parts add up to at least the perft.
    """
    values = _dice_tuple(dice)
    _check_required(required, values)
    counts: dict[Placement, int] = {}
    for v in _distinct(values):
        for sq in sorted(legal_cells(board, v)):
            counts[(v, sq)] = perft(
                board.with_numbers([(v, sq)]), _without(values, v), max(0, required - 1)
            )
    return counts


def staged_results(board: Board, dice: Iterable[int], required: int) -> list[list[Placement]]:
    """Every distinct staged result of at least ``required`` dice, each as a legal staging order.

    The results are the ones :func:`perft` counts (``len(staged_results(...)) == perft(...)``),
    in a fixed order: fewer dice first, then by squares and values.

    >>> staged_results(Board.parse("1111/1111/1111/11.."), [1, 6, 6, 6], 2)
    []
    >>> staged_results(Board.parse("1111/1111/1111/11.."), [1, 1, 6, 6], 2)
    [[(1, 14), (1, 15)]]
    """
    values = _dice_tuple(dice)
    _check_required(required, values)
    orders: dict[tuple[Placement, ...], list[Placement]] = {(): []}
    frontier: list[tuple[Placement, ...]] = [()]
    found: list[list[Placement]] = [[]] if required <= 0 else []
    for size in range(1, len(values) + 1):
        nxt: list[tuple[Placement, ...]] = []
        for staged in frontier:
            order = orders[staged]
            rest = list(values)
            for v, _ in order:
                rest.remove(v)
            empty, numbers, vm = with_placed(board.empty, board.numbers, board.value_masks, order)
            for v in sorted(set(rest)):
                for sq in bits(legal_mask(empty, numbers, vm, v)):
                    key = tuple(sorted((*staged, (sq, v))))
                    if key not in orders:
                        orders[key] = [*order, (v, sq)]
                        nxt.append(key)
        nxt.sort()
        if size >= required:
            found.extend(orders[key] for key in nxt)
        frontier = nxt
    return found


def _check_required(required: int, dice: tuple[int, ...]) -> None:
    if type(required) is not int or not 0 <= required <= len(dice):
        raise ValueError(f"required must be 0 to the {len(dice)} dice given, got {required!r}")


def _check_value(value: int) -> None:
    if type(value) is not int or not 1 <= value <= 6:
        raise ValueError(f"{value!r} is not a die value (1-6)")


def _dice_tuple(dice: Iterable[int]) -> tuple[int, ...]:
    key = tuple(dice)
    values = _SORTED_DICE.get(key)
    if values is None:
        if len(key) > 4:
            raise ValueError(f"{len(key)} dice: a turn has at most four")
        for v in key:
            _check_value(v)
        values = tuple(sorted(key))
        if len(_SORTED_DICE) < 4096:  # every roll of up to four dice fits
            _SORTED_DICE[key] = values
    return values


_SORTED_DICE: dict[tuple[int, ...], tuple[int, ...]] = {}


_FAR = {v: frozenset(w for w in range(1, 7) if abs(w - v) >= 2) for v in range(1, 7)}


@cache
def _distinct(dice: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(set(dice)))


@cache
def _without(dice: tuple[int, ...], value: int) -> tuple[int, ...]:
    rest = list(dice)
    rest.remove(value)
    return tuple(rest)


@cache
def _pairs(dice: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """The distinct value pairs ``(a, b)``, ``a <= b``, two of the dice can make."""
    found = {(dice[i], dice[j]) for i in range(len(dice)) for j in range(i + 1, len(dice))}
    return tuple(sorted(found))


@cache
def _chain3(dice: tuple[int, ...]) -> tuple[int, int, int] | None:
    """Three of the dice ordered so that neighbours differ by at most 1, or None."""
    n = len(dice)
    for m in range(n):
        for i in range(n):
            for j in range(i + 1, n):
                if m in (i, j):
                    continue
                x, y, z = dice[i], dice[m], dice[j]
                if abs(x - y) <= 1 and abs(z - y) <= 1:
                    return (x, y, z)
    return None
