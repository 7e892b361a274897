"""The rolls of dice as the strong player weighs them: the 126 distinct rolls of four dice
with their probabilities, and the rolls a part of them or one power makes."""

from __future__ import annotations

import math
from collections import Counter
from functools import cache
from itertools import combinations, combinations_with_replacement
from typing import Final

Roll = tuple[int, ...]


def _probability(roll: Roll) -> float:
    counts = Counter(roll).values()
    ways = math.factorial(len(roll)) // math.prod(math.factorial(c) for c in counts)
    return ways / float(6 ** len(roll))


ROLLS: Final = tuple(
    (roll, _probability(roll)) for roll in combinations_with_replacement(range(1, 7), 4)
)
"""The 126 distinct rolls of four dice (sorted) with their probabilities (they sum to 1)."""


@cache
def outcomes(n: int) -> tuple[tuple[Roll, float], ...]:
    """The distinct results of rolling ``n`` dice (sorted) with their probabilities."""
    return tuple((r, _probability(r)) for r in combinations_with_replacement(range(1, 7), n))


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
