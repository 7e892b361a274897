"""The players by name, in one place: what ``magdagdon simulate --bot`` and the benchmarks
accept; and anyone's bot as ``package.module:Class``.

>>> PLAYERS
('random', 'greedy', 'heuristic', 'linear', 'ntuple', 'strong')
>>> make_player("greedy").name
'greedy'
>>> make_player("magdagdon.ai.players:GreedyPlayer").name
'greedy'
"""

from __future__ import annotations

import importlib
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
    # the strong player of before the n-tuple networks (a linear value), for comparison
    "linear": lambda seed: StrongPlayer(value="linear", name="linear"),
    # the network's greedy player: the best afterstate by the learned value, no search
    "ntuple": lambda seed: StrongPlayer(value="network", search=False, name="ntuple"),
    "strong": lambda seed: StrongPlayer(),
}

PLAYERS: Final = tuple(_MAKERS)
"""The names of the built-in players, weakest first."""


def make_player(name: str, seed: int = 0) -> Player:
    """A player by name (random choices, if any, from ``seed``), or by ``package.module:Class``:
    that class, made with no arguments (it must have ``turn(game)``, see
    :class:`~magdagdon.ai.players.Player`; its ``name`` defaults to the spec). ValueError for
    anything else, with the reason."""
    maker = _MAKERS.get(name)
    if maker is not None:
        return maker(seed)
    if ":" not in name:
        raise ValueError(
            f"unknown player {name!r}; known: {', '.join(PLAYERS)}, or package.module:Class"
        )
    module_name, _, attribute = name.partition(":")
    try:
        found = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"cannot load the player {name!r}: {exc}") from exc
    player = found()
    if not callable(getattr(player, "turn", None)):
        raise ValueError(f"{name!r} has no turn(game) method: it is no player")
    if not isinstance(getattr(player, "name", None), str):
        player.name = name
    result: Player = player
    return result
