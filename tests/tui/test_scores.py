"""The terminal game's high scores: ten per difficulty, best first, saved atomically; an
unreadable file is set aside with a message, never a crash."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from magdagdon.tui.scores import DATA_DIR_VARIABLE, FILE_NAME, KEEP, Entry, ScoreStore, data_dir


def entry(score: int, difficulty: str = "peaceful", date: str = "2026-12-01T09:30") -> Entry:
    return Entry(date, difficulty, score, turns=9, powers_used=1, hints_used=2)


def test_the_data_dir_is_named_by_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DATA_DIR_VARIABLE, str(tmp_path / "data"))
    assert data_dir() == tmp_path / "data"
    store = ScoreStore()
    assert store.path == tmp_path / "data" / FILE_NAME
    store.add(entry(100))
    assert store.path.is_file() and store.problem is None


def test_without_the_variable_it_is_the_user_data_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    import platformdirs

    monkeypatch.delenv(DATA_DIR_VARIABLE, raising=False)
    assert data_dir() == Path(platformdirs.user_data_dir("magdagdon", appauthor=False))


def test_ten_best_per_difficulty_best_first_and_their_places(tmp_path: Path) -> None:
    store = ScoreStore(tmp_path / "scores.json")
    places = [store.add(entry(score)) for score in (50, 300, 120, 300)]
    assert places == [1, 1, 2, 2]  # an equal score goes below the earlier game
    for score in range(200, 200 + KEEP):
        store.add(entry(score))
    assert store.add(entry(10)) is None  # not among the ten best
    assert store.add(entry(5, "nightmare")) == 1
    again = ScoreStore(store.path)
    scores = [e.score for e in again.table("peaceful")]
    assert len(scores) == KEEP and scores == sorted(scores, reverse=True)
    assert scores[:2] == [300, 300]
    assert [e.score for e in again.table("nightmare")] == [5]
    assert again.table("survival") == []
    assert again.table("peaceful")[0] == entry(300)


def test_the_file_is_json_with_every_field(tmp_path: Path) -> None:
    store = ScoreStore(tmp_path / "deep" / "er" / "scores.json")  # folders are made
    store.add(Entry("2026-12-01T09:30", "survival", 321, 11, 1, 3, seed=7))
    data = json.loads(store.path.read_text())
    assert data["format"] == 1
    assert data["scores"]["survival"] == [
        {
            "date": "2026-12-01T09:30",
            "difficulty": "survival",
            "score": 321,
            "turns": 11,
            "powers_used": 1,
            "hints_used": 3,
            "seed": 7,
        }
    ]


def test_saving_replaces_the_file_by_a_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The new table is written to a temporary file beside the old one and renamed over it:
    when the write fails, the old file is intact and no temporary file is left."""
    store = ScoreStore(tmp_path / "scores.json")
    store.add(entry(100))
    before = store.path.read_text()
    renames: list[tuple[str, str]] = []
    real_replace = os.replace

    def replace(src: str, dst: str) -> None:
        renames.append((Path(src).name, Path(dst).name))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    store.add(entry(200))
    assert len(renames) == 1 and renames[0][1] == "scores.json"
    assert renames[0][0].startswith(".scores.json.")

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(json, "dump", broken)
    store.add(entry(300))
    assert store.problem is not None and "No space left on device" in store.problem
    assert json.loads(store.path.read_text())["scores"]["peaceful"][0]["score"] == 200
    assert json.loads(before)["scores"]["peaceful"][0]["score"] == 100
    assert [p.name for p in tmp_path.iterdir()] == ["scores.json"]


@pytest.mark.parametrize(
    "text",
    [
        "not json {",
        "[]",
        '{"format": 99, "scores": {}}',
        '{"format": 1, "scores": {"easy": []}}',
        '{"format": 1, "scores": {"peaceful": [{"score": "many"}]}}',
        '{"format": 1, "scores": {"peaceful": [{"date": "d", "difficulty": "nightmare",'
        ' "score": 1, "turns": 1, "powers_used": 0, "hints_used": 0}]}}',
    ],
)
def test_an_unreadable_file_is_set_aside_with_a_message(tmp_path: Path, text: str) -> None:
    path = tmp_path / "scores.json"
    path.write_text(text)
    store = ScoreStore(path)
    assert store.problem is not None and "set aside" in store.problem
    assert store.table("peaceful") == []
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("scores.json.unreadable-")]
    assert len(aside) == 1 and aside[0].read_text() == text
    assert not path.exists()
    assert store.add(entry(100)) == 1  # a new table is started
    assert ScoreStore(path).problem is None


def test_a_file_that_cannot_be_read_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "scores.json"
    path.mkdir()  # reading a directory fails with an OSError
    store = ScoreStore(path)
    assert store.problem is not None and "cannot be read" in store.problem
    assert store.add(entry(100)) == 1  # the game goes on, nothing is written
    assert path.is_dir()


def test_the_same_variable_moves_the_servers_default_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One setting moves both: the terminal game's files and the server's SQLite database (a
    database named by MAGDAGDON_DATABASE_URL stays where it is named)."""
    from magdagdon.settings import Settings

    monkeypatch.setenv(DATA_DIR_VARIABLE, str(tmp_path / "data"))
    monkeypatch.delenv("MAGDAGDON_DATABASE_URL", raising=False)
    assert Settings().database_url == f"sqlite:///{tmp_path / 'data' / 'magdagdon.db'}"
    monkeypatch.setenv("MAGDAGDON_DATABASE_URL", "sqlite:////elsewhere/x.db")
    assert Settings().database_url == "sqlite:////elsewhere/x.db"
