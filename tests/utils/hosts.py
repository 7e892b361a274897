"""Hosts for tests of several servers: network namespaces the test makes, each with an address
of its own on a bridge of its own (or, where namespaces cannot be made, 127.0.0.1), and a
Redis server of the test's own that it can stop and start.

The namespaces' addresses are in 10.231.0.0/24 on a bridge in a namespace of its own (the
gateway's): nothing of it is in this machine's own network, whose every new address or link a
browser of a test running beside it would take for the network changing (Chromium fails each
request in flight with ``ERR_NETWORK_CHANGED``: a browser test failed so while this ran). The
test reaches the hosts from a thread put in the gateway's namespace (:meth:`Network.reach`);
the hosts reach this machine's services (PostgreSQL, Redis) through relays listening at the
gateway (:func:`relay`).
"""

from __future__ import annotations

import ctypes
import os
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext
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
    namespace: str | None = None
    """The gateway's namespace (None on the loopback)."""

    @property
    def gateway_prefix(self) -> tuple[str, ...]:
        """The command prefix that runs a program in the gateway's namespace (a service the
        hosts reach directly, as the test's Redis)."""
        return ("ip", "netns", "exec", self.namespace) if self.namespace else ()

    def reach(self) -> AbstractContextManager[None]:
        """The calling thread in the hosts' network while the block runs: a connection to a
        host is made in it (a socket made there stays there; a thread started there too)."""
        return entered(self.namespace) if self.namespace else nullcontext()


def _setns(fd: int) -> None:
    """The calling thread into the network namespace of ``fd`` (libc's: Python 3.11 has no
    os.setns)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, 0x40000000) != 0:  # CLONE_NEWNET
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


@contextmanager
def entered(namespace: str) -> Iterator[None]:
    """The calling thread (only it) in network namespace ``namespace`` while the block runs."""
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        there = os.open(f"/run/netns/{namespace}", os.O_RDONLY)
        try:
            _setns(there)
        finally:
            os.close(there)
        try:
            yield
        finally:
            _setns(own)
    finally:
        os.close(own)


def relay(stack: ExitStack, target: tuple[str, int], network: Network) -> tuple[str, int]:
    """Where ``network``'s hosts reach a service of this machine's listening at ``target``:
    ``target`` itself on the loopback; from namespaces, a relay listening at the gateway (in
    its namespace) that connects to ``target`` from here, stopped when ``stack`` closes."""
    if network.mode == "loopback":
        return target
    proxy = TcpProxy(target, host=network.gateway, listen_in=network.reach)
    proxy.start()
    stack.callback(proxy.stop)
    return network.gateway, proxy.port


def reachable_database(stack: ExitStack, database_url: str, network: Network) -> str:
    """The URL at which ``network``'s hosts reach the database (:func:`relay`: the machine's
    PostgreSQL listens on 127.0.0.1)."""
    from sqlalchemy import make_url

    real = make_url(database_url)
    host, port = relay(stack, (real.host or "127.0.0.1", real.port or 5432), network)
    return real.set(host=host, port=port).render_as_string(hide_password=False)


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True)


SUBNET = "10.231.0"
"""The hosts' addresses: in the gateway's namespace, which nothing else shares (two runs on one
machine each have their own)."""


@contextmanager
def _namespaces(count: int) -> Iterator[Network]:
    tag = secrets.token_hex(3)
    gateway, bridge = f"mggw{tag}", "mgbr"
    made: list[str] = []  # the namespaces (their links go with them), last made first
    try:
        _ip("netns", "add", gateway)
        made.append(gateway)
        _ip("-n", gateway, "link", "set", "lo", "up")
        _ip("-n", gateway, "link", "add", bridge, "type", "bridge")
        _ip("-n", gateway, "addr", "add", f"{SUBNET}.1/24", "dev", bridge)
        _ip("-n", gateway, "link", "set", bridge, "up")
        hosts = []
        for n in range(count):
            ns, veth = f"mgns{n}{tag}", f"mgv{n}"
            _ip("netns", "add", ns)
            made.append(ns)
            _ip(
                "-n",
                gateway,
                "link",
                "add",
                veth,
                "type",
                "veth",
                "peer",
                "name",
                "eth0",
                "netns",
                ns,
            )
            _ip("-n", gateway, "link", "set", veth, "master", bridge, "up")
            address = f"{SUBNET}.{n + 2}"
            _ip("-n", ns, "addr", "add", f"{address}/24", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            hosts.append(Host(ns, address, ("ip", "netns", "exec", ns)))
        yield Network("network namespaces", f"{SUBNET}.1", hosts, namespace=gateway)
    finally:
        for ns in reversed(made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


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
    listening on ``binds`` at ``port``; :meth:`stop` and :meth:`start` again as an outage.
    ``prefix`` runs it elsewhere (the gateway's namespace: :attr:`Network.gateway_prefix`),
    ``reach`` is where it is reached from (:meth:`Network.reach`)."""

    directory: Path
    binds: tuple[str, ...] = ("127.0.0.1",)
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    prefix: tuple[str, ...] = ()
    reach: Callable[[], AbstractContextManager[None]] = nullcontext

    def url(self, host: str, db: int = 0) -> str:
        """The URL of database ``db`` at ``host``."""
        return f"redis://{host}:{self.port}/{db}"

    def start(self) -> None:
        """Start it and wait until it answers PING."""
        log = open(self.directory / "redis.log", "ab")  # noqa: SIM115 (closed once redis-server has it)
        self.process = subprocess.Popen(
            [
                *self.prefix,
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
            with self.reach(), socket.create_connection((self.binds[0], self.port), timeout=1) as s:
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
