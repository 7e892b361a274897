"""Fitting the strong player's weights from self-play (``magdagdon train``).

Each round plays games and records, after every turn, the afterstate's features and the
points that were still to come (final score − the afterstate's score, power penalties
already paid added back). A ridge regression of those points on the features of every round
so far gives the next weights. Round 0 plays the hand-tuned heuristic player; later rounds
play the strong player's one-move policy with the weights of the round before (no
expectimax: it would cost much more and the value it searches with is the same). Every round
uses fresh games; keeping the earlier rounds' samples keeps the fit anchored (fitting each
round on its own games alone drifted: PEACEFUL fell from 392 to 313 points in three rounds).

Training games are seeded with byte strings ``b"magdagdon-train/<seed>/<round>/<game>"``
(more than 8 bytes), evaluation games with integers below 2**63 (8 bytes): the two never
share a dice stream. The result depends only on the seed, the number of games and rounds,
whatever the number of processes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from multiprocessing import get_context
from typing import Any

from ..engine import EMPTY, Difficulty, Game, Phase
from .features import NAMES, features, quick_score
from .heuristic import HeuristicPlayer
from .players import RandomPlayer
from .strong import Model, StrongPlayer

Sample = tuple[list[float], float]


def training_seed(seed: int, round_: int, index: int) -> bytes:
    """The dice seed of training game ``index`` of round ``round_``."""
    return f"magdagdon-train/{seed}/{round_}/{index}".encode()


EXPLORE = 0.15
"""The share of turns a training game plays at random, so that the fit also sees positions
the trained policy would not make (people's positions, valued by hints and reviews)."""


def play_for_samples(job: tuple[str, list[float] | None, float, int, int, int]) -> list[Sample]:
    """Play one training game; its (features, points still to come) samples."""
    difficulty, weights, bias, seed, round_, index = job
    level = Difficulty(difficulty)
    rng = random.Random(training_seed(seed, round_, index))
    explorer = RandomPlayer(rng)
    player: Any
    if weights is None:
        player = HeuristicPlayer()
    else:
        player = StrongPlayer(Model(level, tuple(weights), bias), search=False)
    game = Game.new(level, seed=training_seed(seed, round_, index))
    seen: list[tuple[tuple[int, ...], int, int]] = []
    while game.phase is not Phase.OVER:
        turns = game.turns
        acting = explorer if game.phase is not Phase.ROLL and rng.random() < EXPLORE else player
        for action in acting.turn(game):
            game.apply(action)
        if game.turns != turns and not game.is_over:
            seen.append((game.board.cells, game.powers_left, game.power_penalty))
    final = game.score().total
    return [
        (features(cells, powers), float(final + paid - quick_score(cells)))
        for cells, powers, paid in seen
        if EMPTY in cells
    ]


def ridge(samples: list[Sample], l2: float = 1.0) -> tuple[list[float], float]:
    """Least squares with an L2 penalty (not on the bias): weights and bias."""
    n = len(NAMES) + 1
    xtx = [[0.0] * n for _ in range(n)]
    xty = [0.0] * n
    for f, y in samples:
        x = [*f, 1.0]
        nz = [(i, v) for i, v in enumerate(x) if v]
        for i, vi in nz:
            xty[i] += vi * y
            row = xtx[i]
            for j, vj in nz:
                row[j] += vi * vj
    for i in range(n - 1):
        xtx[i][i] += l2
    solution = _solve(xtx, xty)
    return solution[:-1], solution[-1]


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a small dense system)."""
    n = len(b)
    m = [[*row[:], b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[pivot][col]) < 1e-12:
            m[pivot][col] = 1e-12  # a feature never seen: its weight stays 0
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(col + 1, n):
            factor = m[r][col] / m[col][col]
            if factor:
                for c in range(col, n + 1):
                    m[r][c] -= factor * m[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
    return x


def train(
    games: int,
    rounds: int,
    seed: int,
    processes: int = 1,
    difficulties: tuple[Difficulty, ...] = tuple(Difficulty),
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Fit the weights of every difficulty; the content of ``weights.json``."""
    models: dict[str, Any] = {}
    pool = get_context("spawn").Pool(processes) if processes > 1 else None
    try:
        for level in difficulties:
            weights: list[float] | None = None
            bias = 0.0
            samples: list[Sample] = []
            for round_ in range(rounds):
                jobs = [(level.value, weights, bias, seed, round_, i) for i in range(games)]
                batches = (
                    pool.map(play_for_samples, jobs, chunksize=max(1, games // 32))
                    if pool
                    else list(map(play_for_samples, jobs))
                )
                samples += [s for batch in batches for s in batch]
                weights, bias = ridge(samples)
                if progress:
                    progress(f"{level.value} round {round_ + 1}/{rounds}: {len(samples)} samples")
            assert weights is not None
            models[level.value] = {
                "weights": [round(w, 6) for w in weights],
                "bias": round(bias, 6),
            }
    finally:
        if pool:
            pool.close()
            pool.join()
    return {
        "format": 1,
        "features": list(NAMES),
        "seed": seed,
        "games_per_round": games,
        "rounds": rounds,
        "models": models,
    }


def dumps(data: dict[str, Any]) -> str:
    """The weights file's text."""
    return json.dumps(data, indent=1) + "\n"
