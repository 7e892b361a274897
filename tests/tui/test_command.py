"""``magdagdon play``: its arguments, and the one line it prints without Textual."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from magdagdon.cli import main


def test_without_textual_it_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "textual", None)  # import textual raises ImportError
    assert main(["play"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "magdagdon play needs Textual: pip install 'magdagdon[tui]'\n"


def test_it_plays_the_difficulty_and_seed_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("textual")
    from magdagdon.tui import app

    calls: list[tuple[Any, ...]] = []

    def run(difficulty: str, seed: int | None) -> int:
        calls.append((difficulty, seed))
        return 0

    monkeypatch.setattr(app, "run", run)
    assert main(["play", "--difficulty", "nightmare", "--seed", "5"]) == 0
    assert main(["play"]) == 0
    assert calls == [("nightmare", 5), ("peaceful", None)]


def test_a_wrong_difficulty_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["play", "--difficulty", "easy"])
    assert exc.value.code == 2
    assert "invalid choice: 'easy'" in capsys.readouterr().err
