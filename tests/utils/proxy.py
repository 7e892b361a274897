"""A TCP relay in front of a server, which a test can cut and restore (an outage), or stall and
resume (a server that accepts connections and never answers), and which counts the bytes it
relays (what crosses the wire, headers and all)."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager


class TcpProxy:
    """Relays connections from a local port (on ``host``) to ``upstream`` while running;
    ``listen_in``: where the port is (a network namespace's, tests/utils/hosts.py), the
    connections to ``upstream`` being made from here."""

    def __init__(
        self,
        upstream: tuple[str, int],
        host: str = "127.0.0.1",
        listen_in: Callable[[], AbstractContextManager[None]] = contextlib.nullcontext,
    ) -> None:
        self.upstream = upstream
        self.host = host
        self._listen_in = listen_in
        with listen_in():
            probe = socket.socket()
            probe.bind((host, 0))
        self.port: int = probe.getsockname()[1]
        probe.close()
        self._listener: socket.socket | None = None
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._flowing = threading.Event()
        self._flowing.set()
        self.sent_up = 0
        """Bytes relayed from the clients to ``upstream``."""
        self.sent_down = 0
        """Bytes relayed from ``upstream`` to the clients (what a browser downloads)."""

    def stall(self) -> None:
        """Keep accepting connections and receiving, but pass nothing on until :meth:`resume`."""
        self._flowing.clear()

    def resume(self) -> None:
        """Pass everything on again, what was held back first."""
        self._flowing.set()

    def start(self) -> None:
        """Accept and relay connections."""
        with self._listen_in():
            listener = socket.socket()
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind((self.host, self.port))
            listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def stop(self) -> None:
        """Refuse new connections and cut every open one, as a database that went away."""
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
            self._listener = None
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _relay(self, client: socket.socket) -> None:
        with self._lock:
            self._sockets.append(client)
        self._flowing.wait()
        try:
            server = socket.create_connection(self.upstream)
        except OSError:
            client.close()
            return
        with self._lock:
            self._sockets.append(server)
        for a, b, down in ((client, server, False), (server, client, True)):
            threading.Thread(target=self._pump, args=(a, b, down), daemon=True).start()

    def _pump(self, source: socket.socket, target: socket.socket, down: bool) -> None:
        try:
            while data := source.recv(65536):
                self._flowing.wait()
                target.sendall(data)
                with self._lock:
                    if down:
                        self.sent_down += len(data)
                    else:
                        self.sent_up += len(data)
        except OSError:
            pass
        finally:
            for sock in (source, target):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
