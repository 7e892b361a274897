"""The simulator: players play many seeded games; statistics, paired comparisons, histograms.

Game ``i`` of a run with seed ``s`` has the dice seed :func:`game_seed(s, i) <game_seed>`, so
two players run with the same ``s`` meet the same roll on every turn (the dice stream is
keyed by turn), which makes their comparison paired.
"""

from __future__ import annotations

import math
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

from ..engine import Difficulty, Game, Phase
from .players import Player
from .registry import make_player


def game_seed(seed: int, index: int) -> int:
    """The dice seed of game ``index`` in a run with ``seed`` (evaluation seeds)."""
    return seed * 1_000_003 + index


@dataclass
class GameResult:
    """What one game came to."""

    index: int
    score: int
    turns: int
    ruins: int
    powers_used: int
    bonuses: dict[str, int] = field(default_factory=dict)
    decision_ms: list[float] = field(default_factory=list)


def play(game: Game, player: Any) -> list[float]:
    """Play ``game`` to the end; the milliseconds of each of the player's decisions (placing
    a roll or meeting MAGDAGDON; pressing ROLL is no decision)."""
    times: list[float] = []
    while game.phase is not Phase.OVER:
        deciding = game.phase is not Phase.ROLL
        start = time.perf_counter()
        actions = player.turn(game)
        if deciding:
            times.append((time.perf_counter() - start) * 1000)
        if not actions:
            raise RuntimeError(f"{player.name} returned no action in phase {game.phase.value}")
        for action in actions:
            game.apply(action)
    return times


_players: dict[str, Any] = {}

Bot = str | Player
"""A player as a run takes it: a name or ``package.module:Class`` (made in each process), or
a :class:`~magdagdon.ai.players.Player` object (pickled to each worker process)."""


def play_one(job: tuple[Bot, str, int, int]) -> GameResult:
    """Play game ``index`` of a run (picklable, for worker processes).

    A bot given by name that draws no random numbers is made once per process and keeps what
    it memoised from game to game; the random bot is seeded per game.
    """
    bot, difficulty, seed, index = job
    game = Game.new(Difficulty(difficulty), seed=game_seed(seed, index))
    if not isinstance(bot, str):
        player = bot
    elif bot == "random":
        player = make_player(bot, seed=game_seed(seed, index))
    else:
        player = _players.get(bot) or _players.setdefault(bot, make_player(bot))
    times = play(game, player)
    score = game.score()
    bonuses = Counter(line.bonus.value for line in score.lines if line.bonus)
    return GameResult(
        index=index,
        score=score.total,
        turns=game.turns,
        ruins=score.ruins,
        powers_used=game.powers_used,
        bonuses=dict(bonuses),
        decision_ms=times,
    )


def run_games(
    bot: Bot,
    difficulty: str,
    games: int,
    seed: int,
    processes: int = 1,
    progress: Callable[[], None] | None = None,
) -> list[GameResult]:
    """Play ``games`` games with ``bot`` (a built-in's name, ``package.module:Class``, or any
    object with ``turn(game)`` and ``name``); results in game order, for :func:`summarize`,
    :func:`paired` and :func:`histogram_svg`. ``progress`` is called after each game.

    >>> from magdagdon.ai.players import GreedyPlayer
    >>> [r.score for r in run_games(GreedyPlayer(), "nightmare", 2, seed=0)]
    [105, 341]
    """
    jobs = [(bot, difficulty, seed, i) for i in range(games)]
    results: list[GameResult] = []
    if processes <= 1:
        outcomes: Iterable[GameResult] = map(play_one, jobs)
        for result in outcomes:
            results.append(result)
            if progress:
                progress()
    else:
        with get_context("spawn").Pool(processes) as pool:
            for result in pool.imap_unordered(play_one, jobs, chunksize=max(1, games // 64)):
                results.append(result)
                if progress:
                    progress()
    results.sort(key=lambda r: r.index)
    return results


def _ci95(values: list[float]) -> float:
    if len(values) < 2:
        return 0.0
    return 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def summarize(results: list[GameResult], bot: str, difficulty: str, seed: int) -> dict[str, Any]:
    """The summary of a run (the ``--json`` object)."""
    scores = [float(r.score) for r in results]
    decisions = [t for r in results for t in r.decision_ms]
    n = len(results)
    bonus_rates = {
        kind: sum(r.bonuses.get(kind, 0) for r in results) / n
        for kind in ("straight", "four", "two_pairs")
    }
    return {
        "bot": bot,
        "difficulty": difficulty,
        "games": n,
        "seed": seed,
        "mean": statistics.fmean(scores),
        "ci95": _ci95(scores),
        "sd": statistics.stdev(scores) if n > 1 else 0.0,
        "percentiles": {f"p{q}": _percentile(scores, q / 100) for q in (5, 25, 50, 75, 95)},
        "min": min(scores),
        "max": max(scores),
        "ruins_per_game": sum(r.ruins for r in results) / n,
        "bonuses_per_game": bonus_rates,
        "powers_per_game": sum(r.powers_used for r in results) / n,
        "turns_per_game": sum(r.turns for r in results) / n,
        "ms_per_decision_p50": _percentile(decisions, 0.50),
        "ms_per_decision_p99": _percentile(decisions, 0.99),
    }


def paired(first: list[GameResult], second: list[GameResult]) -> dict[str, float]:
    """Mean score difference (first − second) over the same seeds, with its 95% CI."""
    diffs = [float(a.score - b.score) for a, b in zip(first, second, strict=True)]
    return {"mean_difference": statistics.fmean(diffs), "ci95": _ci95(diffs), "games": len(diffs)}


def histogram_svg(series: dict[str, list[int]], bins: int = 30) -> str:
    """Score histograms as one small SVG (one colour per player)."""
    everything = [s for scores in series.values() for s in scores]
    low, high = min(everything), max(everything) + 1
    width_each = max(1.0, (high - low) / bins)
    counts = {
        name: [
            sum(1 for s in scores if low + i * width_each <= s < low + (i + 1) * width_each)
            for i in range(bins)
        ]
        for name, scores in series.items()
    }
    peak = max(max(c) for c in counts.values()) or 1
    w, h, pad = 640, 320, 40
    bar = (w - 2 * pad) / bins
    colours = ["#b93a17", "#2f6fb0", "#23704a", "#6b4fa0"]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
        'font-family="system-ui, sans-serif" font-size="12">',
        f'<rect width="{w}" height="{h}" fill="#faf6ef"/>',
        f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="#1f2a44"/>',
        f'<text x="{pad}" y="{h - pad + 16}">{low}</text>',
        f'<text x="{w - pad}" y="{h - pad + 16}" text-anchor="end">{high - 1}</text>',
        f'<text x="{w / 2}" y="{h - 8}" text-anchor="middle">final score</text>',
    ]
    for k, (name, column) in enumerate(counts.items()):
        colour = colours[k % len(colours)]
        for i, count in enumerate(column):
            height = (h - 2 * pad) * count / peak
            parts.append(
                f'<rect x="{pad + i * bar:.1f}" y="{h - pad - height:.1f}" width="{bar - 1:.1f}" '
                f'height="{height:.1f}" fill="{colour}" fill-opacity="0.55"/>'
            )
        mean = statistics.fmean(series[name])
        parts.append(
            f'<text x="{w - pad}" y="{pad + 16 * k}" text-anchor="end" fill="{colour}">'
            f"{name}: mean {mean:.1f}, n={len(series[name])}</text>"
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
