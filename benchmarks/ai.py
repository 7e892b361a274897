"""AI strength and speed: every bot in every difficulty on the same evaluation seeds.

Run: ``python -m benchmarks.ai [--games 1000] [--seed 0] [--processes 2]`` from the repository
root. Prints one table: mean ± 95% CI of the final score, ruins per game, and milliseconds per
decision (p50 / p99). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import time

from magdagdon.ai.players import PLAYERS
from magdagdon.ai.simulate import run_games, summarize
from magdagdon.engine import Difficulty


def main() -> None:
    """Play and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    print(f"{args.games} games per cell, evaluation seed {args.seed}, {args.processes} processes")
    head = f"{'bot':<11}{'difficulty':<11}{'mean ± 95% CI':>18}{'ruins':>7}"
    print(f"{head}{'ms/decision p50/p99':>22}{'s':>6}")
    for bot in PLAYERS:
        for difficulty in Difficulty:
            start = time.perf_counter()
            results = run_games(bot, difficulty.value, args.games, args.seed, args.processes)
            s = summarize(results, bot, difficulty.value, args.seed)
            print(
                f"{bot:<11}{difficulty.value:<11}{s['mean']:>10.1f} ± {s['ci95']:<5.1f}"
                f"{s['ruins_per_game']:>7.2f}"
                f"{s['ms_per_decision_p50']:>13.2f} / {s['ms_per_decision_p99']:<6.2f}"
                f"{time.perf_counter() - start:>6.0f}"
            )


if __name__ == "__main__":
    main()
