"""The puzzle check on the shipped starter set (issue 44, items 2 and 3).

Run: ``python -m benchmarks.puzzle_check [--sample 90] [--seed 44] [--check-seed 0]`` checks a
sample of the starter set (as many puzzles of each difficulty, drawn with ``--seed``) with
:func:`magdagdon.ai.puzzlecheck.check`: each stated best plan, as shipped, against the 5
strongest rivals of today's coach by paired play-outs to the end of the game (the ``ntuple``
bot, 100 to 400 play-outs a plan). It prints each puzzle's claimed margin (the coach's) and
the measured one, how many hold (by difficulty and by claimed margin) and the time a puzzle.

``--ids 631 86 …`` checks those lines of the set (0-based) instead, with every rival's figures.
``--rules`` counts, over the whole set, what item 3 refuses: repeats of a position
(:func:`~magdagdon.ai.puzzlecheck.position_key`), forced answers
(:func:`~magdagdon.ai.puzzlecheck.refusal`), the opening puzzles and their distinct rolls.
``--full K`` times the whole re-check of K puzzles spread over the sample
(:func:`magdagdon.mining.check_puzzles`: analysed again by today's coach, then checked), what
filtering the set costs.
Prints figures; asserts nothing. Run it with ``nice -n 19``: one process.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter

from magdagdon.ai import puzzlecheck as C
from magdagdon.ai import puzzles as P
from magdagdon.ai.registry import make_player
from magdagdon.engine import Difficulty
from magdagdon.mining import check_puzzles

BUCKETS = ((4, 6), (6, 8), (8, 12), (12, 20), (20, 1000))
"""Claimed margins (points) the summary groups by."""


def _bucket(margin: float) -> str:
    for low, high in BUCKETS:
        if low <= margin < high:
            return f"{low}-{high}" if high < 1000 else f"{low}+"
    return "<4"


def check_sample(args: argparse.Namespace, found: list[P.Puzzle]) -> None:
    """Check the sample's stated best plans; print each and the summary."""
    if args.ids:
        chosen = [(i, found[i]) for i in args.ids]
    else:
        rng = random.Random(args.seed)
        chosen = []
        per = args.sample // len(Difficulty)
        for difficulty in Difficulty:
            ids = [i for i, p in enumerate(found) if p.position.difficulty is difficulty]
            chosen += [(i, found[i]) for i in sorted(rng.sample(ids, per))]
    player = P.analyst()
    bot = make_player(C.BOT)
    rows = []
    print("id    level      claimed  measured ±  se  games  verdict    s  today's best differs")
    for i, puzzle in chosen:
        start = time.perf_counter()
        plans = P.plans(puzzle.position.game(), player)
        checked = C.check(puzzle.position, puzzle.best, found=plans, seed=args.check_seed, bot=bot)
        seconds = time.perf_counter() - start
        differs = C.plan_key(puzzle.position, plans[0].actions) != C.plan_key(
            puzzle.position, puzzle.best
        )
        close = checked.rivals[0] if checked.rivals else None
        measured = f"{close.mean:8.1f} ± {close.se:4.1f}" if close else f"{'':8}   {'':4}"
        verdict = "holds" if checked.holds else checked.reason
        print(
            f"{i:<5} {puzzle.position.difficulty.value:<10} {puzzle.coach_margin:6.1f} "
            f"{measured} {checked.games:5}  {verdict:<8} {seconds:5.1f}  {'yes' if differs else ''}"
        )
        if args.ids:
            for r in checked.rivals:
                kinds = " ".join(a["type"] for a in r.plan)
                print(f"        rival (coach {r.coach:6.1f}): {r.mean:6.1f} ± {r.se:4.1f}  {kinds}")
        rows.append((puzzle, checked, seconds, differs))
    print()
    print("by difficulty        n  holds  forced  behind  today's best differs  s/puzzle")
    for difficulty in [*Difficulty, None]:
        part = [r for r in rows if difficulty is None or r[0].position.difficulty is difficulty]
        if not part:
            continue
        name = difficulty.value if difficulty else "all"
        reasons = Counter(r[1].reason for r in part)
        print(
            f"{name:<18} {len(part):3}  {sum(r[1].holds for r in part):5}  "
            f"{reasons['forced']:6}  {reasons['behind']:6}  {sum(r[3] for r in part):20}  "
            f"{statistics.mean(r[2] for r in part):8.1f}"
        )
    print()
    print("by claimed margin    n  holds  mean claimed  mean measured  measured < 2 (of played)")
    for low, high in BUCKETS:
        part = [r for r in rows if low <= r[0].coach_margin < high and r[1].rivals]
        if not part:
            continue
        claimed = statistics.mean(r[0].coach_margin for r in part)
        mean_measured = statistics.mean(r[1].margin for r in part)
        small = sum(r[1].margin < C.FLOOR for r in part)
        print(
            f"{_bucket(low):<18} {len(part):3}  {sum(r[1].holds for r in part):5}  "
            f"{claimed:12.1f}  {mean_measured:13.1f}  {small:5}"
        )
    if args.full:
        step = max(1, len(chosen) // args.full)  # every difficulty
        first = [p.to_dict() for _, p in chosen[::step][: args.full]]
        checked_set = check_puzzles(first, args.check_seed)
        print()
        print(
            f"re-analysed and checked {checked_set.seen} puzzles in {checked_set.seconds:.0f} s "
            f"({checked_set.seconds / checked_set.seen:.1f} s a puzzle): "
            f"{len(checked_set.kept)} kept; refused {dict(checked_set.refused)}"
        )


def rules(found: list[P.Puzzle]) -> None:
    """Count what item 3's rules refuse over the whole set."""
    start = time.perf_counter()
    keys = [C.position_key(p.position) for p in found]
    exact = {str(p.position.to_dict()) for p in found}
    openings = [p for p in found if p.position.board == "..../..../..../...."]
    rolls = {(p.position.difficulty, tuple(sorted(p.position.dice))) for p in openings}
    player = P.analyst()
    forced: Counter[str] = Counter()
    seen: set[object] = set()
    for puzzle, key in zip(found, keys, strict=True):
        if key in seen:
            continue
        seen.add(key)
        plans = P.plans(puzzle.position.game(), player)
        if C.refusal(puzzle.position, puzzle.best, plans) is not None:
            forced[puzzle.position.difficulty.value] += 1
    print(
        f"{len(found)} lines, {len(exact)} distinct positions as written, {len(set(keys))} "
        f"up to symmetry, dice order and turn count ({len(found) - len(set(keys))} repeats)"
    )
    print(f"{len(openings)} opening puzzles over {len(rolls)} distinct (difficulty, roll)")
    print(f"forced answers among the distinct positions: {sum(forced.values())} {dict(forced)}")
    print(f"({time.perf_counter() - start:.0f} s)")


def main() -> None:
    """Run the measurement."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=90)
    parser.add_argument("--seed", type=int, default=44)
    parser.add_argument("--check-seed", type=int, default=0)
    parser.add_argument("--ids", type=int, nargs="*")
    parser.add_argument("--rules", action="store_true")
    parser.add_argument("--full", type=int, default=0)
    args = parser.parse_args()
    found = P.starter_puzzles()
    if args.rules:
        rules(found)
    else:
        check_sample(args, found)


if __name__ == "__main__":
    main()
