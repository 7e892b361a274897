"""perft: counts of distinct staged results, checked against a table and the reference."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from magdagdon.engine import Board, divide, legal_cells, perft, staged_results

from .. import reference
from ..strategies import played_boards

TABLE = Path(__file__).parent.parent / "data" / "perft.txt"


def table() -> list[tuple[str, list[int], int, int]]:
    """Rows of ``board | dice | required | count`` from the perft table."""
    rows = []
    for line in TABLE.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        board, dice, required, count = (part.strip() for part in line.split("|"))
        rows.append((board, [int(d) for d in dice.split()], int(required), int(count)))
    return rows


@pytest.mark.parametrize(("board", "dice", "required", "count"), table())
def test_perft_table(board: str, dice: list[int], required: int, count: int) -> None:
    assert perft(Board.parse(board), dice, required) == count


@pytest.mark.parametrize(("board", "dice", "required", "count"), table())
def test_perft_table_matches_the_simple_implementation(
    board: str, dice: list[int], required: int, count: int
) -> None:
    assert reference.perft(reference.grid(board), dice, required) == count


def test_divide_covers_every_first_placement() -> None:
    board = Board.parse("..../.34./..../....")
    parts = divide(board, [3, 4, 5], 2)
    assert set(parts) == {(v, sq) for v in (3, 4, 5) for sq in legal_cells(board, v)}
    assert sum(parts.values()) >= perft(board, [3, 4, 5], 2)
    for (v, sq), count in parts.items():
        after = reference.grid(str(board.with_numbers([(v, sq)])))
        rest = [3, 4, 5]
        rest.remove(v)
        assert count == reference.perft(after, rest, 1)


@settings(max_examples=40, deadline=None)
@given(played_boards(), st.lists(st.integers(1, 6), min_size=1, max_size=4), st.integers(0, 3))
def test_agrees_with_reference(board: Board, dice: list[int], required: int) -> None:
    if board.numbers == 0 and len(dice) == 4:
        dice = dice[:3]  # the reference is slow on an empty board with four dice
    required = min(required, len(dice))  # more is a question without sense (a ValueError)
    assert perft(board, dice, required) == reference.perft(
        reference.grid(str(board)), dice, required
    )


@pytest.mark.parametrize(("board", "dice", "required", "count"), table())
def test_staged_results_are_the_perft_results_each_with_a_legal_order(
    board: str, dice: list[int], required: int, count: int
) -> None:
    results = staged_results(Board.parse(board), dice, required)
    assert len(results) == count
    grid = reference.grid(board)
    seen = set()
    for order in results:
        assert len(order) >= required and reference.order_is_legal(grid, order)
        key = frozenset((sq, v) for v, sq in order)
        assert key not in seen
        seen.add(key)
