"""The starter set mined in shards (``benchmarks/starter.py``): joined in the plan's order, the
shards give what one run over all the games would, whatever the sessions they were done in."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from benchmarks import starter as S
from magdagdon.engine import Difficulty

PLAN = tuple(S.Shard(d, s) for s in (7, 8) for d in (Difficulty.PEACEFUL, Difficulty.NIGHTMARE))


def _puzzle(shard: S.Shard, board: str, dice: list[int]) -> dict[str, object]:
    return {
        "position": {
            "board": board,
            "dice": dice,
            "difficulty": shard.difficulty.value,
            "powers_used": 0,
            "turns": 1,
        },
        "source": f"self-play:{shard.seed}",
    }


def fake_mine(shard: S.Shard, processes: int) -> list[dict[str, object]]:
    """Puzzles that repeat across shards of a difficulty: the same board mirrored, the dice
    in another order (one position), and a position of the shard's own."""
    return [
        _puzzle(shard, "1.../..../..../....", [2, 3, 4, 5]),
        _puzzle(shard, "...1/..../..../....", [5, 4, 3, 2]),  # the same position, mirrored
        _puzzle(shard, f"{shard.seed - 4}.../..../..../....", [1, 1, 2, 6]),
    ]


def fake_check(
    puzzles: list[dict[str, object]], processes: int
) -> tuple[list[dict[str, object]], dict[str, int]]:
    """Keeps a puzzle whose board's first square is odd (one per position, as the check)."""
    kept = [p for p in puzzles if int(str(p["position"]["board"])[0].replace(".", "0")) % 2]  # type: ignore[index]
    return kept, {"behind": len(puzzles) - len(kept)}


def run_all(folder: Path, stop_after: int | None = None) -> int:
    """The plan's steps until done (or ``stop_after`` steps: a session's end)."""
    done = 0
    while (step := S.next_step(PLAN, folder)) is not None and done != stop_after:
        S.do_step(step, plan=PLAN, folder=folder, mine=fake_mine, check=fake_check)
        done += 1
    return done


def test_joined_equals_whole(tmp_path: Path) -> None:
    """Shards joined = the check of every game's puzzles at once, first of each position kept;
    the steps done over three 'sessions' give the same files as in one."""
    assert run_all(tmp_path / "one") == 2 * len(PLAN)
    folder = tmp_path / "three"
    assert run_all(folder, 3) == 3 and run_all(folder, 3) == 3 and run_all(folder) == 2
    whole = [p for s in PLAN for p in fake_mine(s, 1)]
    new, repeats = S.new_positions([], whole)
    expected, _ = fake_check(new, 1)
    assert S.joined(PLAN, tmp_path / "one") == S.joined(PLAN, folder) == expected
    assert repeats == 6  # 2 mirrored in each shard, 2 more in each later shard of a difficulty
    assert [p["source"] for p in expected] == ["self-play:7"] * 4
    for shard in PLAN:
        for path in (shard.mined, shard.checked):
            assert path(tmp_path / "one").read_bytes() == path(folder).read_bytes()
    summary = json.loads(PLAN[2].summary(folder).read_text())
    assert summary["repeats"] == 2 and summary["checked"] == 1 and summary["kept"] == 0


def test_mining_comes_first_and_a_check_needs_every_earlier_shard(tmp_path: Path) -> None:
    steps = []
    while (step := S.next_step(PLAN, tmp_path)) is not None:
        steps.append((step[0], step[1].name))
        S.do_step(step, plan=PLAN, folder=tmp_path, mine=fake_mine, check=fake_check)
    names = [s.name for s in PLAN]
    assert steps == [("mine", n) for n in names] + [("check", n) for n in names]
    assert "all done" in S.status(PLAN, tmp_path)


def test_an_unfinished_plan_is_not_joined(tmp_path: Path) -> None:
    run_all(tmp_path, len(PLAN) + 1)
    with pytest.raises(SystemExit, match="3 shards are not checked"):
        S.joined(PLAN, tmp_path)
    assert "next: check nightmare-7" in S.status(PLAN, tmp_path)


def test_the_shards_files_are_the_mining_commands_format(tmp_path: Path) -> None:
    """gzip without a timestamp, one JSON puzzle a line (``magdagdon puzzles mine --out``)."""
    run_all(tmp_path, 1)
    raw = PLAN[0].mined(tmp_path).read_bytes()
    assert raw[4:8] == b"\0\0\0\0"  # gzip's MTIME
    lines = gzip.decompress(raw).decode().splitlines()
    assert [json.loads(line) for line in lines] == fake_mine(PLAN[0], 1)
