"""A room's events, live, over a WebSocket (web/routes/rooms.py).

The database is the truth: a room's events are numbered rows (store.rooms), and a connection
sends the ones after the last it sent, in order, so a client that reconnects with
``?since=n`` in the address misses none and gets none twice; ``{"since": n}`` sent on an open
connection goes back (or forward) to after event ``n``. A change made by this process wakes its
connections to that room at once (:func:`room_news`); a change made by another worker or host
is read within :data:`POLL` seconds, when the connection reads the database anyway (and closes
an open turn whose deadline has passed: the room's clock holds with nobody acting).

What a connection sends is bounded: a client that does not read its socket has at most
:data:`QUEUE` events waiting for it; a send that waits :data:`SEND_TIMEOUT` seconds cuts the
connection (:func:`cut`: it reconnects and resumes from the last event it saw), so a silent
client never makes the server's memory grow.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from functools import partial
from typing import Any

from fastapi import FastAPI, WebSocket
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect, WebSocketState

from ..store import Store
from ..store.db import DatabaseTimeout
from ..store.rooms import RoomNotFound
from .deps import TEST_NOW_HEADER, cookie_token, renew_deadline, run_store
from .errors import ApiError

POLL = 1.0
"""Seconds between a connection's reads of the database (other workers' events, the clock)
while no news come from Redis."""
POLL_SUBSCRIBED = 10.0
"""The same while Redis's news arrive (:class:`~magdagdon.web.shared.RoomChannel`): a read
only in case a message was lost."""
CLOCK_EVERY = 1.0
"""Seconds between the clock watcher's looks at the rooms whose turn is overdue."""
SEND_TIMEOUT = 10.0
"""Seconds a send may wait for a client that does not read: then the connection is closed."""
QUEUE = 200
"""The most events sent in one go (a client far behind gets the rest on the next read)."""

log = logging.getLogger(__name__)


class RoomHub:
    """This process's live connections, by room: woken by this process's changes to a room
    and, with Redis (``channel``), by every other process's."""

    def __init__(self) -> None:
        """No connection yet, no channel."""
        self.wakers: dict[str, set[asyncio.Event]] = {}
        self.channel: Any = None  # a RoomChannel once Redis is configured (web/shared.py)
        self._sending: set[asyncio.Task[None]] = set()

    @property
    def poll(self) -> float:
        """Seconds between a connection's reads of the database."""
        return POLL_SUBSCRIBED if self.channel is not None and self.channel.subscribed else POLL

    def wake(self, code: str | None) -> None:
        """Room ``code``'s connections of this process read now (None: every room's)."""
        rooms = list(self.wakers.values()) if code is None else [self.wakers.get(code, set())]
        for events in rooms:
            for event in list(events):
                event.set()

    def news(self, code: str) -> None:
        """Room ``code`` changed in this process: its connections here read now, and the
        other processes are told (through Redis, when configured)."""
        self.wake(code)
        if self.channel is not None:
            task = asyncio.get_running_loop().create_task(self.channel.publish(code))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)


def room_hub(app: FastAPI) -> RoomHub:
    """The app's :class:`RoomHub` (made on first use)."""
    hub: RoomHub | None = getattr(app.state, "room_hub", None)
    if hub is None:
        hub = app.state.room_hub = RoomHub()
    return hub


def room_news(app: FastAPI, code: str) -> None:
    """Something happened in room ``code`` (in this process): its connections read now, here
    and (with Redis) in every other process."""
    room_hub(app).news(code)


async def watch_clocks(
    app: FastAPI, clock: Callable[[], datetime] = lambda: datetime.now(UTC)
) -> None:
    """Close every overdue turn about once a second, until cancelled: the server's clock
    holds with nobody looking at the room (every process watches; a turn closes once)."""
    store: Store = app.state.store
    while True:
        await asyncio.sleep(CLOCK_EVERY)
        try:
            await close_overdue(app, store, clock())
        except Exception:  # (the database away: the next look tries again)
            log.warning("the rooms' clock could not be checked", exc_info=True)


async def close_overdue(app: FastAPI, store: Store, now: datetime) -> list[str]:
    """Close the turns overdue at ``now`` (the coach ends them for the late); the rooms
    changed."""
    renew_deadline()
    changed = []
    for code in await run_store(store, lambda: store.open_rooms_due(now)):
        renew_deadline()
        if await run_store(store, partial(store.after_room_action, code, now=now)):
            room_news(app, code)
            changed.append(code)
    return changed


def _since(text: str | None) -> int:
    """The ``since`` of the connection's address (``?since=n``): 0 when absent or not one."""
    return int(text) if text is not None and text.isdigit() and len(text) < 10 else 0


def _moment(websocket: WebSocket) -> datetime:
    """The connection's clock: a test server's ``X-Magdagdon-Test-Now`` when it sends one."""
    settings = websocket.app.state.settings
    given = websocket.headers.get(TEST_NOW_HEADER) if settings.allow_test_seeds else None
    if given:
        with contextlib.suppress(ValueError):
            moment = datetime.fromisoformat(given)
            return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
    return datetime.now(UTC)


SERVER_SEND = "magdagdon.server_send"
"""The scope's key of a live connection's ASGI ``send`` as the server gave it."""


class ServerSend:
    """ASGI middleware, the app's outermost: a live connection's ``send`` as the server gave
    it, kept in its scope for :func:`cut` (the middlewares within wrap it)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Keep ``send`` (a WebSocket's), then on to the app."""
        if scope["type"] == "websocket":
            scope[SERVER_SEND] = send
        await self.app(scope, receive, send)


def cut(websocket: WebSocket) -> bool:
    """Cut a connection at once, what waits to be sent thrown away; whether it could. A close
    waits until what was sent before it has gone, which a client that does not read never
    lets happen (its TCP window stays shut): the connection and the server's buffers would
    stay as long as the client does. ASGI has no message for this: the transport is reached
    through the ASGI ``send`` of uvicorn's protocol (:class:`ServerSend`; elsewhere, as under
    the test client, the close alone)."""
    send = websocket.scope.get(SERVER_SEND)
    transport = getattr(getattr(send, "__self__", None), "transport", None)
    if transport is None or not hasattr(transport, "abort"):
        return False
    transport.abort()
    return True


async def _close(websocket: WebSocket, code: int = 1000, reason: str = "") -> None:
    """Close the connection, or cut it (:func:`cut`) when the close waits past
    :data:`SEND_TIMEOUT` behind what a client that does not read has not taken."""
    try:
        with contextlib.suppress(RuntimeError, WebSocketDisconnect):  # (cut, or gone)
            await asyncio.wait_for(websocket.close(code=code, reason=reason), SEND_TIMEOUT)
    except TimeoutError:
        cut(websocket)


async def follow_room(
    websocket: WebSocket,
    code: str | None,
    named: Callable[[Any, int | None, list[Any]], list[Any]],
    missed: Callable[[], Awaitable[None]],
) -> None:
    """Serve one live connection to room ``code`` until the client leaves (``code`` None: the
    address names no room; ``named``: the events as the player reads them,
    web/routes/rooms.py; ``missed``: counts a code that names no room, raising past the
    limits)."""
    store: Store = websocket.app.state.store
    carried = cookie_token(websocket)
    player = None
    if carried is not None:
        found = await run_store(store, lambda: store.session(carried[0]))
        player = found.player_id if found is not None else None
    try:
        if code is None:
            raise RoomNotFound(code)
        state = await run_store(store, lambda: store.room(code))
    except RoomNotFound:
        reason = "room_not_found"
        try:
            await missed()
        except ApiError as limited:
            reason = limited.code
        await websocket.close(code=4404 if reason == "room_not_found" else 4429, reason=reason)
        return
    await websocket.accept()
    since = _since(websocket.query_params.get("since"))
    wake = asyncio.Event()
    hub = room_hub(websocket.app)
    wakers = hub.wakers
    wakers.setdefault(code, set()).add(wake)

    async def listen() -> None:
        nonlocal since
        while True:
            message = await websocket.receive_text()
            with contextlib.suppress(ValueError, TypeError, AttributeError):
                asked = json.loads(message).get("since")
                if isinstance(asked, int) and asked >= 0:
                    since = asked
                    wake.set()

    listener = asyncio.create_task(listen())
    try:
        while websocket.client_state is WebSocketState.CONNECTED and not listener.done():
            wake.clear()
            moment = _moment(websocket)

            def work(after: int = since, at: datetime = moment) -> tuple[Any, list[Any]]:
                store.after_room_action(code, now=at)
                return store.room(code), store.room_events(code, after)[:QUEUE]

            renew_deadline()  # each read has its own (the connection lasts)
            state, events = await run_store(store, work)
            for event in named(state, player, events):
                await asyncio.wait_for(
                    websocket.send_text(event.model_dump_json()), timeout=SEND_TIMEOUT
                )
                since = max(since, event.seq)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), timeout=hub.poll)
    except TimeoutError:
        cut(websocket)  # the client does not read: it resumes from its last event
    except (WebSocketDisconnect, RuntimeError):
        pass  # the client left
    except DatabaseTimeout:
        # the database was busy past a read's deadline: the client reconnects and resumes
        await _close(websocket, code=1013, reason="try_again")
    finally:
        listener.cancel()
        with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect, RuntimeError):
            await listener
        wakers.get(code, set()).discard(wake)
        if not wakers.get(code):
            wakers.pop(code, None)
        if websocket.client_state is WebSocketState.CONNECTED:
            await _close(websocket)
