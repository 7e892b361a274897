"""The terminal game's local high scores: a JSON file in the user's data directory.

Each difficulty keeps its ten best games with the date, the score, the turns, the Majda
Powers and the hints used (the game screen records only games with random dice: as on the
server, a game whose dice were chosen with ``--seed`` never enters the tables). The file is
replaced atomically (a temporary file beside it, then a rename), so a crash never leaves half
a table. A file that cannot be read as a table is set aside under another name and a new
table started: :attr:`ScoreStore.problem` says so, the game goes on.

>>> import tempfile
>>> store = ScoreStore(Path(tempfile.mkdtemp()) / "highscores.json")
>>> store.add(Entry("2026-12-01T09:30", "peaceful", 412, 9, 1, 0))
1
>>> store.add(Entry("2026-12-01T10:00", "peaceful", 380, 10, 0, 2))
2
>>> [e.score for e in ScoreStore(store.path).table("peaceful")], store.table("nightmare")
([412, 380], [])
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from ..engine import Difficulty

DATA_DIR_VARIABLE: Final = "MAGDAGDON_DATA_DIR"
"""Names the directory of the high-score file instead of the user's data directory."""
FILE_NAME: Final = "terminal-highscores.json"
KEEP: Final = 10
"""Games kept per difficulty."""
FORMAT: Final = 1


def data_dir() -> Path:
    """Where the terminal game keeps its files: ``MAGDAGDON_DATA_DIR``, else the user's data
    directory (on Linux ``~/.local/share/magdagdon``, where ``serve`` keeps its database)."""
    named = os.environ.get(DATA_DIR_VARIABLE)
    if named:
        return Path(named)
    import platformdirs

    return Path(platformdirs.user_data_dir("magdagdon", appauthor=False))


def default_path() -> Path:
    """The high-score file."""
    return data_dir() / FILE_NAME


@dataclass(frozen=True)
class Entry:
    """One finished game in the table."""

    date: str
    """When it ended, local time, ``YYYY-MM-DDTHH:MM``."""
    difficulty: str
    score: int
    turns: int
    powers_used: int
    hints_used: int
    seed: int | None = None
    """The seed chosen with ``--seed`` (None: random dice). Games with chosen dice are no
    longer recorded; older files may hold some."""

    @staticmethod
    def now() -> str:
        """The current local time as an entry writes it."""
        return datetime.now().isoformat(timespec="minutes")

    @classmethod
    def from_dict(cls, data: Any) -> Entry:
        """An entry from the file; ValueError if it is not one."""
        if not isinstance(data, dict):
            raise ValueError(f"an entry is an object, not {data!r}")
        try:
            entry = cls(**data)
        except TypeError as exc:
            raise ValueError(f"not an entry: {exc}") from None
        ints = (entry.score, entry.turns, entry.powers_used, entry.hints_used)
        if not isinstance(entry.date, str) or any(type(v) is not int for v in ints):
            raise ValueError(f"not an entry: {data!r}")
        if entry.seed is not None and type(entry.seed) is not int:
            raise ValueError(f"not a seed: {entry.seed!r}")
        Difficulty(entry.difficulty)
        return entry


class ScoreStore:
    """The high-score tables of the file at ``path`` (by default :func:`default_path`).

    The file is read when the store is made. Nothing here raises for a bad or unwritable file:
    :attr:`problem` holds a sentence for the player instead.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()
        self.problem: str | None = None
        """What went wrong with the file, for the player (None when all is well)."""
        self._tables: dict[str, list[Entry]] = {d.value: [] for d in Difficulty}
        self._keep_file = False  # a file that could not be read nor set aside is not replaced
        self._load()

    def table(self, difficulty: Difficulty | str) -> list[Entry]:
        """The best games of a difficulty, best first."""
        return list(self._tables[Difficulty(difficulty).value])

    def add(self, entry: Entry) -> int | None:
        """Add a finished game and save; its place (1 is the best), or None when it is not
        among the ten best. Equal scores keep their order: the earlier game stays ahead."""
        table = self._tables[Difficulty(entry.difficulty).value]
        place = next((i for i, e in enumerate(table) if entry.score > e.score), len(table))
        table.insert(place, entry)
        del table[KEEP:]
        self._save()
        return place + 1 if place < KEEP else None

    def _load(self) -> None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except OSError as exc:
            self.problem = f"The high scores cannot be read ({exc.strerror}): {self.path}."
            self._keep_file = True
            return
        try:
            data = json.loads(text)
            if not isinstance(data, dict) or data.get("format") != FORMAT:
                raise ValueError("not a high-score file of this version")
            tables = data["scores"]
            if not isinstance(tables, dict):
                raise ValueError("no tables")
            for name, rows in tables.items():
                level = Difficulty(name).value
                if not isinstance(rows, list):
                    raise ValueError(f"the {name} table is not a list")
                entries = [Entry.from_dict(row) for row in rows]
                if any(e.difficulty != level for e in entries):
                    raise ValueError(f"an entry of the {name} table is of another difficulty")
                self._tables[level] = sorted(entries, key=lambda e: -e.score)[:KEEP]
        except (ValueError, KeyError) as exc:
            self._set_aside(exc)

    def _set_aside(self, exc: Exception) -> None:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        aside = self.path.with_name(f"{self.path.name}.unreadable-{stamp}")
        self._tables = {d.value: [] for d in Difficulty}
        try:
            os.replace(self.path, aside)
        except OSError as err:
            self.problem = (
                f"The high-score file {self.path} is unreadable ({exc}) and cannot be set "
                f"aside ({err.strerror}): new scores are not kept."
            )
            self._keep_file = True
            return
        self.problem = (
            f"The high-score file was unreadable ({exc}): it was set aside as {aside.name} "
            "and a new table started."
        )

    def _save(self) -> None:
        if self._keep_file:
            return
        data = {
            "format": FORMAT,
            "scores": {name: [asdict(e) for e in rows] for name, rows in self._tables.items()},
        }
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    json.dump(data, out, indent=1)
                    out.write("\n")
                    out.flush()
                    os.fsync(out.fileno())
                os.replace(temp, self.path)
            except BaseException:
                Path(temp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            self.problem = f"The high scores cannot be saved ({exc.strerror}): {self.path}."
