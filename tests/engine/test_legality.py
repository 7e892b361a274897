"""Legal placement: adjacency, ±1 against every neighbour, ruins neutral, first die (R3, R4)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from magdagdon.engine import Board, legal_cells

from .. import reference
from ..strategies import boards, played_boards


def cells(board: str, value: int) -> list[int]:
    return sorted(legal_cells(Board.parse(board), value))


def test_r3_first_die_of_the_game_goes_anywhere() -> None:
    assert cells("..../..../..../....", 6) == list(range(16))


def test_r3_board_with_only_ruins_counts_as_no_number() -> None:
    assert cells("X.../.X../..X./...X", 1) == [1, 2, 3, 4, 6, 7, 8, 9, 11, 12, 13, 14]


def test_later_dice_must_touch_a_number_orthogonally() -> None:
    # 3 on square 5: neighbours 1, 4, 6, 9; diagonals (0, 2, 8, 10) do not count
    assert cells("..../.3../..../....", 3) == [1, 4, 6, 9]


def test_value_within_one_of_every_neighbour() -> None:
    # square 6 touches 3 (square 5) and 4 (square 7): only 3 or 4 fit (the rules' example)
    board = "..../.3.4/..../...."
    assert 6 in cells(board, 3) and 6 in cells(board, 4)
    for v in (1, 2, 5, 6):
        assert 6 not in cells(board, v)


def test_equal_values_are_allowed() -> None:
    assert 1 in cells("5.../..../..../....", 5)


def test_ruin_gives_no_connection() -> None:
    # square 2 touches only the ruin (1) and empty squares
    assert 2 not in cells("3X../..../..../....", 3)


def test_ruin_restricts_no_neighbour() -> None:
    assert sorted(cells("X.../5.../..../....", 6)) == [5, 8]


def test_occupied_squares_are_never_legal() -> None:
    board = "1234/5612/3456/X..."
    for v in range(1, 7):
        assert all(Board.parse(board)[sq] == 0 for sq in cells(board, v))


def test_r4_staged_dice_count_when_checking_later_ones() -> None:
    board = Board.parse("3.../..../..../....")
    assert 2 not in legal_cells(board, 4)
    staged = board.with_numbers([(4, 1)])  # a 4 staged on square 1
    assert 2 in legal_cells(staged, 4) and 2 in legal_cells(staged, 5)
    assert 2 not in legal_cells(staged, 6)


@pytest.mark.parametrize("value", [0, 7, -1])
def test_bad_value_is_rejected(value: int) -> None:
    with pytest.raises(ValueError, match="not a die value"):
        legal_cells(Board(), value)


@given(boards(), st.integers(1, 6))
def test_agrees_with_reference_on_any_board(board: Board, value: int) -> None:
    assert legal_cells(board, value) == reference.legal_squares(reference.grid(str(board)), value)


@given(played_boards(), st.integers(1, 6))
def test_agrees_with_reference_on_played_boards(board: Board, value: int) -> None:
    assert legal_cells(board, value) == reference.legal_squares(reference.grid(str(board)), value)
