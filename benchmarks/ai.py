"""AI strength and speed: every bot in every difficulty on the same evaluation seeds, how long
a hint takes, and how well a hint's expected score foretells the final one.

Run: ``python -m benchmarks.ai [--games 1000] [--seed 0] [--processes 2] [--bots ...]
[--hints 300] [--blocks 100] [--calibration 300] [--http 30] [--difficulties ...] [--vs
BOT]`` from the repository root. Prints one table:
mean ± 95% CI of the final score, ruins per game, and milliseconds per decision (p50 / p99);
with ``--blocks N``, under each row the mean of every N consecutive games (how far a smaller
sample of the same seeds can stray from the mean); then the hint latency (p50 / p95 / max)
over positions met in games of the strong player (every phase: before the roll, placing,
MAGDAGDON), answered by a fresh coach each time as a server process would after a restart
(the slowest case: nothing memoised). With ``--calibration N``, the strong player plays N
games of each difficulty and a table says how far the expected final score it gives its
chosen move (what a hint shows: the value corrected by ``ai/calibration``) lies from the score
the game then ends with, by the empty squares at the decision. With ``--http N``, a served
game's hints are timed over HTTP in N games played by them. ``--difficulties`` keeps to some;
``--vs BOT`` adds every bot's paired
difference with BOT on the same seeds. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from multiprocessing import get_context

from magdagdon.ai import coach
from magdagdon.ai.calibration import offset, play_out
from magdagdon.ai.coach import hint
from magdagdon.ai.registry import PLAYERS, make_player
from magdagdon.ai.simulate import (
    GameResult,
    _ci95,
    _percentile,
    game_seed,
    paired,
    run_games,
    summarize,
)
from magdagdon.ai.strong import StrongPlayer
from magdagdon.engine import Difficulty, Game


def strength(args: argparse.Namespace) -> None:
    """The table of every bot in every difficulty (decisions per second from the mean time of
    a decision), then each bot's paired difference with ``--vs`` on the same seeds."""
    print(f"{args.games} games per cell, evaluation seed {args.seed}, {args.processes} processes")
    head = f"{'bot':<11}{'difficulty':<11}{'mean ± 95% CI':>18}{'ruins':>7}"
    print(f"{head}{'ms/decision p50/p99':>22}{'decisions/s':>13}{'s':>6}")
    played: dict[tuple[str, str], list[GameResult]] = {}
    levels = [Difficulty(d) for d in args.difficulties]
    for bot in args.bots:
        for difficulty in levels:
            start = time.perf_counter()
            results = run_games(bot, difficulty.value, args.games, args.seed, args.processes)
            played[bot, difficulty.value] = results
            s = summarize(results, bot, difficulty.value, args.seed)
            times = [ms for r in results for ms in r.decision_ms]
            per_second = 1000 * len(times) / max(sum(times), 1e-9)
            print(
                f"{bot:<11}{difficulty.value:<11}{s['mean']:>10.1f} ± {s['ci95']:<5.1f}"
                f"{s['ruins_per_game']:>7.2f}"
                f"{s['ms_per_decision_p50']:>13.2f} / {s['ms_per_decision_p99']:<6.2f}"
                f"{per_second:>13.0f}{time.perf_counter() - start:>6.0f}",
                flush=True,
            )
            if args.blocks:
                print(f"{'':<22}{args.blocks}-game blocks: {block_means(results, args.blocks)}")
    if args.vs:
        print(f"paired differences with {args.vs} on the same {args.games} seeds (95% CI)")
        for difficulty in levels:
            base = played.get((args.vs, difficulty.value))
            if base is None:
                base = run_games(args.vs, difficulty.value, args.games, args.seed, args.processes)
            for bot in args.bots:
                if bot != args.vs:
                    d = paired(played[bot, difficulty.value], base)
                    print(
                        f"{bot:<11}{difficulty.value:<11}"
                        f"{d['mean_difference']:>+10.1f} ± {d['ci95']:.1f}",
                        flush=True,
                    )


BANDS = ((16, 13), (12, 9), (8, 5), (4, 1))
"""Empty squares at a decision, grouped for the calibration table."""


_strong: dict[str, StrongPlayer] = {}  # one per worker process: it keeps what it memoised


def expected_and_final(job: tuple[str, int, int]) -> list[tuple[int, float, int]]:
    """One game of the strong player: per decision, (empty squares, the expected final score
    of the chosen option as a hint says it, the final score)."""
    difficulty, seed, index = job
    player = _strong.get("player") or _strong.setdefault("player", StrongPlayer())
    level = Difficulty(difficulty)
    seen, final = play_out(player, Game.new(level, seed=game_seed(seed, index)))
    # what the hint says: the value corrected by the shipped calibration
    return [(empty, value + offset(level, empty), final) for empty, value in seen]


def calibration(
    games: int, seed: int, processes: int, difficulties: list[str] | None = None
) -> None:
    """The table of final − expected score, per difficulty and band of empty squares."""
    print(f"final score − expected score of the chosen move, {games} games of the strong player")
    print(f"{'difficulty':<11}" + "".join(f"{f'{hi}–{lo} empty':>17}" for hi, lo in BANDS))
    levels = [Difficulty(d) for d in difficulties] if difficulties else list(Difficulty)
    with get_context("spawn").Pool(processes) as pool:
        for difficulty in levels:
            jobs = [(difficulty.value, seed, i) for i in range(games)]
            rows = [r for game in pool.map(expected_and_final, jobs) for r in game]
            cells = []
            for hi, lo in BANDS:
                gaps = [final - value for empty, value, final in rows if lo <= empty <= hi]
                cells.append(f"{statistics.mean(gaps):+7.1f} ± {_ci95(gaps):<5.1f}")
            print(f"{difficulty.value:<11}" + "".join(f"{c:>17}" for c in cells), flush=True)


def block_means(results: list[GameResult], size: int) -> str:
    """The mean score of every ``size`` consecutive games (in game order), as one line.

    >>> block_means([GameResult(i, s, 5, 0, 0) for i, s in enumerate([1, 3, 10, 20, 7])], 2)
    '2 15 (min 2, max 15)'
    >>> block_means([], 2)
    'fewer than 2 games'
    """
    scores = [r.score for r in results]
    means = [statistics.mean(scores[i : i + size]) for i in range(0, len(scores) - size + 1, size)]
    if not means:
        return f"fewer than {size} games"
    text = " ".join(f"{m:.0f}" for m in means)
    return f"{text} (min {min(means):.0f}, max {max(means):.0f})"


def positions(count: int, seed: int) -> list[Game]:
    """Positions where a player may ask for a hint, from games of the strong player."""
    rng = random.Random(seed)
    player = make_player("strong")
    found: list[Game] = []
    index = 0
    while len(found) < count:
        difficulty = list(Difficulty)[index % 3]
        game = Game.new(difficulty, seed=10**9 + seed * 10_000 + index)
        index += 1
        while not game.is_over:
            if rng.random() < 0.5:
                found.append(game.copy())
            for action in player.turn(game):
                game.apply(action)
    return found[:count]


def hints(count: int, seed: int) -> None:
    """Hint latency over ``count`` positions."""
    games = positions(count, seed)
    times = []
    for game in games:
        coach._local.player = coach.new_player()  # nothing memoised: as after a restart
        start = time.perf_counter()
        hint(game)
        times.append((time.perf_counter() - start) * 1000)
    print(
        f"hint latency over {len(times)} positions (fresh coach each): "
        f"p50 {statistics.median(times):.0f} ms, p95 {_percentile(times, 0.95):.0f} ms, "
        f"max {max(times):.0f} ms"
    )


def http_hints(games: int, seed: int) -> None:
    """Hint latency over HTTP: ``games`` games (the difficulties in turn) played through a
    served game's API by its own hints, every hint timed from request to answer."""
    import tempfile
    from pathlib import Path

    import httpx2

    from tests.utils.api import act, new_game
    from tests.utils.server import running_server

    times: dict[str, list[float]] = {d.value: [] for d in Difficulty}
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'magdagdon.db'}"
        with running_server(url) as base, httpx2.Client(base_url=base, timeout=60) as client:
            for index in range(games):
                difficulty = list(Difficulty)[index % 3].value
                view = new_game(client, difficulty, seed=10**6 + seed * 10_000 + index)
                while view["phase"] != "over":
                    if view["phase"] == "roll":
                        view = act(client, view, {"type": "roll"})
                        continue
                    start = time.perf_counter()
                    r = client.get(f"/api/games/{view['id']}/hint")
                    times[difficulty].append((time.perf_counter() - start) * 1000)
                    assert r.status_code == 200, r.text
                    for action in r.json()["plan"]:
                        view = act(client, view, action)
    every = [t for ts in times.values() for t in ts]
    print(
        f"hint latency over HTTP, {len(every)} hints in {games} games played by them: "
        f"p50 {statistics.median(every):.0f} ms, p95 {_percentile(every, 0.95):.0f} ms, "
        f"max {max(every):.0f} ms"
    )
    for difficulty, ts in times.items():
        if ts:
            print(
                f"  {difficulty:<10} {len(ts):>4} hints: p50 {statistics.median(ts):.0f} ms, "
                f"p95 {_percentile(ts, 0.95):.0f} ms, max {max(ts):.0f} ms"
            )


def _bot(name: str) -> str:
    """A bot the registry makes: a shipped name, or ``package.module:Class``."""
    try:
        make_player(name)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
    return name


def main() -> None:
    """Play and print the table, then time the hints."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument(
        "--bots",
        nargs="+",
        type=_bot,
        default=list(PLAYERS),
        help=f"{', '.join(PLAYERS)}, or package.module:Class (a player not shipped yet)",
    )
    parser.add_argument(
        "--difficulties",
        nargs="+",
        choices=[d.value for d in Difficulty],
        default=[d.value for d in Difficulty],
    )
    parser.add_argument("--vs", type=_bot, help="the paired differences of every bot with it")
    parser.add_argument("--hints", type=int, default=300, help="positions to time (0: none)")
    parser.add_argument(
        "--blocks", type=int, default=0, help="also print the mean of every N games (0: no)"
    )
    parser.add_argument(
        "--http", type=int, default=0, help="games played by hints over HTTP, timed (0: none)"
    )
    parser.add_argument(
        "--calibration", type=int, default=0, help="games per difficulty for the calibration table"
    )
    args = parser.parse_args()
    if args.games:
        strength(args)
    if args.hints:
        hints(args.hints, args.seed)
    if args.http:
        http_hints(args.http, args.seed)
    if args.calibration:
        calibration(args.calibration, args.seed, args.processes, args.difficulties)


if __name__ == "__main__":
    main()
