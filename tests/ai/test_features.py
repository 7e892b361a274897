"""The strong player's afterstate features, each checked against a plain recomputation."""

from __future__ import annotations

from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from magdagdon.ai.features import (
    LINES,
    NAMES,
    PATTERNS,
    LinearValue,
    allowed_masks,
    features,
    quick_score,
)
from magdagdon.engine import EMPTY, RUIN, Board, line_bonus, score_board

from ..strategies import boards, played_boards


def allowed_plain(board: Board, sq: int) -> set[int]:
    """Values within 1 of every number beside the square (a plain reading of the rule)."""
    r, c = divmod(sq, 4)
    around = [
        board[4 * rr + cc]
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
        if 0 <= rr < 4 and 0 <= cc < 4
    ]
    return {v for v in range(1, 7) if all(abs(v - n) <= 1 for n in around if 1 <= n <= 6)}


@given(boards())
def test_quick_score_is_the_engine_score(board: Board) -> None:
    assert quick_score(board.cells) == score_board(board).total


@given(boards())
def test_allowed_masks_follow_the_neighbours(board: Board) -> None:
    masks = allowed_masks(board.cells)
    for sq in range(16):
        if board[sq] != EMPTY:
            assert masks[sq] == -1
        else:
            assert {v for v in range(1, 7) if masks[sq] >> (v - 1) & 1} == allowed_plain(board, sq)


@settings(max_examples=60, deadline=None)
@given(played_boards())
def test_line_ways_count_the_bonus_completions(board: Board) -> None:
    """Per line: the ways a bonus can still come equal the completions found by brute force."""
    f = dict(zip(NAMES, features(board.cells, 0), strict=True))
    expected = {name: 0.0 for name in NAMES if "_need" in name}
    for line in LINES:
        cells = [board[sq] for sq in line]
        if RUIN in cells or EMPTY not in cells:
            continue
        need = cells.count(EMPTY)
        choices = [
            sorted(allowed_plain(board, sq)) if board[sq] == EMPTY else [board[sq]] for sq in line
        ]
        kinds: dict[str, int] = {}
        for filled in product(*choices):
            if any(abs(filled[i] - filled[i + 1]) > 1 for i in range(3)):
                continue  # neighbours along the line can never differ by more than 1
            bonus = line_bonus(filled)
            if bonus is not None:
                kinds[bonus.value] = kinds.get(bonus.value, 0) + 1
        for kind, ways in kinds.items():
            expected[f"{kind}_need{need}"] += 1
            expected[f"{kind}_need{need}_ways"] += ways
    assert {k: f[k] for k in expected} == expected


def test_patterns_are_every_bonus_line_a_board_can_hold() -> None:
    found = {
        line
        for line in product(range(1, 7), repeat=4)
        if all(abs(line[i] - line[i + 1]) <= 1 for i in range(3)) and line_bonus(line)
    }
    assert found == {p for _, patterns in PATTERNS for p in patterns}


def test_a_full_board_has_no_features() -> None:
    assert not any(features(Board.parse("3456/3456/3456/3456").cells, 2))


@given(st.integers(0, 3))
def test_powers_left_are_features(powers: int) -> None:
    f = dict(zip(NAMES, features(Board.parse("12../..../..../....").cells, powers), strict=True))
    assert f["powers_left"] == powers
    assert f["powers_left_x_empty"] == powers * 14 / 16


@settings(max_examples=150, deadline=None)
@given(
    boards(),
    st.integers(0, 3),
    st.lists(st.floats(-5, 5), min_size=len(NAMES), max_size=len(NAMES)),
)
def test_the_fast_value_is_score_plus_weights_times_features(
    board: Board, powers: int, weights: list[float]
) -> None:
    value = LinearValue(weights, 2.5)
    expected = float(quick_score(board.cells))
    if board.empty_count:
        expected += 2.5 + sum(
            w * x for w, x in zip(weights, features(board.cells, powers), strict=True)
        )
    assert value(board.cells, powers) == pytest.approx(expected, abs=1e-6)
    assert value(board.cells, powers) == pytest.approx(expected, abs=1e-6)  # from its memory
