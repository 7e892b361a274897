"""Worker processes end with the process that started them.

``magdagdon serve --workers N`` runs N worker processes under Uvicorn's supervisor, which
holds the listening socket. When the supervisor dies without stopping them (SIGKILL, the
out-of-memory killer), the workers would go on serving, orphaned, and keep the port: the
next ``serve`` would fail with "Address already in use". A watcher thread in each worker
notices that its parent is gone and stops the worker as SIGTERM does (requests in flight
finish).

The watcher polls whether the parent is alive (``multiprocessing``'s sentinel of it, a pipe
that closes when it ends) and whether the process was given another parent (its own parent
died: a process of a ``forkserver``, as the coach's are, is the fork server's child, which ends
with the server). That works on every POSIX system and whichever thread started the worker
(Linux's ``PR_SET_PDEATHSIG`` fires when the starting *thread* ends).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from multiprocessing.process import BaseProcess

POLL_SECONDS = 0.5
"""How often a worker checks that its parent is alive."""


def _watch(parent: BaseProcess, adopted_by: int, stop: threading.Event) -> None:
    while not stop.wait(POLL_SECONDS):
        if os.getppid() != adopted_by or not parent.is_alive():
            os.kill(os.getpid(), signal.SIGTERM)
            return


def exit_with_parent() -> threading.Event | None:
    """In a worker process started by a supervisor (``multiprocessing``): start the watcher
    and return the event that stops it. Elsewhere (one process, tests): None, nothing runs."""
    parent = multiprocessing.parent_process()
    if parent is None or parent.pid is None or os.name != "posix":
        return None
    stop = threading.Event()
    threading.Thread(
        target=_watch,
        args=(parent, os.getppid(), stop),
        name="magdagdon-parent-watch",
        daemon=True,
    ).start()
    return stop
