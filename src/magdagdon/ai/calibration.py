"""What a hint's expected final score is corrected by, so that it means what it says.

The coach ranks options by a learned value: an estimate of the final score that is good at
telling moves apart and biased as a whole. Trained without a power in hand, the networks do
not know what the coach will make of one; the linear value was fitted to games of a weaker
player. Measured on games of the coach itself, the gap between what a hint said and what came
of it was up to +18 points in the first half of a PEACEFUL game (``BENCHMARKS.md``).

The correction is a table per difficulty and number of empty squares at the decision: the mean
of (final score − expected score of the move chosen) over games of the coach on training seeds
(``b"magdagdon-calibrate/<seed>/<index>"``, never an evaluation seed), fitted by
``magdagdon train --calibrate``. A hint adds the offset of its board's empty squares to every
plan it shows: the same number for every plan of one decision, so the choice, a plan's cost
against the best and a review's expected losses are unchanged; only what the expected score
means is.

A table holds for the values it was fitted on: ``fitted_for`` names each difficulty's value
(its file's sha256), and :func:`offset` applies none to a difficulty whose value has changed
since (a test refuses to ship that).

>>> entry = table()["nightmare"]
>>> offset(Difficulty.NIGHTMARE, 16) == offsets_of(entry["decisions"], entry["means"])[16]
True
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from importlib import resources
from typing import Any, Final

from ..engine import EMPTY, Difficulty, Game, Phase
from .model import WEIGHTS_FILE
from .ntuple import NETWORKS
from .strong import StrongPlayer
from .values import LINEAR, coach_table

FILE: Final = "calibration.json"
"""The table's file in the package folder of the networks."""
LEAST: Final = 1000
"""Fewer decisions than this at one number of empty squares: its offset is the mean over
the nearest numbers of empty squares that hold as many together (a final score strays by
about 80 points: the mean of 1,000 by about ±5 at 95%)."""


@cache
def value_fingerprint(difficulty: Difficulty) -> str:
    """What the coach plays ``difficulty`` with, as ``<file>:<sha256 of its first 12 hex>``:
    the network file, or ``weights.json`` for the linear value."""
    name = coach_table()[difficulty]
    if name == LINEAR:
        name = WEIGHTS_FILE
        data = resources.files("magdagdon.ai").joinpath(name).read_bytes()
    else:
        data = resources.files("magdagdon.ai").joinpath(NETWORKS, name).read_bytes()
    return f"{name}:{hashlib.sha256(data).hexdigest()[:12]}"


@cache
def table() -> dict[str, Any]:
    """The shipped table (``ai/networks/calibration.json``), by difficulty; {} if absent."""
    path = resources.files("magdagdon.ai").joinpath(NETWORKS, FILE)
    if not path.is_file():
        return {}
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def offset(difficulty: Difficulty, empty: int) -> float:
    """What to add to a hint's expected final score at a decision with ``empty`` empty
    squares (0.0 where the table does not hold for the coach's value of today)."""
    offsets = _offsets(difficulty)
    return offsets[empty] if offsets and 0 <= empty <= 16 else 0.0


def _offsets(difficulty: Difficulty) -> list[float] | None:
    entry = table().get(difficulty.value)
    if not entry or entry.get("fitted_for") != value_fingerprint(difficulty):
        return None
    return offsets_of(entry["decisions"], entry["means"])


def calibration_seed(seed: int, index: int) -> bytes:
    """The dice seed of calibration game ``index`` (apart from every evaluation seed)."""
    return f"magdagdon-calibrate/{seed}/{index}".encode()


def play_out(player: StrongPlayer, game: Game) -> tuple[list[tuple[int, float]], int]:
    """Play ``game`` to its end by ``player``'s best options: per decision, (empty squares,
    the raw expected final score of the option chosen), and the final score."""
    seen: list[tuple[int, float]] = []
    while not game.is_over:
        if game.phase is Phase.ROLL:
            game.apply({"type": "roll"})
            continue
        best = player.options(game)[0]
        seen.append((game.board.cells.count(EMPTY), best.value))
        for action in best.actions:
            game.apply(action)
    return seen, game.score().total


def gaps_of_game(job: tuple[str, int, int]) -> list[tuple[int, float]]:
    """One game of the coach on a calibration seed: per decision, (empty squares, final
    score − the raw expected score of the option chosen)."""
    difficulty, seed, index = job
    player = _players.get(difficulty) or _players.setdefault(difficulty, StrongPlayer())
    seen, final = play_out(
        player, Game.new(Difficulty(difficulty), seed=calibration_seed(seed, index))
    )
    return [(empty, final - value) for empty, value in seen]


_players: dict[str, StrongPlayer] = {}  # one strong player per difficulty and process


def measured(gaps: Iterable[tuple[int, float]]) -> tuple[list[int], list[float]]:
    """Per number of empty squares 0–16: how many decisions, and their mean gap (0.0 where
    none)."""
    sums = [0.0] * 17
    counts = [0] * 17
    for empty, gap in gaps:
        sums[empty] += gap
        counts[empty] += 1
    return counts, [round(t / n, 2) if n else 0.0 for t, n in zip(sums, counts, strict=True)]


def offsets_of(counts: Sequence[int], means: Sequence[float], least: int = LEAST) -> list[float]:
    """Per number of empty squares 0–16, the mean gap there, or where fewer than ``least``
    decisions had that many, over the nearest numbers that hold ``least`` together (0.0
    with no decision at all): a mean over too few games would say more of their dice than of
    the value.

    >>> offsets_of([0] * 12 + [1, 0, 0, 0, 3], [0.0] * 12 + [2.0, 0, 0, 0, 10.0], least=3)[16]
    10.0
    >>> offsets_of([0] * 12 + [1, 0, 0, 0, 3], [0.0] * 12 + [2.0, 0, 0, 0, 10.0], least=3)[12]
    8.0
    """
    out = []
    for empty in range(17):
        n = counts[empty]
        total = means[empty] * n
        reach = 0
        while n < least and reach < 16:
            reach += 1
            for other in (empty - reach, empty + reach):
                if 0 <= other <= 16:
                    n += counts[other]
                    total += means[other] * counts[other]
        out.append(round(total / n, 1) if n else 0.0)
    return out


def fit(
    games: int,
    seed: int,
    difficulties: Iterable[Difficulty],
    mapper: Callable[..., Iterable[list[tuple[int, float]]]] = map,
) -> dict[str, Any]:
    """The table for ``difficulties``: ``games`` games of the coach each on calibration seeds
    (``mapper``: ``map`` or a process pool's ``imap``). The other difficulties of the shipped
    table are kept."""
    data = dict(table())
    for difficulty in difficulties:
        jobs = [(difficulty.value, seed, i) for i in range(games)]
        counts, means = measured(gap for game in mapper(gaps_of_game, jobs) for gap in game)
        data[difficulty.value] = {
            "fitted_for": value_fingerprint(difficulty),
            "command": f"magdagdon train --calibrate --difficulty {difficulty.value} "
            f"--games {games} --seed {seed}",
            "games": games,
            "seed": seed,
            "decisions": counts,
            "means": means,
        }
    return {d.value: data[d.value] for d in Difficulty if d.value in data}


__all__ = [
    "FILE",
    "LEAST",
    "calibration_seed",
    "fit",
    "gaps_of_game",
    "measured",
    "offset",
    "offsets_of",
    "play_out",
    "table",
    "value_fingerprint",
]
