"""Start ``magdagdon serve`` as a real process on a free port, and stop it."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def running_server(
    database_url: str,
    *,
    port: int | None = None,
    workers: int = 1,
    log: Path | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[str]:
    """Run the server until the block ends; yields its base URL.

    Test seeds are allowed and rate limits off unless ``env`` says otherwise.
    """
    port = port or free_port()
    env = {
        **os.environ,
        "MAGDAGDON_DATABASE_URL": database_url,
        "MAGDAGDON_ALLOW_TEST_SEEDS": "1",
        "MAGDAGDON_RATE_LIMITS": "false",
        **(env or {}),
    }
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "magdagdon.cli",
            "serve",
            "--port",
            str(port),
            "--workers",
            str(workers),
            "--log-level",
            "warning",
        ],
        env=env,
        stdout=out,
        stderr=out,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the server exited with {process.returncode}")
            try:
                if httpx2.get(f"{url}/api/health", timeout=1).status_code == 200:
                    break
            except httpx2.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start within 30 s")
            time.sleep(0.1)
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if log:
            out.close()  # type: ignore[union-attr]
