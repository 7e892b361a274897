"""The starter set of puzzles, mined and checked in shards that each fit in a session (issue 44).

Mining the set under the puzzle rules takes some 10 CPU-hours (BENCHMARKS.md, "A new starter
set"): far more than one session of a 2-core machine, and a run cut short writes nothing. So
the work is cut into shards, each a few minutes to half an hour, and each shard's result is a
file committed with the code: the next session goes on where the last one stopped.

A shard is ``GAMES`` of the coach's games of one difficulty from one seed (:data:`PLAN`: the
seeds in turn, each with the three difficulties, so that any prefix of the plan holds every
difficulty alike). For each shard, in the plan's order:

1. **mine**: ``mined-D-S.jsonl.gz``, every puzzle found in the games
   (:func:`magdagdon.mining.mine_self_play`, as ``magdagdon puzzles mine --self-play GAMES
   --seed S --difficulty D`` writes);
2. **check**: ``checked-D-S.jsonl.gz``, those of its puzzles whose position no earlier shard
   (nor an earlier puzzle of its own) has, each checked by the paired play-outs from
   :data:`CHECK_SEED` (:func:`magdagdon.mining.check_puzzles`, not analysed again: they were
   just mined), and ``checked-D-S.json``, what was refused and why, the time and the commit.

Joined in the plan's order, the checked shards are what ``magdagdon puzzles mine --check``
would give for all the games at once: the first puzzle of each position is kept, in the order
the games were played, and each is checked on its own (:func:`joined_equals_whole` in the
tests). A shard is checked only once every shard before it is mined (the positions seen
before it are known then).

Run: ``python -m benchmarks.starter status`` (what is done, what is left); ``python -m
benchmarks.starter run --minutes M [--processes 2]`` does the plan's next steps (every shard's
mining first, then the checks) and starts no new step after M minutes (a step started
finishes: a mining step takes some 4 CPU-minutes, a check up to about 20); ``python -m
benchmarks.starter join`` writes the joined set to ``src/magdagdon/data/starter.jsonl.gz``
(byte for byte the same for the same shards) and prints its counts by difficulty and theme.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from magdagdon.engine import Difficulty

ROOT = Path(__file__).parents[1]
DIR = ROOT / "benchmarks" / "data" / "starter"
"""Where the shards' files are kept (committed)."""
STARTER = ROOT / "src" / "magdagdon" / "data" / "starter.jsonl.gz"
GAMES = 20
"""The coach's games of a shard."""
SEEDS = range(2026, 2026 + 24)
"""The shards' seeds: 480 games a difficulty in all (some 1,300 are needed for 2,000 puzzles
that hold, BENCHMARKS.md); more can be added at the end without changing any shard before."""
CHECK_SEED = 0
"""The seed of every shard's check."""


@dataclass(frozen=True)
class Shard:
    """``GAMES`` coach's games of ``difficulty`` from ``seed``."""

    difficulty: Difficulty
    seed: int

    @property
    def name(self) -> str:
        """The part of its files' names: ``D-S``."""
        return f"{self.difficulty.value}-{self.seed}"

    def mined(self, folder: Path = DIR) -> Path:
        """The file of the puzzles its games gave."""
        return folder / f"mined-{self.name}.jsonl.gz"

    def checked(self, folder: Path = DIR) -> Path:
        """The file of its puzzles that passed the check (new positions only)."""
        return folder / f"checked-{self.name}.jsonl.gz"

    def summary(self, folder: Path = DIR) -> Path:
        """What its check refused and how long it took."""
        return folder / f"checked-{self.name}.json"


PLAN = tuple(Shard(d, s) for s in SEEDS for d in Difficulty)
"""Every shard, in the order their puzzles are taken."""

Puzzles = list[dict[str, object]]


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
    except OSError:
        return ""
    return out.stdout.strip()


def _key(data: dict[str, object]) -> tuple[object, ...]:
    from magdagdon.ai import puzzlecheck as C
    from magdagdon.ai import puzzles as P

    return C.position_key(P.Position.from_dict(data["position"]))  # type: ignore[arg-type]


def new_positions(earlier: Iterable[Puzzles], puzzles: Puzzles) -> tuple[Puzzles, int]:
    """``puzzles`` without those whose position an ``earlier`` shard (or an earlier puzzle of
    ``puzzles``) has; and how many were left out."""
    seen = {_key(p) for shard in earlier for p in shard}
    new = []
    for puzzle in puzzles:
        key = _key(puzzle)
        if key not in seen:
            seen.add(key)
            new.append(puzzle)
    return new, len(puzzles) - len(new)


Miner = Callable[[Shard, int], Puzzles]
Checker = Callable[[Puzzles, int], tuple[Puzzles, dict[str, int]]]


def _mine(shard: Shard, processes: int) -> Puzzles:
    from magdagdon.mining import mine_self_play

    return mine_self_play([shard.difficulty], GAMES, shard.seed, processes).puzzles


def _check(puzzles: Puzzles, processes: int) -> tuple[Puzzles, dict[str, int]]:
    from magdagdon.mining import check_puzzles

    checked = check_puzzles(puzzles, CHECK_SEED, processes, reanalyse=False)
    return checked.kept, dict(checked.refused)


def next_step(plan: tuple[Shard, ...] = PLAN, folder: Path = DIR) -> tuple[str, Shard] | None:
    """The plan's next step: ``("mine", shard)`` while a shard is not mined, then ``("check",
    shard)`` for the first shard not checked; None when all is done."""
    for shard in plan:
        if not shard.mined(folder).exists():
            return "mine", shard
    for shard in plan:
        if not shard.checked(folder).exists():
            return "check", shard
    return None


def do_step(
    step: tuple[str, Shard],
    processes: int = 1,
    plan: tuple[Shard, ...] = PLAN,
    folder: Path = DIR,
    mine: Miner = _mine,
    check: Checker = _check,
) -> str:
    """Carry out one step (:func:`next_step`), writing its files; a line saying what it did."""
    from magdagdon.mining import read_puzzles, write_puzzles

    kind, shard = step
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    if kind == "mine":
        found = mine(shard, processes)
        write_puzzles(found, shard.mined(folder))
        return f"mined {shard.name}: {len(found)} puzzles in {time.perf_counter() - start:.0f} s"
    before = plan[: plan.index(shard)]
    new, repeats = new_positions(
        (read_puzzles(s.mined(folder)) for s in before), read_puzzles(shard.mined(folder))
    )
    kept, refused = check(new, processes)
    seconds = time.perf_counter() - start
    summary = {
        "shard": shard.name,
        "games": GAMES,
        "check_seed": CHECK_SEED,
        "repeats": repeats,
        "checked": len(new),
        "kept": len(kept),
        "refused": dict(sorted(refused.items())),
        "seconds": round(seconds),
        "commit": _commit(),
    }
    shard.summary(folder).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    write_puzzles(kept, shard.checked(folder))  # last: the step is done once this exists
    return (
        f"checked {shard.name}: {len(kept)} of {len(new)} kept ({repeats} repeats) "
        f"in {seconds:.0f} s"
    )


def joined(plan: tuple[Shard, ...] = PLAN, folder: Path = DIR) -> Puzzles:
    """Every checked shard's puzzles, in the plan's order (all must be checked)."""
    from magdagdon.mining import read_puzzles

    missing = [s.name for s in plan if not s.checked(folder).exists()]
    if missing:
        raise SystemExit(f"{len(missing)} shards are not checked yet, e.g. {missing[0]}")
    return [p for s in plan for p in read_puzzles(s.checked(folder))]


def status(plan: tuple[Shard, ...] = PLAN, folder: Path = DIR) -> str:
    """How far the plan is: shards mined and checked, puzzles kept, CPU time spent."""
    from magdagdon.mining import read_puzzles

    mined = [s for s in plan if s.mined(folder).exists()]
    checked = [s for s in plan if s.checked(folder).exists()]
    kept: Counter[str] = Counter()
    seconds = 0
    for s in checked:
        info = json.loads(s.summary(folder).read_text(encoding="utf-8"))
        kept[s.difficulty.value] += info["kept"]
        seconds += info["seconds"]
    candidates = sum(len(read_puzzles(s.mined(folder))) for s in mined)
    lines = [
        f"{len(mined)} of {len(plan)} shards mined ({candidates} puzzles found), "
        f"{len(checked)} checked ({seconds / 3600:.1f} hours of checks)",
        "kept: " + (", ".join(f"{d} {n}" for d, n in sorted(kept.items())) or "none yet"),
    ]
    step = next_step(plan, folder)
    lines.append(f"next: {step[0]} {step[1].name}" if step else "all done: join")
    return "\n".join(lines)


def main() -> None:
    """The command line (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=["status", "run", "join"])
    parser.add_argument("--minutes", type=float, default=60.0, help="with run: start no step after")
    parser.add_argument("--processes", type=int, default=1, help="with run: worker processes")
    args = parser.parse_args()
    if args.action == "status":
        print(status())
    elif args.action == "run":
        start = time.monotonic()
        while time.monotonic() - start < 60 * args.minutes:
            step = next_step()
            if step is None:
                break
            print(do_step(step, args.processes), flush=True)
        print(status())
    else:
        from magdagdon.ai.puzzles import Puzzle
        from magdagdon.mining import write_puzzles

        found = joined()
        write_puzzles(found, STARTER)
        by_level = Counter(str(p["position"]["difficulty"]) for p in found)  # type: ignore[index]
        themes = Counter(t for p in found for t in Puzzle.from_dict(p).themes)
        where = STARTER.relative_to(ROOT)
        print(f"{len(found)} puzzles -> {where}: {dict(sorted(by_level.items()))}")
        print("themes: " + ", ".join(f"{t} {n}" for t, n in themes.most_common()))


if __name__ == "__main__":
    main()
