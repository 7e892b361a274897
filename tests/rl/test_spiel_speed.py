"""benchmarks.spiel_speed, the OpenSpiel game's speed (issue 47): it runs and measures both
loops on a tiny budget, and the guide states the measured range with the command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("numpy")

from benchmarks import spiel_speed

ROOT = Path(__file__).resolve().parents[2]


def test_it_measures_both_loops(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--seconds", "0.05", "--repeats", "2", "--difficulties", "nightmare"]
    rates = spiel_speed.main([*argv, "--levels", "die"])
    assert set(rates) == {("nightmare", "die", loop) for loop in spiel_speed.LOOPS}
    assert all(len(r) == 2 and r == sorted(r) and r[0] > 0 for r in rates.values())
    out = capsys.readouterr().out
    assert "median of 2 runs" in out and re.search(r"^nightmare, die level .* µs$", out, re.M)


def test_the_guide_and_benchmarks_give_the_measured_range_and_the_command() -> None:
    """The guide once said "about 140,000" where a researcher measured 110-155k: it gives
    the range measured per difficulty, how, and what np.random.choice costs a decision."""
    guide = (ROOT / "docs" / "rl.md").read_text(encoding="utf-8")
    record = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    for text in (guide, record):
        assert "python -m benchmarks.spiel_speed" in text
        assert "np.random.choice" in text
    assert "about 140,000 die-level" not in guide
    assert re.search(r"\d{2,3},\d{3}[–-]\d{2,3},\d{3}\s+die-level\s+decisions", guide)
