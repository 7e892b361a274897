"""A request id on every answer and on every log line written while serving it."""

from __future__ import annotations

import re
import secrets

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..logs import request_id

HEADER = b"x-request-id"
_ACCEPTED = re.compile(rb"[A-Za-z0-9._-]{1,64}")


class RequestIdMiddleware:
    """Names each HTTP request: the ``X-Request-ID`` the proxy sent (letters, digits, ``.``,
    ``_`` and ``-``, at most 64, so a line cannot be forged through it), else a new random
    one. The id goes back in the answer's ``X-Request-ID`` and into
    :data:`magdagdon.logs.request_id` for the log lines of the request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = next((value for name, value in scope["headers"] if name == HEADER), b"")
        rid = given.decode() if _ACCEPTED.fullmatch(given) else secrets.token_hex(8)
        # Not reset afterwards: each request runs in a task of its own, and Uvicorn writes
        # the line of a failed request (its traceback, the 500) after this returns.
        request_id.set(rid)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0] != HEADER]
                message["headers"] = [*headers, (HEADER, rid.encode())]
            await send(message)

        await self.app(scope, receive, send_with_id)
