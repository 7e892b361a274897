"""Glicko-2 ratings (Glickman, "Example of the Glicko-2 system", 2013), for players and puzzles.

A rating is (rating, deviation, volatility) on the Glicko scale (a new one is 1500, 350,
0.06). :func:`update` rates one side after a rating period of games against others; a
puzzle attempt is one game of one period, the player winning when the puzzle is solved and
the puzzle when it is not (lichess rates its puzzles the same way). The example of the paper
is a doctest:

>>> after = update(Rating(1500, 200, 0.06), [(Rating(1400, 30), 1), (Rating(1550, 100), 0),
...                                          (Rating(1700, 300), 0)])
>>> round(after.rating, 2), round(after.deviation, 2), round(after.volatility, 6)
(1464.05, 151.52, 0.059996)

(The paper rounds its intermediate values: it prints 1464.06, 151.52 and 0.05999.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

SCALE: Final = 173.7178
"""Glicko-2's scale: a Glicko rating r is (r - 1500) / SCALE on it."""
TAU: Final = 0.5
"""The system constant: how much the volatility may change (Glickman suggests 0.3 to 1.2)."""
EPSILON: Final = 1e-6
"""The convergence tolerance of the volatility's iteration."""
MIN_DEVIATION: Final = 45.0
"""A deviation never falls below this (a long-rated player or puzzle still moves)."""
MAX_DEVIATION: Final = 350.0
"""Nor rises above a new rating's."""


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating on the Glicko scale."""

    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected(a: Rating, b: Rating) -> float:
    """The chance that ``a`` beats ``b`` (a player solves a puzzle)."""
    return _e((a.rating - 1500) / SCALE, (b.rating - 1500) / SCALE, b.deviation / SCALE)


def update(me: Rating, games: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """``me`` after a rating period of ``games`` (each an opponent and a score: 1 a win, 0 a
    loss, 0.5 a draw); with none, only the deviation grows (step 6 of the paper)."""
    mu = (me.rating - 1500) / SCALE
    phi = me.deviation / SCALE
    sigma = me.volatility
    if not games:
        grown = math.sqrt(phi * phi + sigma * sigma) * SCALE
        return Rating(me.rating, min(grown, MAX_DEVIATION), sigma)
    v_inv = 0.0
    delta_sum = 0.0
    for other, score in games:
        mu_j = (other.rating - 1500) / SCALE
        phi_j = other.deviation / SCALE
        g = _g(phi_j)
        e = _e(mu, mu_j, phi_j)
        v_inv += g * g * e * (1 - e)
        delta_sum += g * (score - e)
    v = 1.0 / v_inv
    delta = v * delta_sum
    # step 5: the new volatility (the Illinois algorithm)
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    new_sigma = math.exp(big_a / 2)
    # steps 6-8
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * delta_sum
    deviation = min(max(new_phi * SCALE, MIN_DEVIATION), MAX_DEVIATION)
    return Rating(1500 + new_mu * SCALE, deviation, new_sigma)


def attempt(player: Rating, puzzle: Rating, solved: bool) -> tuple[Rating, Rating]:
    """A rated attempt: (the player's new rating, the puzzle's)."""
    won = 1.0 if solved else 0.0
    return update(player, [(puzzle, won)]), update(puzzle, [(player, 1.0 - won)])
