"""Hosts for tests of several servers: network namespaces the test makes, each with an address
of its own on a bridge of its own (or, where namespaces cannot be made, 127.0.0.1), and a
Redis server of the test's own that it can stop and start.

The namespaces' addresses are in 10.231.N.0/24 on a bridge that exists only while the test
runs: traffic goes only between this machine and the namespaces made on it.
"""

from __future__ import annotations

import os
import random
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .proxy import TcpProxy
from .server import free_port


@dataclass(frozen=True)
class Host:
    """Where one server runs: its address and the command prefix that runs a program there."""

    name: str
    address: str
    prefix: tuple[str, ...] = ()


@dataclass
class Network:
    """The test's hosts, and the address on this machine at which they reach its services."""

    mode: str
    """``network namespaces`` or ``loopback``"""
    gateway: str
    hosts: list[Host]
    reason: str = ""
    """Why the hosts are on the loopback, when they are."""


def reachable_database(stack: ExitStack, database_url: str, network: Network) -> str:
    """The URL at which ``network``'s hosts reach the database: as it is on the loopback;
    from namespaces, through a relay on the bridge's address (the machine's PostgreSQL listens
    on 127.0.0.1), stopped when ``stack`` closes."""
    if network.mode == "loopback":
        return database_url
    from sqlalchemy import make_url

    real = make_url(database_url)
    relay = TcpProxy((real.host or "127.0.0.1", real.port or 5432), host=network.gateway)
    relay.start()
    stack.callback(relay.stop)
    return real.set(host=network.gateway, port=relay.port).render_as_string(hide_password=False)


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


def _free_subnet() -> str:
    """``10.231.N`` for an N that no address or route of this machine uses."""
    taken = (
        subprocess.run(["ip", "-o", "addr"], capture_output=True, text=True, check=True).stdout
        + subprocess.run(["ip", "route"], capture_output=True, text=True, check=True).stdout
    )
    for n in random.sample(range(256), 256):
        if f"10.231.{n}." not in taken:
            return f"10.231.{n}"
    raise RuntimeError("every 10.231.N.0/24 is taken on this machine")


@contextmanager
def _namespaces(count: int) -> Iterator[Network]:
    tag = secrets.token_hex(3)
    subnet = _free_subnet()
    bridge = f"mgbr{tag}"
    made: list[tuple[str, ...]] = []  # what to delete, last made first
    try:
        _ip("link", "add", bridge, "type", "bridge")
        made.append(("link", "del", bridge))
        _ip("addr", "add", f"{subnet}.1/24", "dev", bridge)
        _ip("link", "set", bridge, "up")
        hosts = []
        for n in range(count):
            ns, veth = f"mgns{n}{tag}", f"mgv{n}{tag}"
            _ip("netns", "add", ns)
            made.append(("netns", "del", ns))
            _ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
            _ip("link", "set", veth, "master", bridge, "up")
            address = f"{subnet}.{n + 2}"
            _ip("-n", ns, "addr", "add", f"{address}/24", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            hosts.append(Host(ns, address, ("ip", "netns", "exec", ns)))
        yield Network("network namespaces", f"{subnet}.1", hosts)
    finally:
        for args in reversed(made):
            subprocess.run(["ip", *args], capture_output=True)


@contextmanager
def network_hosts(count: int) -> Iterator[Network]:
    """``count`` hosts in network namespaces of their own (as root, with ``ip``), else
    ``count`` hosts on 127.0.0.1 with the reason why."""
    reason = ""
    if os.geteuid() != 0:
        reason = "not root"
    elif not shutil.which("ip"):
        reason = "no `ip` command"
    if not reason:
        stack = ExitStack()
        try:
            network = stack.enter_context(_namespaces(count))
        except (subprocess.CalledProcessError, RuntimeError) as exc:
            stack.close()
            stderr = getattr(exc, "stderr", "") or ""
            reason = f"network namespaces could not be made: {stderr.strip() or exc}"
        else:
            with stack:
                yield network
            return
    yield Network(
        "loopback",
        "127.0.0.1",
        [Host(f"loopback{n}", "127.0.0.1") for n in range(count)],
        reason=reason,
    )


@dataclass
class RedisServer:
    """A ``redis-server`` of the test's own (never the machine's), without persistence,
    listening on ``binds`` at ``port``; :meth:`stop` and :meth:`start` again as an outage."""

    directory: Path
    binds: tuple[str, ...] = ("127.0.0.1",)
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    def url(self, host: str, db: int = 0) -> str:
        """The URL of database ``db`` at ``host``."""
        return f"redis://{host}:{self.port}/{db}"

    def start(self) -> None:
        """Start it and wait until it answers PING."""
        log = open(self.directory / "redis.log", "ab")  # noqa: SIM115 (closed once redis-server has it)
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                *dict.fromkeys(self.binds),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.directory),
                # It listens only on the loopback and the test's bridge: let the test's hosts in.
                "--protected-mode",
                "no",
            ],
            stdout=log,
            stderr=log,
        )
        log.close()
        deadline = time.monotonic() + 10
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start: see {self.directory}/redis.log")
            time.sleep(0.05)

    def _answers(self) -> bool:
        try:
            with socket.create_connection((self.binds[0], self.port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        """Stop it (its data goes with it)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
