"""The hints' expected scores corrected as measured on the coach's own games
(:mod:`magdagdon.ai.calibration`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from magdagdon.ai import calibration
from magdagdon.ai.calibration import (
    fit,
    measured,
    offset,
    offsets_of,
    table,
    value_fingerprint,
)
from magdagdon.ai.coach import hint
from magdagdon.ai.strong import StrongPlayer
from magdagdon.cli import main
from magdagdon.engine import EMPTY, Difficulty, Game, Phase


@pytest.mark.parametrize("difficulty", list(Difficulty), ids=lambda d: d.value)
def test_the_shipped_table_was_fitted_on_the_values_the_coach_plays_with(
    difficulty: Difficulty,
) -> None:
    """Shipping another value (a network, the linear weights) without fitting its table
    again fails here: the old table would correct the new value by the old one's bias."""
    entry = table()[difficulty.value]
    assert entry["fitted_for"] == value_fingerprint(difficulty), (
        f"refit: magdagdon train --calibrate --difficulty {difficulty.value} "
        f"--games {entry['games']} --seed {entry['seed']}"
    )
    assert len(entry["means"]) == len(entry["decisions"]) == 17
    assert sum(entry["decisions"]) >= entry["games"]
    assert entry["decisions"][16] == entry["games"]  # every game's first decision
    offsets = offsets_of(entry["decisions"], entry["means"])
    assert [offset(difficulty, e) for e in range(17)] == offsets


def test_a_table_fitted_on_another_value_corrects_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    stale = {
        "nightmare": {
            "fitted_for": "nightmare.nt:000000000000",
            "decisions": [100] * 17,
            "means": [5.0] * 17,
        }
    }
    monkeypatch.setattr(calibration, "table", lambda: stale)
    assert offset(Difficulty.NIGHTMARE, 10) == 0.0
    assert offset(Difficulty.PEACEFUL, 10) == 0.0  # no entry at all


def _at_a_decision(difficulty: Difficulty, seed: int, turns: int) -> Game:
    game = Game.new(difficulty, seed=seed)
    player = StrongPlayer()
    while True:
        if game.phase is Phase.ROLL:
            game.roll()
            if game.turns >= turns:
                return game
            continue
        for action in player.turn(game):
            game.apply(action)


@pytest.mark.parametrize("difficulty", list(Difficulty), ids=lambda d: d.value)
def test_every_plan_of_a_hint_is_moved_by_the_same_offset(
    difficulty: Difficulty, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The correction moves what the expected scores mean, never which plan is best nor what
    a plan costs against it."""
    game = _at_a_decision(difficulty, seed=11, turns=2)
    empty = game.board.cells.count(EMPTY)
    monkeypatch.setattr(calibration, "offset", lambda d, e: 0.0)
    raw = hint(game)
    monkeypatch.setattr(calibration, "offset", lambda d, e: 100.0 + e if d is difficulty else 0.0)
    moved = hint(game)
    assert moved.plan == raw.plan
    assert moved.expected_score == pytest.approx(raw.expected_score + 100 + empty)
    assert [a.cost for a in moved.alternatives] == [a.cost for a in raw.alternatives]
    for a, b in zip(moved.alternatives, raw.alternatives, strict=True):
        assert a.expected_score == pytest.approx(b.expected_score + 100 + empty)


def test_a_player_of_other_values_is_not_corrected(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table is the coach's values' own: a hint from a player of the linear model (of a
    difficulty that the coach plays with a network) is not moved."""
    game = _at_a_decision(Difficulty.NIGHTMARE, seed=12, turns=2)
    linear = StrongPlayer(value="linear")
    monkeypatch.setattr(calibration, "offset", lambda d, e: 0.0)
    raw = hint(game, linear)
    monkeypatch.setattr(calibration, "offset", lambda d, e: 50.0)
    assert hint(game, linear).expected_score == raw.expected_score
    assert hint(game).expected_score == pytest.approx(hint(game, StrongPlayer()).expected_score)


@given(st.lists(st.tuples(st.integers(0, 16), st.floats(-300, 300)), max_size=60))
def test_each_offset_is_a_mean_of_gaps_measured(gaps: list[tuple[int, float]]) -> None:
    counts, means = measured(gaps)
    assert sum(counts) == len(gaps)
    offsets = offsets_of(counts, means, least=5)
    assert len(offsets) == 17
    if not gaps:
        assert offsets == [0.0] * 17
        return
    low = min(g for _, g in gaps)
    high = max(g for _, g in gaps)
    for empty, value in enumerate(offsets):
        assert low - 0.06 <= value <= high + 0.06
        here = [g for e, g in gaps if e == empty]
        if len(here) >= 5:
            assert value == pytest.approx(sum(here) / len(here), abs=0.06)


def test_fitting_is_reproducible_and_keeps_the_other_difficulties() -> None:
    first = fit(4, seed=3, difficulties=[Difficulty.NIGHTMARE])
    second = fit(4, seed=3, difficulties=[Difficulty.NIGHTMARE])
    assert first == second
    entry = first["nightmare"]
    assert entry["fitted_for"] == value_fingerprint(Difficulty.NIGHTMARE)
    assert entry["command"].endswith("--difficulty nightmare --games 4 --seed 3")
    assert first["peaceful"] == table()["peaceful"]  # kept from the shipped table
    assert fit(4, seed=4, difficulties=[Difficulty.NIGHTMARE])["nightmare"] != entry


def test_the_command_writes_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "networks"
    args = ["train", "--calibrate", "--difficulty", "nightmare", "--games", "3", "--seed", "5"]
    assert main([*args, "--output", str(out)]) == 0
    data: dict[str, Any] = json.loads((out / calibration.FILE).read_text("utf-8"))
    assert data["nightmare"] == fit(3, seed=5, difficulties=[Difficulty.NIGHTMARE])["nightmare"]
    assert set(data) == {d.value for d in Difficulty}
    assert "written to" in capsys.readouterr().out
    assert main(["train", "--calibrate", "--network", "--difficulty", "nightmare"]) == 2
