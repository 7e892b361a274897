"""Glicko-2 ratings: Glickman's worked example, and what every rated attempt must do."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from magdagdon.ratings import MAX_DEVIATION, MIN_DEVIATION, Rating, attempt, expected, update

ratings = st.builds(
    Rating,
    st.floats(600, 2600),
    st.floats(MIN_DEVIATION, MAX_DEVIATION),
    st.floats(0.03, 0.1),
)


def test_glickmans_worked_example() -> None:
    after = update(
        Rating(1500, 200, 0.06),
        [(Rating(1400, 30), 1), (Rating(1550, 100), 0), (Rating(1700, 300), 0)],
    )
    assert after.rating == pytest.approx(1464.06, abs=0.02)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=1e-5)


def test_a_period_without_games_only_widens_the_deviation() -> None:
    after = update(Rating(1700, 80, 0.06), [])
    assert after.rating == 1700 and after.deviation > 80


@given(ratings, ratings)
def test_solving_raises_the_player_and_lowers_the_puzzle(player: Rating, puzzle: Rating) -> None:
    me, it = attempt(player, puzzle, solved=True)
    assert me.rating > player.rating and it.rating < puzzle.rating
    assert MIN_DEVIATION <= me.deviation <= MAX_DEVIATION


@given(ratings, ratings)
def test_missing_lowers_the_player_and_raises_the_puzzle(player: Rating, puzzle: Rating) -> None:
    me, it = attempt(player, puzzle, solved=False)
    assert me.rating < player.rating and it.rating > puzzle.rating


@given(ratings, ratings)
def test_an_unlikely_solve_moves_more_than_a_likely_one(a: Rating, b: Rating) -> None:
    low, high = (a, b) if a.rating < b.rating else (b, a)
    if high.rating - low.rating < 50:
        return
    player = Rating(1500, 150, 0.06)
    gain_hard = attempt(player, Rating(high.rating, 100), True)[0].rating - player.rating
    gain_easy = attempt(player, Rating(low.rating, 100), True)[0].rating - player.rating
    assert gain_hard > gain_easy > 0
    assert expected(player, Rating(low.rating, 100)) > expected(player, Rating(high.rating, 100))
