"""The rolls of dice as the strong player weighs them: the 126 distinct rolls of four dice
with their probabilities, and the rolls a part of them or one power makes."""

from __future__ import annotations

from functools import cache
from itertools import combinations
from typing import Final

from ..engine.dice import Roll, outcomes

__all__ = ["ROLLS", "Roll", "adjusted_rolls", "outcomes", "reroll_rolls", "sub_rolls"]

ROLLS: Final = outcomes(4)
"""The 126 distinct rolls of four dice (sorted) with their probabilities (they sum to 1)."""


@cache
def sub_rolls(roll: Roll) -> tuple[Roll, ...]:
    """The distinct sub-multisets of a roll, largest first."""
    found = {tuple(c) for k in range(1, len(roll) + 1) for c in combinations(roll, k)}
    return tuple(sorted(found, key=lambda r: (-len(r), r)))


@cache
def adjusted_rolls(roll: Roll) -> tuple[Roll, ...]:
    """The rolls one DECREASE/INCREASE of one die makes of ``roll``."""
    found = set()
    for i, v in enumerate(roll):
        for w in (v - 1, v + 1):
            if 1 <= w <= 6:
                found.add(tuple(sorted((*roll[:i], w, *roll[i + 1 :]))))
    return tuple(sorted(found))


@cache
def reroll_rolls(kept: Roll, rerolled: int) -> tuple[tuple[Roll, float], ...]:
    """The rolls a REROLL of ``rerolled`` dice that keeps the (sorted) values ``kept`` may come
    to, each sorted, with their probabilities, in the order of :func:`outcomes`."""
    return tuple((tuple(sorted(kept + outcome)), p) for outcome, p in outcomes(rerolled))
