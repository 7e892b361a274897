"""Scoring: line sums, bonuses (R12), ruins, power penalties (R13)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from magdagdon.ai.random_player import play_turn
from magdagdon.engine import (
    BONUS_POINTS,
    EMPTY,
    Board,
    Bonus,
    Difficulty,
    Game,
    Phase,
    line_bonus,
    score_board,
)
from magdagdon.engine.scoring import LINES, line_prospects

from .. import reference
from ..strategies import boards


def test_the_issue_example_scores_544() -> None:
    score = score_board(Board.parse("3456/3456/3456/3456"))
    assert [line.bonus for line in score.rows] == [Bonus.STRAIGHT] * 4
    assert [line.bonus for line in score.columns] == [Bonus.FOUR] * 4
    assert [line.total for line in score.columns] == [12, 16, 20, 24]
    assert score.base == 144 and score.bonuses == 400 and score.total == 544


def test_each_number_counts_twice_in_the_base() -> None:
    assert score_board(Board.parse("..../..5./..../....")).base == 10


@pytest.mark.parametrize(
    ("line", "bonus"),
    [
        ([1, 2, 3, 4], Bonus.STRAIGHT),
        ([3, 4, 5, 6], Bonus.STRAIGHT),
        ([4, 3, 2, 1], Bonus.STRAIGHT),
        ([6, 5, 4, 3], Bonus.STRAIGHT),
        ([2, 3, 4, 5], Bonus.STRAIGHT),
        ([1, 2, 4, 3], None),  # consecutive values, not in order along the line
        ([1, 2, 3, 2], None),
        ([5, 5, 5, 5], Bonus.FOUR),
        ([2, 5, 5, 2], Bonus.TWO_PAIRS),
        ([3, 3, 4, 4], Bonus.TWO_PAIRS),
        ([4, 3, 4, 3], Bonus.TWO_PAIRS),
        ([3, 3, 3, 4], None),  # three of a kind earns nothing
        ([3, 3, 4, 5], None),  # a pair alone earns nothing
        ([1, 2, 3, 0], None),  # incomplete
    ],
)
def test_r12_combination_bonus(line: list[int], bonus: Bonus | None) -> None:
    assert line_bonus(line) is bonus


def test_r12_bonus_points() -> None:
    assert (Bonus.STRAIGHT.points, Bonus.FOUR.points, Bonus.TWO_PAIRS.points) == (60, 40, 20)


def test_r12_straight_in_a_column_reads_top_to_bottom() -> None:
    score = score_board(Board.parse("6.../5.../4.../3..."))
    assert score.columns[0].bonus is Bonus.STRAIGHT
    assert score.total == 2 * 18 + 60


def test_a_line_with_a_ruin_scores_its_sum_but_no_bonus() -> None:
    score = score_board(Board.parse("12X4/..../..../...."))
    assert score.rows[0].total == 7 and score.rows[0].bonus is None
    assert score.ruins == 1 and score.ruin_penalty == 15
    assert score.total == 7 + 7 - 15


def test_power_penalty_is_subtracted() -> None:
    score = score_board(Board.parse("1.../..../..../....")).with_power_penalty(30)
    assert score.total == 2 - 30
    assert score.to_dict()["power_penalty"] == 30


def test_to_dict_has_every_part() -> None:
    data = score_board(Board.parse("3456/3456/3456/3456")).to_dict()
    assert data["total"] == 544
    assert data["rows"][0] == {"sum": 18, "bonus": "straight", "bonus_points": 60}
    assert set(data) == {
        "rows",
        "columns",
        "base",
        "bonuses",
        "ruins",
        "ruin_penalty",
        "power_penalty",
        "total",
    }


@given(boards())
def test_agrees_with_reference(board: Board) -> None:
    assert score_board(board).total == reference.score(reference.grid(str(board)))


@given(boards())
def test_formula_holds(board: Board) -> None:
    s = score_board(board)
    numbers = [v for v in board if 1 <= v <= 6]
    assert s.base == 2 * sum(numbers)
    assert s.total == s.base + s.bonuses - 15 * board.ruin_count


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(list(Difficulty)))
def test_a_line_prospect_never_rules_out_what_the_line_then_makes(
    seed: int, difficulty: Difficulty
) -> None:
    """Whatever bonus a line ends with was possible at every earlier turn it was open: its
    prospect then (the best still possible) is worth at least as much."""
    game = Game.new(difficulty, seed=seed)
    rng = random.Random(seed)
    seen: list[tuple[Board, list[Bonus | None]]] = []
    while game.phase is not Phase.OVER:
        seen.append((game.board, line_prospects(game.board)))
        play_turn(game, rng, power_chance=0.3)
    for index, line in enumerate(score_board(game.board).lines):
        if line.bonus is None:
            continue
        for board, prospects in seen:
            if EMPTY in [board[square] for square in LINES[index]]:  # open then
                prospect = prospects[index]
                assert prospect is not None, (board, index, line.bonus)
                assert BONUS_POINTS[prospect] >= BONUS_POINTS[line.bonus]


def test_prospects_of_lines_that_are_complete_ruined_or_dead() -> None:
    prospects = line_prospects(Board.parse("3333/.X../1.6./...."))
    assert prospects[0] is None  # complete: its FOUR is scored, not a prospect
    assert prospects[1] is None and prospects[5] is None  # a RUIN in row 2 and column 2
    assert prospects[2] is None  # row 3: the square between 1 and 6 can take nothing
    assert prospects[4] is None  # column 1: 3 . 1 .: only a 2 fits between, no combo
    assert prospects[7] is Bonus.STRAIGHT  # column 4: 3 . . . next to the 6: 3 4 5 6
