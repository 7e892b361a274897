"""The terminal game's tests: Textual's pilot runs on asyncio, and the high scores of each test
go to a folder of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from magdagdon.tui.scores import DATA_DIR_VARIABLE


@pytest.fixture
def anyio_backend() -> str:
    """Textual runs on asyncio (the tests use anyio's pytest plugin to await the pilot)."""
    return "asyncio"


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The high scores of every test go to its own folder."""
    folder = tmp_path / "data"
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(folder))
    return folder
