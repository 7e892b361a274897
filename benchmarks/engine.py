"""Engine speed: find_placement against a naive search, and random-bot games per second.

Run: ``python -m benchmarks.engine`` (from the repository root). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import gc
import math
import random
import statistics
import time

from magdagdon.ai.random_player import play_turn
from magdagdon.engine import Board, Difficulty, Game, Phase, find_placement
from tests import reference

Position = tuple[Board, tuple[int, ...], int]


def collect_positions(count: int, seed: int = 2026) -> list[Position]:
    """(board, dice, required) at every ROLL of random games in all difficulties."""
    rng = random.Random(seed)
    positions: list[Position] = []
    n = 0
    while len(positions) < count:
        difficulty = list(Difficulty)[n % 3]
        game = Game.new(difficulty, seed=seed * 1_000_003 + n)
        n += 1
        while game.phase is not Phase.OVER and len(positions) < count:
            board = game.board
            play_turn_recording(game, rng, positions, board)
    return positions


def play_turn_recording(
    game: Game, rng: random.Random, positions: list[Position], board: Board
) -> None:
    """Play one random turn, recording the position of its roll."""
    preview = game.copy()
    preview.roll()
    positions.append((board, tuple(d.value for d in preview.dice), preview.required))
    play_turn(game, rng)


def percentile(sorted_values: list[float], q: float) -> float:
    """The q-quantile of already sorted values (nearest rank)."""
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def time_calls(positions: list[Position], naive: bool, repeat: int = 1) -> list[float]:
    """Microseconds of each call on each position (the best of ``repeat`` calls).

    The garbage collector is off while timing, as in ``timeit``.
    """
    out: list[float] = []
    clock = time.perf_counter_ns
    gc.disable()
    try:
        for board, dice, required in positions:
            best = math.inf
            grid = reference.grid(str(board))
            for _ in range(repeat):
                if naive:
                    start = clock()
                    reference.first_staging_order(grid, dice, required)
                else:
                    start = clock()
                    find_placement(board, dice, required)
                best = min(best, clock() - start)
            out.append(best / 1000)
    finally:
        gc.enable()
    return out


def games_per_second(difficulty: Difficulty, seconds: float) -> float:
    """Complete random-bot games per second through the public Game API."""
    rng = random.Random(1)
    start = time.perf_counter()
    games = 0
    while time.perf_counter() - start < seconds:
        game = Game.new(difficulty, seed=games)
        while game.phase is not Phase.OVER:
            play_turn(game, rng)
        games += 1
    return games / (time.perf_counter() - start)


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()

    positions = collect_positions(args.positions)
    magdagdon = sum(find_placement(b, d, r) is None for b, d, r in positions)
    unanchored = sum(b.numbers == 0 for b, _, _ in positions)
    ruined = sum(b.ruins != 0 for b, _, _ in positions)
    print(
        f"positions: {len(positions)} (MAGDAGDON {magdagdon}, no number yet {unanchored}, "
        f"with ruins {ruined})"
    )
    for b, d, r in positions[:2000]:  # the two searches must agree before they are compared
        none = find_placement(b, d, r) is None
        assert none == reference.is_magdagdon(reference.grid(str(b)), d, r), (b, d, r)

    time_calls(positions[:500], naive=False)  # warm caches
    fast = sorted(time_calls(positions, naive=False))
    best = sorted(time_calls(positions, naive=False, repeat=3))
    slow = sorted(time_calls(positions, naive=True))
    print(f"{'find_placement (µs)':<28}{'median':>10}{'p99':>10}{'mean':>10}")
    for name, values in (
        ("engine, one call", fast),
        ("engine, best of 3", best),
        ("naive DFS, one call", slow),
    ):
        print(
            f"{name:<28}{statistics.median(values):>10.2f}{percentile(values, 0.99):>10.2f}"
            f"{statistics.fmean(values):>10.2f}"
        )
    print(f"mean speed-up: {statistics.fmean(slow) / statistics.fmean(fast):.1f}x")
    for difficulty in Difficulty:
        rate = games_per_second(difficulty, args.seconds)
        print(f"random-bot {difficulty.value} games per second (one core): {rate:.0f}")


if __name__ == "__main__":
    main()
