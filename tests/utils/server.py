"""Start ``magdagdon serve`` as a real process on a free port, and stop it."""

from __future__ import annotations

import itertools
import os
import signal
import socket
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2

from . import server_logs

PORTS_FROM = 20_000
"""The first port the tests' servers take. Below the kernel's ephemeral range (32768 and up on
Linux), which outgoing connections draw from: a port the kernel handed out with ``bind(0)`` and
that was closed again could be taken by any connection or by the other pytest worker before
the server bound it (a server that failed to start now and then, on a loaded machine)."""
PORTS_EACH = 1_000
"""Ports each pytest worker has to itself (gw0 first, gw1 after it, ...)."""
RANGES = 12
"""Ranges of :data:`PORTS_EACH` between :data:`PORTS_FROM` and the ephemeral ports. A run takes
as many side by side as it has workers (at least two), where its run id says: two runs on one
machine (a developer's beside CI's) took the same ports, and a server of one that lost the race
to bind answered the other's test (``test_two_server_processes_racing_a_merge_lose_nothing``
signed in on the wrong database)."""
_next_port = itertools.count()


def first_port(worker: str, run: str, workers: int = 2) -> int:
    """The first port of a pytest worker's range (``gw0``, ...) in the run ``run`` of
    ``workers`` workers: the ranges of one run's workers are apart, and two runs' are apart
    unless their ids fall on the same slot (one in ``RANGES // workers``)."""
    width = min(max(2, workers), RANGES)
    slot = zlib.crc32(run.encode()) % (RANGES // width)
    return PORTS_FROM + PORTS_EACH * ((width * slot + int(worker.removeprefix("gw") or 0)) % RANGES)


def free_port() -> int:
    """A TCP port nobody listens on now, from this pytest worker's own range (no other worker
    takes it, nor the kernel for an outgoing connection), never the same twice in a run."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or str(os.getpid())
    first = first_port(worker, run, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 2))
    for _ in range(PORTS_EACH):
        port = first + next(_next_port) % PORTS_EACH
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue  # (something else of this machine's holds it)
            return port
    raise RuntimeError(f"no free port in {first}..{first + PORTS_EACH - 1}")


SHARED_ADDRESS = {"MAGDAGDON_BACKGROUND_AT_ONCE": "1000"}
"""Every player of every test of a worker's package (tests/browser, tests/crossbrowser) reaches
its live server from 127.0.0.1, where people come from addresses of their own: with a person's
bound of background jobs in hand at once per address (4), one test's work put off another's.
In a suite's run a room's coach score waited 100 s of the 300 s its test allows, refused
while four searches for puzzles of earlier tests' players ran. (The rate limits are off on
test servers for the same reason. tests/api/test_coach_pool.py checks the bound,
test_api_hardening.py the limits.)"""


@dataclass
class ServerProcess:
    """A running ``magdagdon serve``."""

    url: str
    process: subprocess.Popen[bytes]

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flushing, as in a crash or a power cut."""
        self.process.kill()
        self.process.wait()


@contextmanager
def running_server(*args: Any, **kwargs: Any) -> Iterator[str]:
    """:func:`server_process`, yielding only its base URL."""
    with server_process(*args, **kwargs) as server:
        yield server.url


@contextmanager
def server_process(
    database_url: str,
    *,
    port: int | None = None,
    host: str = "127.0.0.1",
    workers: int = 1,
    log: Path | None = None,
    env: dict[str, str] | None = None,
    command: Sequence[str] | None = None,
    log_level: str = "warning",
    cwd: Path | None = None,
    args: Sequence[str] = (),
    reach: Callable[[], AbstractContextManager[None]] = nullcontext,
) -> Iterator[ServerProcess]:
    """Run the server until the block ends.

    Test seeds are allowed, rate limits off and every daily game ranked unless ``env`` says
    otherwise. ``command`` is
    the ``magdagdon`` command to run (default: this Python's ``-m magdagdon.cli``), ``args``
    more arguments of ``serve``; ``host`` the address it listens on (for example a network
    namespace's, with ``command`` behind ``ip netns exec NAME``), ``reach`` where its address
    is reached from (the namespaces' :meth:`~tests.utils.hosts.Network.reach`).
    """
    port = port or free_port()
    env = {
        **os.environ,
        "MAGDAGDON_DATABASE_URL": database_url,
        "MAGDAGDON_ALLOW_TEST_SEEDS": "1",
        "MAGDAGDON_TEST_SEEDS_SCORED": "1",
        "MAGDAGDON_RATE_LIMITS": "false",
        "MAGDAGDON_DAILY_RANKS": "everyone",
        **(env or {}),
    }
    assert server_logs.processes_allowed(), (
        "a test that starts a server is marked process (or slow): make check leaves it out"
    )
    log = server_logs.watch(log or server_logs.new_log(f"server-{port}"))
    out = open(log, "ab")  # noqa: SIM115
    process = subprocess.Popen(
        [
            *(command or [sys.executable, "-m", "magdagdon.cli"]),
            "serve",
            "--host",
            host,
            "--port",
            str(port),
            "--workers",
            str(workers),
            "--log-level",
            log_level,
            *args,
        ],
        env=env,
        cwd=cwd,
        stdout=out,
        stderr=out,
    )
    url = f"http://{host}:{port}"
    try:
        # one client for every try, without TLS (plain HTTP): ``httpx2.get`` makes a client per
        # call, each loading the system's certificate authorities (23 ms of CPU a try on this
        # machine, 0.1 ms with this client; some 25 tries a server, 117 servers a run); a far
        # bound: it stops only a server that would never answer (a loaded machine starts one
        # in seconds, not in the usual second)
        deadline = time.monotonic() + 120
        with httpx2.Client(timeout=1, verify=False) as poll:
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"the server exited with {process.returncode}")
                try:
                    with reach():
                        if poll.get(f"{url}/api/health").status_code == 200:
                            break
                except httpx2.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not start within 120 s")
                time.sleep(0.1)
        yield ServerProcess(url, process)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        out.close()
