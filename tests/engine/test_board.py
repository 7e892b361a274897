"""Board notation: parse/format round trip, repr, masks and clear errors."""

from __future__ import annotations

import pytest
from hypothesis import given

from magdagdon.engine import EMPTY, RUIN, Board, NotationError
from magdagdon.engine.board import NEIGHBOURS, bits, neighbours

from ..strategies import boards


def test_notation_example_from_design() -> None:
    board = Board.parse("12../.3X./..../....")
    assert board[0] == 1 and board[1] == 2 and board[5] == 3
    assert board[6] == RUIN
    assert board[2] == EMPTY
    assert str(board) == "12../.3X./..../...."
    assert board.empty_count == 12 and board.ruin_count == 1


def test_repr_round_trips() -> None:
    board = Board.parse("3456/..X./..../6...")
    assert repr(board) == "Board('3456/..X./..../6...')"
    assert eval(repr(board), {"Board": Board}) == board


@pytest.mark.parametrize(
    "text",
    [
        "x.../..../..../....",
        " X.../..../..../....",
        "X.../..../..../....\n",
        "X.. ./..../..../....",
    ],
)
def test_notation_is_strict(text: str) -> None:
    """Issue #19: only '.', '1'-'6' and 'X', no lower case, no surrounding spaces."""
    with pytest.raises(NotationError):
        Board.parse(text)
    assert Board.parse("X.../..../..../....")[0] == RUIN


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "1 rows"),
        ("..../..../....", "3 rows"),
        ("..../..../..../..../....", "5 rows"),
        ("...../..../..../....", "row 1 '.....' has 5 squares"),
        ("..../..../..../...", "row 4 '...' has 3 squares"),
        ("..../..7./..../....", "square 6 (row 2, column 3): '7' is not a square"),
        ("..../..../0.../....", "'0' is not a square"),
        ("..../..../..../...?", "'?' is not a square"),
    ],
)
def test_malformed_notation_says_why(text: str, reason: str) -> None:
    with pytest.raises(NotationError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        Board.parse(text)


def test_notation_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        Board.parse("nonsense")


def test_board_of_bad_values_is_rejected() -> None:
    with pytest.raises(NotationError):
        Board([0] * 15)
    with pytest.raises(NotationError):
        Board([0] * 15 + [8])


@given(boards())
def test_parse_format_round_trip(board: Board) -> None:
    assert Board.parse(str(board)) == board
    assert hash(Board.parse(str(board))) == hash(board)


@given(boards())
def test_masks_partition_the_squares(board: Board) -> None:
    numbers = 0
    for v in range(1, 7):
        assert board.value_masks[v] & numbers == 0
        numbers |= board.value_masks[v]
    assert numbers == board.numbers
    assert board.value_masks[0] == board.value_masks[7] == 0
    assert board.empty | board.numbers | board.ruins == (1 << 16) - 1
    assert board.empty & board.numbers == board.empty & board.ruins == 0
    for sq in range(16):
        assert (board.empty >> sq & 1) == (board[sq] == EMPTY)


def test_neighbours_stay_on_the_board() -> None:
    assert sorted(bits(NEIGHBOURS[0])) == [1, 4]
    assert sorted(bits(NEIGHBOURS[3])) == [2, 7]  # no wrap to square 4
    assert sorted(bits(NEIGHBOURS[4])) == [0, 5, 8]  # no wrap to square 3
    assert sorted(bits(NEIGHBOURS[15])) == [11, 14]
    assert neighbours(0) == 0
    for sq in range(16):
        r, c = divmod(sq, 4)
        expected = {
            4 * (r + dr) + c + dc
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < 4 and 0 <= c + dc < 4
        }
        assert set(bits(NEIGHBOURS[sq])) == expected


def test_with_numbers_and_ruin_are_new_boards() -> None:
    board = Board.parse("1.../..../..../....")
    after = board.with_numbers([(2, 1)]).with_ruin(15)
    assert str(after) == "12../..../..../...X"
    assert str(board) == "1.../..../..../...."
    with pytest.raises(ValueError):
        board.with_numbers([(3, 0)])
    with pytest.raises(ValueError):
        board.with_ruin(0)


def test_rows_and_columns() -> None:
    board = Board.parse("1234/5612/3456/X.12")
    assert board.rows()[1] == (5, 6, 1, 2)
    assert board.columns()[0] == (1, 5, 3, RUIN)
