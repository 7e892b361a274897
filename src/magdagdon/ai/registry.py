"""The players by name, in one place: what ``magdagdon simulate --bot`` and the benchmarks
accept.

>>> PLAYERS
('random', 'greedy', 'heuristic', 'strong')
>>> make_player("greedy").name
'greedy'
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

from .heuristic import HeuristicPlayer
from .players import GreedyPlayer, Player, RandomPlayer
from .strong import StrongPlayer

_MAKERS: Final[dict[str, Callable[[int], Player]]] = {
    "random": lambda seed: RandomPlayer(random.Random(seed)),
    "greedy": lambda seed: GreedyPlayer(),
    "heuristic": lambda seed: HeuristicPlayer(),
    "strong": lambda seed: StrongPlayer(),
}

PLAYERS: Final = tuple(_MAKERS)
"""The names of the built-in players, weakest first."""


def make_player(name: str, seed: int = 0) -> Player:
    """A player by name; random choices (if any) come from ``seed``."""
    maker = _MAKERS.get(name)
    if maker is None:
        raise ValueError(f"unknown player {name!r}; known: {', '.join(PLAYERS)}")
    return maker(seed)
