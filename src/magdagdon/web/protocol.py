"""Uvicorn's HTTP protocol with a bound on a request's head (its line and headers).

Uvicorn's default parser (httptools) takes headers of any size: a client could send megabytes
of them and each would be held in memory. :class:`BoundedHttpToolsProtocol` counts the bytes
that arrive before a request's headers are complete and answers ``431 Request Header Fields
Too Large`` (and closes the connection) past :data:`MAX_HEAD_BYTES`, as nginx answers past its
header buffers. ``magdagdon serve`` runs Uvicorn with it (:data:`PROTOCOL`).
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

MAX_HEAD_BYTES = 32 * 1024
"""A request's line and headers together, at most (nginx's default buffers take 4 × 8 KiB;
the game's own requests need well under 2 KiB)."""

PROTOCOL = f"{__name__}:BoundedHttpToolsProtocol"
"""The protocol's import string, as Uvicorn's ``http`` setting takes it (every worker
process imports it)."""

_TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
    b"content-type: application/json\r\n"
    b"content-length: %d\r\n"
    b"connection: close\r\n\r\n%s"
)
_BODY = (
    b'{"error": {"code": "headers_too_large", "message": '
    b'"A request\'s headers are at most %d bytes."}}' % MAX_HEAD_BYTES
)


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """:class:`HttpToolsProtocol` that refuses a request head larger than
    :data:`MAX_HEAD_BYTES` with 431 ``headers_too_large``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_bytes = 0
        self._in_head = True
        self._tail = b""  # the last bytes of the head so far (its end may span two chunks)

    def data_received(self, data: bytes) -> None:
        """Count the head's bytes before the parser keeps them; refuse past the bound. Only
        the head counts: a body that arrives with it (in the same packet) is bounded by
        ``BodyLimitMiddleware`` (413 ``body_too_large``), not taken for headers."""
        if self._in_head:
            seen = self._tail + data
            end = seen.find(b"\r\n\r\n")
            self._head_bytes += len(data) if end < 0 else max(0, end + 4 - len(self._tail))
            self._tail = seen[-3:]
            if self._head_bytes > MAX_HEAD_BYTES:
                self.logger.warning("Request headers over %d bytes: refused.", MAX_HEAD_BYTES)
                self.transport.write(_TOO_LARGE % (len(_BODY), _BODY))
                self.transport.close()
                self._in_head = False
                return
        super().data_received(data)

    def on_headers_complete(self) -> None:
        """The head is whole: the body is bounded elsewhere (``BodyLimitMiddleware``)."""
        self._in_head = False
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        """The next request on the connection starts a new head."""
        super().on_message_complete()
        self._in_head = True
        self._head_bytes = 0
        self._tail = b""
