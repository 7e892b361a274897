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
- *spiel*: ``pyspiel.load_game("python_magdagdon", {..., "engine": E})``, a random player
  through OpenSpiel's state (``legal_actions``, ``apply_action``, ``chance_outcomes``) on
  the pure-Python engine (the game's only engine before issue 37) and on the C fast path;
  steps are decisions, as the other rows count them. Then OpenSpiel's Python MCTS bot
  (``--mcts`` simulations of one random rollout, terminal rewards) on both: CPU seconds a
  decision (needs the ``[spiel]`` extra; skipped with a word without it).
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


def spiel(difficulty: str, engine: str, turn_level: bool = False) -> Run:
    import pyspiel

    import magdagdon.spiel  # noqa: F401 - registers the game

    from .spiel_speed import bare  # (the same random play: the game's own speed)

    params = {"difficulty": difficulty, "turn_level": turn_level, "engine": engine}
    return bare(pyspiel.load_game("python_magdagdon", params))


def mcts_decision(difficulty: str, engine: str, simulations: int, decisions: int) -> float:
    """CPU seconds a decision of OpenSpiel's Python MCTS bot (turn level, terminal rewards,
    one random rollout a simulation), the median over ``decisions`` first decisions."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts

    import magdagdon.spiel  # noqa: F401 - registers the game

    params = {"difficulty": difficulty, "turn_level": True, "rewards": "terminal"}
    game = pyspiel.load_game("python_magdagdon", {**params, "engine": engine})
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bot = mcts.MCTSBot(game, 2, simulations, evaluator, random_state=np.random.RandomState(1))
    times = []
    for k in range(decisions):
        state = game.new_initial_state()
        state.apply_action(k % len(state.chance_outcomes()))
        start = time.process_time()
        bot.step(state)
        times.append(time.process_time() - start)
    return statistics.median(times)


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
    parser.add_argument("--mcts", type=int, default=100, help="MCTS simulations a decision")
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
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("OpenSpiel rows skipped: pyspiel is not installed (the [spiel] extra)")
        spiel_engines: list[str] = []
    else:
        spiel_engines = ["python", "c"] if fast.AVAILABLE else ["python"]
    for engine in spiel_engines:
        for turn_level in (False, True):
            name = f"spiel, {'turn' if turn_level else 'die'} level ({engine} engine)"
            runs.append((name, spiel(level, engine, turn_level)))
    print(f"{level.upper()}: random play, medians of {args.repeats} runs of {args.seconds} s")
    print(f"{'':48} {'steps/s':>10} {'games/s':>10}")
    for name, run in runs:
        steps, games = measure(run, args.seconds, args.repeats)
        print(f"{name:48} {steps:10,.0f} {games:10,.1f}")
    for engine in spiel_engines:
        seconds = mcts_decision(level, engine, args.mcts, args.repeats)
        print(
            f"spiel MCTS, {args.mcts} simulations ({engine} engine): {seconds:.3f} CPU s a decision"
        )


if __name__ == "__main__":
    main()
