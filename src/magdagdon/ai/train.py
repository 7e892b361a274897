"""Fitting the strong player's weights from self-play (``magdagdon train``).

Each round plays games and records, after every turn, the afterstate's features and the
points that were still to come (final score − the afterstate's score, power penalties
already paid added back). A ridge regression of those points on the features of every round
so far gives the next weights. Round 0 plays the hand-tuned heuristic player; later rounds
play the strong player's one-move policy with the weights of the round before (no
expectimax: it would cost much more and the value it searches with is the same). Every round
uses fresh games; keeping the earlier rounds' samples keeps the fit anchored (fitting each
round on its own games alone drifted: PEACEFUL fell from 392 to 313 points in three rounds).

A last round (``search_games``) plays the searching strong player itself, with those
weights and 5% of turns at random, and the weights are fitted again on that round's samples
alone: the value then estimates the points still to come *when the coach's own moves are
played*, which is what a hint's expected final score promises. Fitted on the one-move
player's games, it was on average 36 (NIGHTMARE) to 80 (PEACEFUL) points below the searching
player's final scores at decisions with 13 to 16 empty squares; fitted on its own games, 2 to
18 (``python -m benchmarks.ai --calibration 300``, BENCHMARKS.md).

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
Job = tuple[str, list[float] | None, float, int, int, int, bool]
"""One training game: difficulty, weights (None: the heuristic player), bias, seed, round,
game index, and whether the searching player plays."""


def training_seed(seed: int, round_: int, index: int) -> bytes:
    """The dice seed of training game ``index`` of round ``round_``."""
    return f"magdagdon-train/{seed}/{round_}/{index}".encode()


EXPLORE = 0.15
"""The share of turns a training game plays at random, so that the fit also sees positions
the trained policy would not make (people's positions, valued by hints and reviews)."""
SEARCH_EXPLORE = 0.05
"""The same share in the last round, where the searching player plays."""

_searchers: dict[tuple[str, tuple[float, ...], float], StrongPlayer] = {}


def _searcher(level: Difficulty, weights: list[float], bias: float) -> StrongPlayer:
    """The searching player with these weights, made once per process (it memoises values,
    which changes no move)."""
    key = (level.value, tuple(weights), bias)
    player = _searchers.get(key)
    if player is None:
        _searchers.clear()
        player = _searchers[key] = StrongPlayer(Model(level, tuple(weights), bias))
    return player


def play_for_samples(job: Job) -> list[Sample]:
    """Play one training game; its (features, points still to come) samples. The player is
    the heuristic one (no weights yet), else the strong player with the weights: its one-move
    policy, or with ``search`` the searching player."""
    difficulty, weights, bias, seed, round_, index, search = job
    level = Difficulty(difficulty)
    rng = random.Random(training_seed(seed, round_, index))
    explorer = RandomPlayer(rng)
    player: Any
    explore = EXPLORE
    if weights is None:
        player = HeuristicPlayer()
    elif search:
        player = _searcher(level, weights, bias)
        explore = SEARCH_EXPLORE
    else:
        player = StrongPlayer(Model(level, tuple(weights), bias), search=False)
    game = Game.new(level, seed=training_seed(seed, round_, index))
    seen: list[tuple[tuple[int, ...], int, int]] = []
    while game.phase is not Phase.OVER:
        turns = game.turns
        acting = explorer if game.phase is not Phase.ROLL and rng.random() < explore else player
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
    search_games: int = 0,
) -> dict[str, Any]:
    """Fit the weights of every difficulty; the content of ``weights.json``.

    ``rounds`` rounds of ``games`` games (the heuristic player, then the one-move policy),
    then, with ``search_games``, a last round of the searching player whose samples alone
    give the final weights."""
    models: dict[str, Any] = {}
    pool = get_context("spawn").Pool(processes) if processes > 1 else None
    try:
        for level in difficulties:
            weights: list[float] | None = None
            bias = 0.0
            samples: list[Sample] = []
            for round_ in range(rounds):
                jobs = [(level.value, weights, bias, seed, round_, i, False) for i in range(games)]
                samples += _play(pool, jobs)
                weights, bias = ridge(samples)
                if progress:
                    progress(f"{level.value} round {round_ + 1}/{rounds}: {len(samples)} samples")
            assert weights is not None
            if search_games:
                jobs = [
                    (level.value, weights, bias, seed, rounds, i, True) for i in range(search_games)
                ]
                own = _play(pool, jobs)
                weights, bias = ridge(own)
                if progress:
                    progress(f"{level.value} searching player's round: {len(own)} samples")
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
        "search_games": search_games,
        "models": models,
    }


def _play(pool: Any, jobs: list[Job]) -> list[Sample]:
    """Play the jobs' games (in worker processes when there is a pool); their samples, in
    game order."""
    batches = (
        pool.map(play_for_samples, jobs, chunksize=max(1, len(jobs) // 32))
        if pool
        else list(map(play_for_samples, jobs))
    )
    return [s for batch in batches for s in batch]


def dumps(data: dict[str, Any]) -> str:
    """The weights file's text."""
    return json.dumps(data, indent=1) + "\n"
