"""The MAGDAGDON search: find_placement is exact and its witness is a legal order (R5)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from magdagdon.engine import Board, find_placement, perft

from .. import reference
from ..strategies import boards, dice, four_dice, played_boards


def check(board: Board, values: list[int], required: int) -> None:
    """find_placement agrees with the reference, and its witness is legal."""
    found = find_placement(board, values, required)
    grid = reference.grid(str(board))
    assert (found is None) == reference.is_magdagdon(grid, values, required)
    if found is not None:
        assert len(found) == max(required, 0)
        assert reference.order_is_legal(grid, found)
        assert not Counter(v for v, _ in found) - Counter(values)


@pytest.mark.parametrize(
    ("board", "values", "required", "magdagdon"),
    [
        ("..../..../..../....", [1, 3, 5, 6], 2, False),  # 5 and 6 side by side
        ("..../..../..../....", [1, 3, 5, 1], 3, True),  # no three chain within 1
        ("..../..../..../....", [1, 1, 3, 5], 2, False),
        ("..../..../..../....", [2, 4, 6, 2], 2, False),  # the two 2s
        ("..../..../..../....", [1, 3, 5, 3], 3, True),
        ("..../..../..../....", [2, 3, 4, 6], 3, False),  # 2-3-4 in an L or a line
        ("X.X./.X.X/X.X./.X.X", [1, 1, 1, 1], 2, True),  # no two empty squares touch
        ("X.X./.X.X/X.X./.X.X", [1, 1, 1, 1], 1, False),
        ("3.../..../..../....", [1, 6, 6, 1], 2, True),
        ("3.../..../..../....", [1, 2, 6, 6], 2, False),  # 2 next to the 3, then 1 next to the 2
        ("6666/6666/6666/666.", [1, 2, 3, 4], 1, True),
        ("6666/6666/6666/666.", [1, 2, 3, 5], 1, False),
        ("1.6./..../..../....", [3, 3, 4, 4], 2, True),
        ("1.6./..../..../....", [2, 3, 4, 5], 3, False),  # 2 by the 1, 5 by the 6
    ],
)
def test_examples(board: str, values: list[int], required: int, magdagdon: bool) -> None:
    parsed = Board.parse(board)
    assert (find_placement(parsed, values, required) is None) is magdagdon
    check(parsed, values, required)


def test_staging_order_matters_for_the_witness() -> None:
    # the 5 must wait until the 4 is staged next to the 3
    found = find_placement(Board.parse("3.../..../..../...."), [4, 5, 1, 1], 2)
    assert found is not None
    assert reference.order_is_legal(reference.grid("3.../..../..../...."), found)


def test_more_required_than_squares_is_impossible() -> None:
    assert find_placement(Board.parse("1111/1111/1111/11.."), [1, 1, 1, 1], 3) is None


@pytest.mark.parametrize(("dice", "required"), [([1, 2], 3), ([1, 2, 3, 4], 5), ([1], -1)])
def test_a_required_count_the_dice_cannot_meet_is_an_error(dice: list[int], required: int) -> None:
    """Issue #19: None would read as MAGDAGDON; a question that makes no sense raises."""
    with pytest.raises(ValueError, match="required"):
        find_placement(Board(), dice, required)
    with pytest.raises(ValueError, match="required"):
        perft(Board(), dice, required)


def test_more_than_four_dice_is_an_error() -> None:
    with pytest.raises(ValueError, match="at most four"):
        perft(Board(), [1, 2, 3, 4, 5], 2)


def test_nothing_required_is_an_empty_order() -> None:
    assert find_placement(Board(), [1, 2, 3, 4], 0) == []


@given(boards(), four_dice, st.integers(1, 3))
def test_agrees_with_reference_on_any_board(board: Board, values: list[int], k: int) -> None:
    check(board, values, min(k, board.empty_count))


@given(played_boards(), four_dice, st.integers(1, 3))
def test_agrees_with_reference_on_played_boards(board: Board, values: list[int], k: int) -> None:
    check(board, values, min(k, board.empty_count))


@settings(max_examples=60)
@given(boards(), four_dice)
def test_four_dice_agree_with_reference(board: Board, values: list[int]) -> None:
    check(board, values, min(4, board.empty_count))


@given(boards(), dice, st.integers(0, 4))
def test_any_number_of_dice(board: Board, values: list[int], k: int) -> None:
    check(board, values, min(k, board.empty_count, len(values)))
