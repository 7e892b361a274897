"""The logs of the servers the tests start (``tests/utils/server.py``): what a server wrote
while a test ran is printed under the test's report when it fails (``tests/conftest.py``), as
a failure on a loaded machine cannot be run again to be looked at. No server dependency is
imported here: every test's conftest reads it."""

from __future__ import annotations

import atexit
import itertools
import shutil
import tempfile
from pathlib import Path

_LOGS: dict[Path, int] = {}
"""Every server log watched, with its size when the running test started."""
_DIR: Path | None = None
_names = itertools.count()
_processes_allowed = True
TAIL = 120
"""Lines of each server's log printed under a failed test."""


def new_log(name: str) -> Path:
    """A new file for a server's log, removed when the tests end."""
    global _DIR
    if _DIR is None:
        _DIR = Path(tempfile.mkdtemp(prefix="magdagdon-server-logs-"))
        atexit.register(shutil.rmtree, _DIR, ignore_errors=True)
    return _DIR / f"{name}-{next(_names)}.log"


def watch(log: Path) -> Path:
    """Note ``log`` (a server's, new or grown from here on): its lines from now on are the
    running test's."""
    _LOGS.setdefault(log, _size(log))
    return log


def test_started() -> None:
    """A test starts: only what the logs gain from now on is its."""
    for log in list(_LOGS):
        _LOGS[log] = _size(log)


def written() -> list[tuple[Path, str]]:
    """What each log gained since the running test started (its last :data:`TAIL` lines)."""
    out = []
    for log, start in _LOGS.items():
        if _size(log) <= start:
            continue
        with open(log, "rb") as f:
            f.seek(start)
            lines = f.read().decode("utf-8", "replace").splitlines()
        out.append((log, "\n".join(lines[-TAIL:])))
    return out


def _size(log: Path) -> int:
    try:
        return log.stat().st_size
    except OSError:
        return 0


def allow_processes(allowed: bool) -> None:
    """Whether the test about to run may start a server (it is marked ``process`` or
    ``slow``; ``tests/conftest.py`` says so before its fixtures are made)."""
    global _processes_allowed
    _processes_allowed = allowed


def processes_allowed() -> bool:
    """See :func:`allow_processes`."""
    return _processes_allowed
