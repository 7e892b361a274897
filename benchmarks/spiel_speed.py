"""The OpenSpiel game's speed (issue 47): die-level and turn-level decisions per CPU second of
``python_magdagdon`` per difficulty, and what an agent's own loop adds to a decision.

Run: ``python -m benchmarks.spiel_speed [--seconds 1] [--repeats 7]
[--difficulties peaceful survival nightmare] [--levels die turn]`` from the repository root
(needs the ``[spiel]`` extra; the engine's C fast path, the game's default, where it is
built). Prints figures; asserts nothing.

Each run plays whole random games through OpenSpiel's state for about ``--seconds`` CPU
seconds of this process (``time.process_time``, one core's work even on a shared machine) and
counts the decisions (chance nodes are played but not counted). A figure is the median of
``--repeats`` runs, with the slowest and the fastest run beside it. Two agent loops:

- ``bare``: the choice costs next to nothing (``random.Random``: an index into
  ``state.legal_actions()``, ``rng.choices`` over ``state.chance_outcomes()``), so the figure
  is the game's own speed through OpenSpiel's plumbing, the loop :mod:`benchmarks.rl` times;
- ``np.random.choice``: the loop of OpenSpiel's examples, ``np.random.choice(legal)`` at a
  decision and ``np.random.choice(outcomes, p=probabilities)`` at a chance node: numpy's
  call on a short Python list costs several microseconds, as much as the game's decision.

The last column of the second loop is what it adds a decision, in microseconds (the
difference of the medians' time per decision).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

Run = Callable[[float], tuple[int, int, float]]
"""A run of about ``seconds``: (decisions, games, CPU seconds)."""

LOOPS = ("bare", "np.random.choice")


def game_of(difficulty: str, turn_level: bool) -> Any:
    """``python_magdagdon`` of ``difficulty`` at die or turn level (step rewards, the default
    engine)."""
    import pyspiel

    import magdagdon.spiel  # noqa: F401 - registers the game

    params = {"difficulty": difficulty, "turn_level": turn_level}
    return pyspiel.load_game("python_magdagdon", params)


def bare(game: Any) -> Run:
    """Random play whose choices cost next to nothing: the game's own speed."""

    def run(seconds: float) -> tuple[int, int, float]:
        rng, decisions, games = random.Random(0), 0, 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(rng.choices(outcomes, probabilities)[0])
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[rng.randrange(len(legal))])
                    decisions += 1
            games += 1
        return decisions, games, time.process_time() - start

    return run


def numpy_choice(game: Any) -> Run:
    """Random play as OpenSpiel's examples write it, with ``np.random.choice``."""
    import numpy as np

    def run(seconds: float) -> tuple[int, int, float]:
        np.random.seed(0)
        decisions, games = 0, 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(int(np.random.choice(outcomes, p=probabilities)))
                else:
                    state.apply_action(int(np.random.choice(state.legal_actions())))
                    decisions += 1
            games += 1
        return decisions, games, time.process_time() - start

    return run


def measure(run: Run, seconds: float, repeats: int) -> list[float]:
    """Decisions per CPU second of ``repeats`` runs, sorted."""
    figures = [run(seconds) for _ in range(repeats)]
    return sorted(d / t for d, _, t in figures)


def main(argv: list[str] | None = None) -> dict[tuple[str, str, str], list[float]]:
    """Measure and print; the rates of every (difficulty, level, loop), sorted."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds a run")
    parser.add_argument("--repeats", type=int, default=7, help="runs of each figure")
    parser.add_argument("--difficulties", nargs="+", default=["peaceful", "survival", "nightmare"])
    parser.add_argument("--levels", nargs="+", choices=["die", "turn"], default=["die", "turn"])
    args = parser.parse_args(argv)
    from magdagdon.engine import fast

    engine = "the C fast path" if fast.AVAILABLE else "the pure-Python engine"
    print(
        f"python_magdagdon on {engine}: decisions per CPU second, median of {args.repeats} runs "
        f"of {args.seconds:g} s (slowest-fastest run)"
    )
    print(f"{'':22}{'bare loop':>26}{'np.random.choice loop':>30}{'adds':>12}")
    rates: dict[tuple[str, str, str], list[float]] = {}
    for level in args.levels:
        for difficulty in args.difficulties:
            game = game_of(difficulty, level == "turn")
            cells = []
            for loop, make in zip(LOOPS, (bare, numpy_choice), strict=True):
                found = rates[difficulty, level, loop] = measure(
                    make(game), args.seconds, args.repeats
                )
                cells.append(
                    f"{statistics.median(found):>10,.0f} ({found[0]:,.0f}-{found[-1]:,.0f})"
                )
            added = 1e6 * (
                1 / statistics.median(rates[difficulty, level, LOOPS[1]])
                - 1 / statistics.median(rates[difficulty, level, LOOPS[0]])
            )
            name = f"{difficulty}, {level} level"
            print(f"{name:22}{cells[0]:>26}{cells[1]:>30}{added:>8.1f} µs")
    return rates


if __name__ == "__main__":
    main()
