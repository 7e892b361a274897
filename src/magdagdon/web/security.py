"""Pure ASGI layers: security headers on every answer, no cross-site changes, and a cap on
request bodies."""

from __future__ import annotations

import json
from urllib.parse import unquote_to_bytes, urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

# The game loads only its own files; no inline script anywhere, no framing, no plugins.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; manifest-src 'self'; font-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
# Swagger UI sets style attributes in its markup: /docs allows inline styles, never scripts.
DOCS_CSP = CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")

HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
]


# Answers of the API are one player's (their game, statistics, name): no cache anywhere may
# keep one, and none may give one player's answer to another.
API_CACHE_HEADERS = [(b"cache-control", b"no-store"), (b"vary", b"Cookie")]


class SecurityHeadersMiddleware:
    """Adds the Content-Security-Policy and the other security headers to every answer (a
    release's files that cannot be documents only ``nosniff``: ``assets.py``),
    ``Cache-Control: no-store`` and ``Vary: Cookie`` to every answer of the API, the
    cookie of a player created while answering (``request.state.player_cookie``), and
    ``X-Magdagdon-Session: ended`` when the request's cookie named a session that has ended
    (``deps.SESSION_ENDED_HEADER``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        docs = path.startswith(("/docs", "/redoc"))
        policy = (DOCS_CSP if docs else CSP).encode()
        api = path.startswith("/api/")
        # A release's scripts, styles, catalogs and images are never documents (an SVG can be
        # one): the policies for documents would only add bytes to each of them (headers are
        # sent in full on every answer of HTTP/1.1).
        subresource = path.startswith("/r/") and not path.endswith(".svg")
        ours = [(b"x-content-type-options", b"nosniff")] if subresource else None

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0] not in _OURS]
                headers += ours or [(b"content-security-policy", policy), *HEADERS]
                if api:
                    headers = [h for h in headers if h[0] not in _CACHING]
                    headers += API_CACHE_HEADERS
                state = scope.get("state", {})
                headers += state.get("player_cookie", [])
                if api and state.get("session_ended"):
                    headers.append((b"x-magdagdon-session", b"ended"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


_OURS = {name for name, _ in HEADERS} | {b"content-security-policy"}
_CACHING = {b"cache-control", b"vary", b"expires", b"etag", b"last-modified"}

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SAME_SITE = frozenset({b"same-origin", b"none"})
"""``Sec-Fetch-Site`` values of a request the game's own page (or the person, typing an address
or following a bookmark) made."""

CROSS_SITE_MESSAGE = "Another site may not change anything here: open the game itself."


def is_cross_site(scope: Scope) -> bool:
    """Whether a browser says the request comes from another site: ``Sec-Fetch-Site`` other than
    ``same-origin`` or ``none``, or, from a browser that does not send it, an ``Origin`` other
    than the server's own (its scheme and ``Host``). A request with neither is not a browser's page
    (``curl``, the terminal game, a script): it cannot ride on a visitor's cookie."""
    headers = dict(scope.get("headers", []))
    fetch_site = headers.get(b"sec-fetch-site")
    if fetch_site is not None:
        return fetch_site.lower() not in SAME_SITE
    origin = headers.get(b"origin")
    if origin is None:
        return False
    host = headers.get(b"host", b"").decode("latin-1").lower()
    try:
        parts = urlsplit(origin.decode("latin-1"))
    except ValueError:
        return True
    # the scheme too: http://game.example is another origin than https://game.example
    scheme = str(scope.get("scheme", "http")).lower()
    return not parts.netloc or parts.netloc.lower() != host or parts.scheme.lower() != scheme


class NulPathMiddleware:
    """Answers 404 ``not_found`` to a path with a NUL character in it (``/api/games/ab%00cd``),
    and 422 ``invalid_request`` to a query string with one (``?before=%00``): no id, file,
    route or parameter has one, and PostgreSQL refuses NUL in a string (a 500 otherwise).
    Request bodies' strings are refused likewise by ``schemas.Strict``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            if "\x00" in scope["path"]:
                await send_error(send, 404, "not_found", "Not Found")
                return
            if b"\x00" in unquote_to_bytes(scope.get("query_string", b"")):
                await send_error(
                    send, 422, "invalid_request", "A query parameter may not hold a NUL character."
                )
                return
        await self.app(scope, receive, send)


class CrossSiteMiddleware:
    """Refuses, with 403 ``cross_site``, a request of another site that would change
    something (any method but GET, HEAD and OPTIONS on the API).

    A page on another site can post a form to the API: the browser leaves the SameSite=Lax
    cookie out, so the server would see a stranger, make a new player and send its cookie,
    which would replace the visitor's (their name, games and streak gone). Such a request is
    refused before anything runs; ``deps.current_player`` also never makes a player for a
    cross-site request of any method."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] in SAFE_METHODS
            or not scope["path"].startswith("/api/")
            or not is_cross_site(scope)
        ):
            await self.app(scope, receive, send)
            return
        await send_error(send, 403, "cross_site", CROSS_SITE_MESSAGE)


async def send_error(send: Send, status: int, code: str, message: str) -> None:
    """Answer with the API's JSON error from an ASGI layer (before any route runs)."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodyLimitMiddleware:
    """Answers 413 to a request whose body is larger than ``limit`` bytes.

    A declared Content-Length is checked before anything is read; otherwise the body
    (small by definition) is read up to the limit first and then handed to the app.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None:
            if not declared.isdigit() or int(declared) > self.limit:
                await self._reject(send)
                return
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._reject(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def _reject(self, send: Send) -> None:
        message = f"A request body is at most {self.limit} bytes."
        await send_error(send, 413, "body_too_large", message)
