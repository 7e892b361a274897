"""Puzzles: the margin that makes a puzzle, mining speed, grading and choosing speed.

Run: ``python -m benchmarks.puzzles threshold [--games 12] [--seed 90]`` measures, on every
turn of the coach's own games in each difficulty, the best plan's margin over the next, whether
the deeper search agrees on the best, and whether the network's first choice (no search at
all) already plays it; a table by margin says what share of the positions a margin keeps, how
often the deeper search agrees there (below, a coin toss) and how often the network alone
finds the answer (above, only the obvious).

``python -m benchmarks.puzzles grade [--attempts 300]`` times grading attempts (the server's
work for ``POST /api/puzzles/{id}/attempts`` without HTTP: the plan replayed and valued) on the
starter set's puzzles, half of them the best plan and half another; ``grade-http [--http
200]`` times the whole attempt over HTTP on a served game, each by a new player. ``python -m
benchmarks.puzzles choose [--puzzles 100000] [--players 10000] [--asks 2000] [--database-url
URL]`` fills a new SQLite database (or the empty one named) with that many puzzles and rated
players and times choosing the next puzzle.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import time

from magdagdon.ai import puzzles as P
from magdagdon.ai.coach import _canonical
from magdagdon.ai.heuristic import HeuristicPlayer
from magdagdon.ai.strong import Option, StrongPlayer
from magdagdon.engine import Action, Difficulty, Game

MARGINS = (0, 1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 30)


def _key(option: Option) -> object:
    if option.after is not None:
        return (_canonical(option.after), option.powers_left)
    return tuple(map(str, option.prefix))


def _played(game: Game, actions: list[Action]) -> object:
    """The key of what a bot's turn leaves, as :func:`_key` has it."""
    trial = game.search_copy()
    for action in actions:
        if action["type"] == "reroll":
            return tuple(map(str, [action]))
        trial.apply(action)
    return (_canonical(trial.board.cells), trial.powers_left)


def threshold(args: argparse.Namespace) -> None:
    """The table by margin (see the module docstring)."""
    greedy = StrongPlayer(search=False, power_margin=-float("inf"))
    simple = HeuristicPlayer()
    for difficulty in Difficulty:
        rows: list[tuple[float, bool, bool, bool]] = []
        start = time.perf_counter()
        player, deep = P.analyst(), P._deep_player()
        for game, _ in P.self_play(difficulty, args.games, args.seed):
            found = P.plans(game, player)
            if len(found) < P.MIN_PLANS:
                continue
            margin = found[0].value - found[1].value
            values = [P.deep_value(game, o, deep) for o in found[: P.DEEP_CANDIDATES]]
            agrees = all(v < values[0] for v in values[1:])
            first = greedy.options(game)[0]
            obvious = _key(first) == _key(found[0])
            plain = _played(game, simple.turn(game.copy())) == _key(found[0])
            rows.append((margin, agrees, obvious, plain))
        seconds = time.perf_counter() - start
        print(
            f"\n{difficulty.name}: {len(rows)} positions of {args.games} games "
            f"(seed {args.seed}), {seconds:.0f} s"
        )
        print(
            f"{'margin ≥':>9}{'kept':>8}{'deep agrees':>13}{'network alone':>15}{'heuristic':>11}"
        )
        for m in MARGINS:
            kept = [r for r in rows if r[0] >= m]
            if not kept:
                continue
            agree = sum(int(r[1]) for r in kept) / len(kept)
            obvious_share = sum(int(r[2]) for r in kept) / len(kept)
            plain_share = sum(int(r[3]) for r in kept) / len(kept)
            share = len(kept) / len(rows)
            line = f"{m:>9}{share:>8.0%}{agree:>13.0%}{obvious_share:>15.0%}"
            print(f"{line}{plain_share:>11.0%}")


def grading(args: argparse.Namespace) -> None:
    """Grading latency on the starter set."""
    from magdagdon.ai.puzzles import starter_puzzles

    puzzles = starter_puzzles()
    rng = random.Random(1)
    chosen = rng.sample(puzzles, min(args.attempts, len(puzzles)))
    player = P.analyst()
    times = []
    for i, puzzle in enumerate(chosen):
        game = puzzle.position.game()
        plan = puzzle.best
        if i % 2:
            plans = game.turn_plans() or [plan]
            plan = rng.choice(plans)
        start = time.perf_counter()
        with contextlib.suppress(P.PlanRefused):
            P.grade(puzzle.position, puzzle.best_value, plan, player)
        times.append((time.perf_counter() - start) * 1000)
        player.evaluator(puzzle.position.difficulty).clear()  # as a fresh request
    times.sort()
    print(
        f"grading {len(times)} attempts: p50 {times[len(times) // 2]:.1f} ms, "
        f"p95 {times[int(len(times) * 0.95)]:.1f} ms, max {times[-1]:.1f} ms "
        f"(mean {statistics.fmean(times):.1f})"
    )


def grading_http(args: argparse.Namespace) -> None:
    """Attempts over HTTP on a served game (``magdagdon serve``, SQLite, its coach processes):
    a new player asks for a puzzle and sends a placement of its roll (or a RUIN); each attempt
    timed from the request to the answer."""
    import tempfile
    from pathlib import Path

    import httpx2

    from tests.utils.server import running_server

    rng = random.Random(2)
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        with running_server(url) as base:
            for i in range(args.http):
                with httpx2.Client(base_url=base, timeout=60) as client:
                    found = client.get("/api/puzzles/next").json()
                    position = P.Position.from_dict(found["position"])
                    plans = position.game().turn_plans()
                    plan = rng.choice(plans) if plans and i % 2 else None
                    if plan is None:
                        plan = (
                            [{"type": "accept_magdagdon", "cell": found["view"]["ruin_choices"][0]}]
                            if not plans
                            else plans[0]
                        )
                    start = time.perf_counter()
                    r = client.post(f"/api/puzzles/{found['id']}/attempts", json={"actions": plan})
                    times.append((time.perf_counter() - start) * 1000)
                    assert r.status_code == 200, r.text
    times.sort()
    print(
        f"grading {len(times)} attempts over HTTP: p50 {times[len(times) // 2]:.1f} ms, "
        f"p95 {times[int(len(times) * 0.95)]:.1f} ms, max {times[-1]:.1f} ms"
    )


def choosing(args: argparse.Namespace) -> None:
    """Choosing the next puzzle in a big database."""
    import tempfile

    from magdagdon.store.puzzles import benchmark_choose

    with tempfile.TemporaryDirectory() as tmp:
        figures = benchmark_choose(
            f"sqlite:///{tmp}/bench.db", args.puzzles, args.players, args.asks
        )
    print(
        f"choosing the next puzzle among {args.puzzles} puzzles for {args.players} players "
        f"({args.asks} asks): p50 {figures['p50']:.2f} ms, p99 {figures['p99']:.2f} ms, "
        f"max {figures['max']:.2f} ms"
    )


def main() -> None:
    """Run one of the measurements."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("threshold")
    p.add_argument("--games", type=int, default=12)
    p.add_argument("--seed", type=int, default=90)
    p.set_defaults(run=threshold)
    p = sub.add_parser("grade")
    p.add_argument("--attempts", type=int, default=300)
    p.set_defaults(run=grading)
    p = sub.add_parser("grade-http")
    p.add_argument("--http", type=int, default=200)
    p.set_defaults(run=grading_http)
    p = sub.add_parser("choose")
    p.add_argument("--puzzles", type=int, default=100_000)
    p.add_argument("--players", type=int, default=10_000)
    p.add_argument("--asks", type=int, default=2000)
    p.add_argument("--database-url", help="an empty database (default: a new SQLite file)")
    p.set_defaults(run=choosing)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
