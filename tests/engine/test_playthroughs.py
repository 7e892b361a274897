"""Recorded seeded playthroughs: regenerated and compared line by line with the stored files."""

from __future__ import annotations

import difflib

import pytest

from magdagdon.engine import Difficulty

from ..playthrough import CASES, path, record


@pytest.mark.parametrize(("difficulty", "seed"), CASES)
def test_playthrough_is_unchanged(difficulty: Difficulty, seed: int) -> None:
    stored = path(difficulty, seed).read_text()
    now = record(difficulty, seed)
    diff = "".join(
        difflib.unified_diff(stored.splitlines(True), now.splitlines(True), "stored", "now")
    )
    assert not diff, (
        "playthrough changed (python scripts/record_playthroughs.py regenerates):\n" + diff
    )
