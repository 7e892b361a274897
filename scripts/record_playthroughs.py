"""Regenerate tests/playthroughs/*.txt after a deliberate rules change; review the diff."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.playthrough import CASES, DIRECTORY, path, record


def main() -> None:
    """Write every playthrough file."""
    DIRECTORY.mkdir(exist_ok=True)
    for difficulty, seed in CASES:
        path(difficulty, seed).write_text(record(difficulty, seed))
        print(path(difficulty, seed))


if __name__ == "__main__":
    main()
