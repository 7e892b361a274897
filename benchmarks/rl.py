"""Reinforcement-learning speed (issue 27): today's engine driven the naive way, side by side
with the encoded game, the Gymnasium environment and the C fast path, in one run.

Run: ``python -m benchmarks.rl`` (from the repository root; needs the ``[gym]`` extra).
Every figure is the median of ``--repeats`` runs of about ``--seconds`` each, in CPU seconds
of this process (``time.process_time``), so one core's work even on a shared machine.
Prints figures; asserts nothing.

- *naive*: what a researcher wrapping the engine from its documentation writes: every step
  lists ``Game.legal_actions()`` (dicts), applies a random one, and computes ``score()`` for
  the reward; chance is the game's own ROLL action. The second row also reads what an
  observation is made of (``staged_board``, the dice), as a wrapper must.
- *encoded*: :class:`~magdagdon.engine.encoding.EncodedGame`, ids and chance nodes, in Python.
- *gym*: ``gymnasium.make("Magdagdon-v0")`` with its wrappers, a random agent choosing among
  ``info["action_mask"]`` (on the C fast path).
- *fast*: :func:`magdagdon.engine.fast.random_games`, whole games inside C.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from magdagdon.engine import Game, Phase, fast
from magdagdon.engine import encoding as enc

Run = Callable[[float], tuple[int, int, float]]
"""A run of about ``seconds``: (steps, games, CPU seconds)."""


def naive(difficulty: str, observe: bool = False) -> Run:
    def run(seconds: float) -> tuple[int, int, float]:
        rng, steps, games = random.Random(0), 0, 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            game = Game.new(difficulty, seed=rng.getrandbits(64))
            score = game.score().total
            while game.phase is not Phase.OVER:
                game.apply(rng.choice(game.legal_actions()))
                reward, score = game.score().total - score, game.score().total
                del reward
                if observe:  # what a wrapper reads to build an observation of its own
                    seen = (game.staged_board.cells, sorted(d.value for d in game.dice))
                    del seen
                steps += 1
            games += 1
        return steps, games, time.process_time() - start

    return run


def encoded(difficulty: str, turn_level: bool = False) -> Run:
    def run(seconds: float) -> tuple[int, int, float]:
        rng, steps, games = random.Random(0), 0, 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            play = enc.EncodedGame(difficulty, seed=rng.getrandbits(64), turn_level=turn_level)
            while not play.is_terminal():
                if play.is_chance_node():
                    play.apply_action(play.stream_outcome())
                    continue
                play.apply_action(rng.choice(play.legal_actions()))
                play.score()
                steps += 1
            games += 1
        return steps, games, time.process_time() - start

    return run


def gym(difficulty: str, turn_level: bool = False) -> Run:
    import gymnasium
    import numpy as np

    import magdagdon.gym  # noqa: F401 - registers the environment

    def run(seconds: float) -> tuple[int, int, float]:
        env = gymnasium.make("Magdagdon-v0", difficulty=difficulty, turn_level=turn_level)
        rng, steps, games = np.random.default_rng(0), 0, 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            _, info = env.reset(seed=int(rng.integers(2**62)))
            done = False
            while not done:
                legal = np.flatnonzero(info["action_mask"])
                _, _, terminated, truncated, info = env.step(legal[rng.integers(len(legal))])
                done = terminated or truncated
                steps += 1
            games += 1
        return steps, games, time.process_time() - start

    return run


def fast_games(difficulty: str) -> Run:
    def run(seconds: float) -> tuple[int, int, float]:
        steps, games, seed = 0, 0, 0
        start = time.process_time()
        while time.process_time() - start < seconds:
            _, decisions = fast.random_games(difficulty, 200, seed)
            steps, games, seed = steps + decisions, games + 200, seed + 1
        return steps, games, time.process_time() - start

    return run


def measure(run: Run, seconds: float, repeats: int) -> tuple[float, float]:
    """Median steps per CPU second and games per CPU second over ``repeats`` runs."""
    figures = [run(seconds) for _ in range(repeats)]
    return (
        statistics.median(s / t for s, _, t in figures),
        statistics.median(g / t for _, g, t in figures),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--difficulty", default="peaceful")
    args = parser.parse_args()
    level = args.difficulty
    runs: list[tuple[str, Run]] = [
        ("naive: Game.legal_actions() + apply + score()", naive(level)),
        ("naive, and the staged board and state per step", naive(level, observe=True)),
        ("encoded, die level (Python)", encoded(level)),
        ("encoded, turn level (Python)", encoded(level, turn_level=True)),
        ("gym, die level (C fast path)", gym(level)),
        ("gym, turn level (C fast path)", gym(level, turn_level=True)),
    ]
    if fast.AVAILABLE:
        runs.append(("fast.random_games (C)", fast_games(level)))
    print(f"{level.upper()}: random play, medians of {args.repeats} runs of {args.seconds} s")
    print(f"{'':48} {'steps/s':>10} {'games/s':>10}")
    for name, run in runs:
        steps, games = measure(run, args.seconds, args.repeats)
        print(f"{name:48} {steps:10,.0f} {games:10,.1f}")


if __name__ == "__main__":
    main()
