"""The puzzle check (issue 44, items 2 and 3): paired play-outs refuse a best plan that is not
ahead, one puzzle per position up to the board's symmetries and the dice's order, no forced
answer; the shipped starter set keeps those rules. Each check here plays few games on
positions near the end of the game: seconds, not minutes."""

from __future__ import annotations

import gzip
import json
import random
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from magdagdon.ai import puzzlecheck as C
from magdagdon.ai import puzzles as P
from magdagdon.ai.strong import StrongPlayer
from magdagdon.cli import main
from magdagdon.engine import Action, Difficulty, actions
from magdagdon.mining import check_puzzles

# Lines of the starter set of issue 35 (0-based ids of the issue, at commit 6c9ee21).
PUZZLE_631: dict[str, Any] = {
    "best": [
        {"delta": 1, "die": 2, "type": "adjust"},
        {"cell": 3, "die": 0, "type": "stage"},
        {"cell": 6, "die": 2, "type": "stage"},
        {"cell": 7, "die": 1, "type": "stage"},
        {"cell": 15, "die": 3, "type": "stage"},
        {"type": "confirm"},
    ],
    "best_value": 384.799,
    "deep_values": [384.799, 370.763, 370.339],
    "plans": 139,
    "position": {
        "board": "121./23../343./454.",
        "dice": [2, 3, 1, 5],
        "difficulty": "peaceful",
        "powers_used": 0,
        "turns": 5,
    },
    "second_value": 370.763,
    "source": "self-play:2026:209:5",
    "themes": ["two_pairs", "straight", "last_squares", "increase"],
}
"""Claimed 14 points ahead; loses to its runner-up when played (the issue: -3.9 ± 1.4)."""
PUZZLE_643: dict[str, Any] = {
    "best": [
        {"delta": -1, "die": 2, "type": "adjust"},
        {"cell": 1, "die": 2, "type": "stage"},
        {"cell": 14, "die": 0, "type": "stage"},
        {"cell": 15, "die": 1, "type": "stage"},
        {"type": "confirm"},
    ],
    "best_value": 455.924,
    "deep_values": [455.924, 426.743, 423.934],
    "plans": 9,
    "position": {
        "board": "4.66/3456/234./12..",
        "dice": [3, 4, 6, 1],
        "difficulty": "peaceful",
        "powers_used": 0,
        "turns": 5,
    },
    "second_value": 426.743,
    "source": "self-play:2026:212:5",
    "themes": ["straight", "fewer_dice", "last_squares", "decrease"],
}
"""Claimed 29, measured 16-18 by the issue: a real puzzle, its margin overstated."""
PUZZLE_1081: dict[str, Any] = {
    "best": [{"cell": 8, "type": "accept_magdagdon"}],
    "best_value": 349.0,
    "deep_values": [349.0, 279.0, 279.0],
    "plans": 16,
    "position": {
        "board": "1234/2345/.456/6566",
        "dice": [2, 1, 6, 5],
        "difficulty": "survival",
        "powers_used": 0,
        "turns": 6,
    },
    "second_value": 279.0,
    "source": "self-play:2026:73:6",
    "themes": ["last_squares", "ruin"],
}
"""The one empty square can never take a die: the RUIN, 70 points (the power) ahead of a
hopeless REROLL."""

FEW: dict[str, Any] = {"games": 30, "max_games": 60, "rivals": 3}
"""A check of few play-outs (the real one plays 100 to 400 a plan against 5 rivals)."""


@cache
def analyst() -> StrongPlayer:
    return P.analyst()


def mirrored(board: str) -> str:
    """The board mirrored left to right."""
    return "/".join(row[::-1] for row in board.split("/"))


def turned(board: str) -> str:
    """The board turned a quarter."""
    rows = board.split("/")
    return "/".join("".join(rows[3 - r][c] for r in range(4)) for c in range(4))


def test_a_best_plan_that_loses_when_played_is_refused() -> None:
    puzzle = P.Puzzle.from_dict(PUZZLE_631)
    checked = C.check_puzzle(puzzle, player=analyst(), **FEW)
    assert not checked.holds and checked.reason == "behind"
    assert checked.margin < 0  # the closest rival is ahead of it
    assert checked.rivals[0].mean == min(r.mean for r in checked.rivals)
    assert checked.games == 30  # decided at the first stage


def test_a_real_puzzle_holds_and_states_the_measured_margin() -> None:
    puzzle = P.Puzzle.from_dict(PUZZLE_643)
    checked = C.check_puzzle(puzzle, player=analyst(), **FEW)
    assert checked.holds, checked
    assert all(r.mean - C.Z * r.se >= C.FLOOR for r in checked.rivals)
    # measured well below the claimed 29 points
    assert C.FLOOR < checked.margin < puzzle.coach_margin
    stored = P.Puzzle.from_dict({**PUZZLE_643, "check": checked.to_dict()})
    assert stored.margin == pytest.approx(checked.margin, abs=1e-3)
    assert P.Puzzle.from_dict(stored.to_dict()) == stored
    assert stored.check is not None and stored.check["games"] == checked.games
    again = C.Check.from_dict(stored.check)
    assert again.holds and again.margin == pytest.approx(checked.margin, abs=1e-3)
    assert [r.plan for r in again.rivals] == [r.plan for r in checked.rivals]
    # a file written before the check is still read, its margin the coach's
    old = P.Puzzle.from_dict(PUZZLE_643)
    assert old.check is None and old.margin == pytest.approx(455.924 - 426.743)
    assert "check" not in old.to_dict()


def test_the_play_outs_are_paired_and_reproducible() -> None:
    position = P.Puzzle.from_dict(PUZZLE_643).position
    plan = PUZZLE_643["best"]
    scores = [C.play_out(position, plan, seed) for seed in range(5)]
    assert scores == [C.play_out(position, plan, seed) for seed in range(5)]
    assert len(set(scores)) > 1  # the later dice differ from one seed to the next


def test_a_ruin_whose_rivals_only_pay_for_powers_is_refused() -> None:
    puzzle = P.Puzzle.from_dict(PUZZLE_1081)
    found = P.plans(puzzle.position.game(), analyst())
    assert C.refusal(puzzle.position, puzzle.best, found) == "forced"
    checked = C.check_puzzle(puzzle, found=found)
    assert not checked.holds and checked.reason == "forced" and checked.games == 0


def test_a_rival_that_is_the_best_at_a_price_is_no_rival() -> None:
    # the last square takes the 3 (a FOUR and a STRAIGHT) or the 4; the coach's runner-ups
    # are the 3 again after a power (-1 on the 4, or a REROLL of another die): 70 points
    # behind, exactly the power's penalty, which is no margin
    position = P.Position(Difficulty.SURVIVAL, "333./4444/5555/6666", (5, 3, 1, 4))
    best: list[Action] = [actions.stage(1, 3), actions.confirm()]
    found = P.plans(position.game(), analyst())
    assert found[0].value - found[1].value == pytest.approx(70)  # the miner's claim
    checked = C.check(position, best, found=found, **FEW)
    assert checked.holds and checked.priced >= 1
    assert checked.rivals[0].plan[0]["type"] == "stage"  # the closest: the 4, for free
    assert checked.margin == pytest.approx(98)  # 60 + 40 of bonuses, less the 4's own
    assert C.price(position, [actions.reroll([0])]) == 70


def test_the_forced_last_square_is_refused() -> None:
    # only the 6 fits the last square (beside two 6s): every other plan spends a power
    position = P.Position(Difficulty.PEACEFUL, "1234/2345/3456/456.", (6, 1, 1, 1))
    found = P.plans(position.game(), analyst())
    assert len(found) >= P.MIN_PLANS
    best = found[0].actions
    assert not C.spends_power(best)
    assert C.refusal(position, best, found) == "forced"
    # with two dice that fit, the choice is the player's: no refusal
    free = P.Position(Difficulty.PEACEFUL, "1234/2345/3456/456.", (6, 5, 1, 1))
    found = P.plans(free.game(), analyst())
    assert C.refusal(free, found[0].actions, found) is None


def test_a_position_turned_mirrored_or_its_dice_reordered_is_one_puzzle() -> None:
    position = P.Position.from_dict(PUZZLE_643["position"])
    key = C.position_key(position)
    for board in (
        mirrored(position.board),
        turned(position.board),
        turned(turned(mirrored(position.board))),
    ):
        for dice in ((1, 6, 4, 3), (3, 4, 6, 1)):
            other = P.Position(position.difficulty, board, dice, 0, turns=7)
            assert C.position_key(other) == key, (board, dice)
    assert C.position_key(P.Position(position.difficulty, position.board, (3, 4, 6, 2))) != key
    used = P.Position(position.difficulty, position.board, position.dice, powers_used=1)
    assert C.position_key(used) != key
    nightmare = P.Position(Difficulty.NIGHTMARE, position.board, position.dice)
    assert C.position_key(nightmare) != key


def test_checking_a_set_keeps_one_puzzle_per_position(tmp_path: Path) -> None:
    repeat = json.loads(json.dumps(PUZZLE_643))
    repeat["position"]["board"] = mirrored(repeat["position"]["board"])
    repeat["position"]["dice"] = [1, 6, 4, 3]
    repeat["best"] = [  # the same plan, mirrored: the 6 (die 1 now) becomes a 5 on square 2
        {"delta": -1, "die": 1, "type": "adjust"},
        {"cell": 2, "die": 1, "type": "stage"},
        {"cell": 13, "die": 3, "type": "stage"},
        {"cell": 12, "die": 2, "type": "stage"},
        {"type": "confirm"},
    ]
    P.Puzzle.from_dict(repeat)  # a legal position
    source = tmp_path / "in.jsonl"
    source.write_text(
        "".join(json.dumps(p) + "\n" for p in (PUZZLE_643, repeat, PUZZLE_1081)), "utf-8"
    )
    out = tmp_path / "out.jsonl.gz"
    assert main(["puzzles", "check", "--in", str(source), "--out", str(out)]) == 0
    with gzip.open(out, "rt", encoding="utf-8") as lines:
        kept = [P.Puzzle.from_dict(json.loads(line)) for line in lines]
    assert [p.source for p in kept] == [PUZZLE_643["source"]]
    assert kept[0].check is not None and kept[0].margin == kept[0].check["margin"]
    again = check_puzzles([PUZZLE_643, repeat, PUZZLE_1081])
    assert again.refused == {"repeat": 1, "forced": 1}
    assert [p["check"] for p in again.kept] == [kept[0].check]  # reproducible


def test_a_sample_of_the_starter_set_is_checked_as_the_rule_says() -> None:
    near_end = [p for p in P.starter_puzzles() if p.position.board.count(".") <= 4 and p.plans >= 4]
    played = 0
    for puzzle in random.Random(44).sample(near_end, 4):
        checked = C.check_puzzle(puzzle, player=analyst(), **FEW)
        if checked.reason == "forced":
            continue
        played += 1
        assert checked.games in (30, 60) and 1 <= len(checked.rivals) <= 3
        means = [r.mean for r in checked.rivals]
        assert means == sorted(means) and checked.margin == means[0]
        assert checked.holds == all(r.mean - C.Z * r.se >= C.FLOOR for r in checked.rivals)
        best = C.plan_key(puzzle.position, puzzle.best)
        assert all(C.plan_key(puzzle.position, r.plan) != best for r in checked.rivals)
    assert played >= 2


def test_the_starter_set_has_one_puzzle_per_position() -> None:
    keys = [C.position_key(p.position) for p in P.starter_puzzles()]
    assert len(set(keys)) == len(keys), f"{len(keys) - len(set(keys))} repeats"


@pytest.mark.slow  # (make check leaves it out)
def test_mining_under_the_rules_is_reproducible(tmp_path: Path) -> None:
    files = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    for out in files:
        argv = ["puzzles", "mine", "--self-play", "1", "--difficulty", "nightmare"]
        assert main([*argv, "--seed", "2026", "--check", "--out", str(out)]) == 0
    assert files[0].read_bytes() == files[1].read_bytes()
    kept = [P.Puzzle.from_dict(json.loads(line)) for line in files[0].read_text().splitlines()]
    assert kept and all(p.check is not None and p.margin >= C.FLOOR for p in kept)
    keys = [C.position_key(p.position) for p in kept]
    assert len(set(keys)) == len(keys)


@pytest.mark.slow  # (make check leaves it out)
def test_a_servers_games_give_public_puzzles_only_when_the_check_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A finished game of the server (`magdagdon puzzles mine`, or the player's own search)
    gives a public puzzle only when the check holds, its figures stored with it; every turn
    that stands out stays the player's own, checked or not. The heuristic player's NIGHTMARE
    game of seed 0 has two such turns: the check keeps the first and refuses the second."""
    from magdagdon.ai.registry import make_player
    from magdagdon.ai.simulate import play
    from magdagdon.engine import Game
    from magdagdon.mining import mine_game

    game = Game(Difficulty.NIGHTMARE, seed=0)
    play(game, make_player("greedy"))
    checks: list[C.Check] = []
    real = C.check

    def spy(*args: Any, **kwargs: Any) -> C.Check:
        checks.append(real(*args, **kwargs))
        return checks[-1]

    monkeypatch.setattr(C, "check", spy)
    public, own = mine_game(game, "a-game")
    assert len(own) == 2 and all(p.margin >= P.MARGIN and p.check is None for p in own)
    assert [c.holds for c in checks] == [True, False]
    assert public == [replace(own[0], check=checks[0].to_dict())]
    assert public[0].margin == round(checks[0].margin, 3) >= C.FLOOR
