"""A room's events, live, over a WebSocket (web/routes/rooms.py).

The database is the truth: a room's events are numbered rows (store.rooms), and a connection
sends the ones after the last it sent, in order, so a client that reconnects with
``?since=n`` in the address misses none and gets none twice; ``{"since": n}`` sent on an open
connection goes back (or forward) to after event ``n``.

A process reads each room it has connections to once for all of them (:class:`RoomFeed`: one
reader a room, which hands each connection what it has not sent yet), not once for each: six
members' connections made eighteen reads of each wake. A change made by this process wakes the
room's reader at once (:func:`room_news`); a change made by another worker or host is read
within :data:`POLL` seconds (or at once, told through Redis), when the reader reads the
database anyway and mends a turn whose opening was interrupted (a worker died between opening
it and rolling its dice) or closes one whose deadline has passed (the room's clock holds with
nobody acting; the clock watcher, :func:`watch_clocks`, closes it too).

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
from sqlalchemy.exc import OperationalError
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect, WebSocketState

from ..store import Store
from ..store.db import DatabaseTimeout
from ..store.rooms import EVENTS_PAGE, RoomFeedRead, RoomNotFound
from .deps import TEST_NOW_HEADER, cookie_token, renew_deadline, run_store
from .errors import ApiError

POLL = 1.0
"""Seconds between a room's reads of the database (other workers' events, the clock) while no
news come from Redis."""
POLL_SUBSCRIBED = 10.0
"""The same while Redis's news arrive (:class:`~magdagdon.web.shared.RoomChannel`): a read
only in case a message was lost."""
CLOCK_EVERY = 1.0
"""Seconds between the clock watcher's looks at the rooms whose turn is overdue."""
SEND_TIMEOUT = 10.0
"""Seconds a send may wait for a client that does not read: then the connection is closed."""
QUEUE = 200
"""The most events sent in one go (a client far behind gets the rest right after)."""

log = logging.getLogger(__name__)


class Follower:
    """One live connection's place in its room: the last event it sent (``since``), its
    clock, and what its room's reader read last for it."""

    def __init__(self, since: int, moment: Callable[[], datetime]) -> None:
        """A connection that has sent the events up to ``since``."""
        self.since = since
        self.moment = moment
        self.news = asyncio.Event()
        """Set when the reader has read for this connection (or the connection should look)."""
        self.read: tuple[dict[int, str | None], list[Any], int] | None = None
        """The members' names, the room's events after the third item, and that number, as
        read last."""
        self.failed: Exception | None = None
        """What the last read raised instead (the connection ends with it)."""

    def deliver(self, names: dict[int, str | None], events: list[Any], base: int) -> None:
        """The reader's latest read."""
        self.read, self.failed = (names, events, base), None
        self.news.set()

    def fail(self, error: Exception) -> None:
        """The reader's latest read failed with ``error``."""
        self.failed = error
        self.news.set()


class RoomFeed:
    """One room's reads for all of this process's connections to it: a reader (a task) that
    reads the members' names and the room's events after the earliest any connection needs
    once per wake (news of the room, or every :meth:`RoomHub.poll` seconds), in one
    transaction (``Store.room_feed``; the turn closed or its opening mended first only when
    that read says it is due), and hands the read to each connection; it ends when the
    room's last connection here does."""

    def __init__(self, hub: RoomHub, store: Store, code: str) -> None:
        """No connection yet; the reader starts with the first (in the running event loop,
        where its connections run)."""
        self.hub = hub
        self.store = store
        self.code = code
        self.loop = asyncio.get_running_loop()
        self.followers: set[Follower] = set()
        self.poke = asyncio.Event()
        self.reads = 0
        """Reads made (the tests count them)."""
        self._reader: asyncio.Task[None] | None = None

    def add(self, follower: Follower) -> None:
        """A connection joins: read for it now."""
        self.followers.add(follower)
        self.poke.set()
        if self._reader is None or self._reader.done():
            self._reader = self.loop.create_task(self._read_while_followed())

    def wake(self) -> None:
        """Read now (from any thread: a test's clients each run the app in an event loop of
        their own; a server process has one)."""
        try:
            here = asyncio.get_running_loop()
        except RuntimeError:
            here = None
        if here is self.loop:
            self.poke.set()
        elif not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.poke.set)

    async def _read_while_followed(self) -> None:
        store, code = self.store, self.code
        while self.followers:
            self.poke.clear()
            followers = list(self.followers)
            base = min(f.since for f in followers)
            at = max(f.moment() for f in followers)

            def work(base: int = base, at: datetime = at) -> RoomFeedRead:
                read = store.room_feed(code, base, at)
                if read.due and store.after_room_action(code, now=at):
                    read = store.room_feed(code, base, at)  # (with what that did)
                return read

            renew_deadline()  # each read has its own (the reader lasts)
            try:
                read = await run_store(store, work)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # (each connection ends with it)
                for follower in followers:
                    follower.fail(exc)
            else:
                self.reads += 1
                for follower in followers:
                    follower.deliver(read.names, read.events, base)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.poke.wait(), timeout=self.hub.poll)


class RoomHub:
    """This process's live connections, by room (:class:`RoomFeed`): woken by this process's
    changes to a room and, with Redis (``channel``), by every other process's."""

    def __init__(self) -> None:
        """No connection yet, no channel."""
        self.loops: dict[asyncio.AbstractEventLoop, dict[str, RoomFeed]] = {}
        """The rooms' feeds, by the event loop their connections run in (one in a server)."""
        self.channel: Any = None  # a RoomChannel once Redis is configured (web/shared.py)
        self._sending: set[asyncio.Task[None]] = set()

    @property
    def poll(self) -> float:
        """Seconds between a room's reads of the database."""
        return POLL_SUBSCRIBED if self.channel is not None and self.channel.subscribed else POLL

    def follow(self, store: Store, code: str, follower: Follower) -> RoomFeed:
        """Room ``code``'s feed, with ``follower`` among its connections."""
        feeds = self.loops.setdefault(asyncio.get_running_loop(), {})
        feed = feeds.get(code)
        if feed is None:
            feed = feeds[code] = RoomFeed(self, store, code)
        feed.add(follower)
        return feed

    def leave(self, feed: RoomFeed, follower: Follower) -> None:
        """A connection ends; the room's reader with its last one."""
        feed.followers.discard(follower)
        if not feed.followers:
            feed.poke.set()  # (the reader sees it has nobody to read for, and ends)
            feeds = self.loops.get(feed.loop, {})
            if feeds.get(feed.code) is feed:
                del feeds[feed.code]
            if not feeds:
                self.loops.pop(feed.loop, None)

    def wake(self, code: str | None) -> None:
        """Room ``code``'s reader reads now (None: every room's)."""
        for feeds in list(self.loops.values()):
            for feed in list(feeds.values()) if code is None else [feeds.get(code)]:
                if feed is not None:
                    feed.wake()

    def news(self, code: str) -> None:
        """Room ``code`` changed in this process: its reader here reads now, and the other
        processes are told (through Redis, when configured)."""
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
    named: Callable[[dict[int, str | None], int | None, list[Any]], list[Any]],
    missed: Callable[[], Awaitable[None]],
) -> None:
    """Serve one live connection to room ``code`` until the client leaves (``code`` None: the
    address names no room; ``named``: the events as the player reads them,
    web/routes/rooms.py; ``missed``: counts a code that names no room, raising past the
    limits)."""
    store: Store = websocket.app.state.store
    carried = cookie_token(websocket)
    player = None
    try:
        if carried is not None:
            found = await run_store(store, lambda: store.session(carried[0]))
            player = found.player_id if found is not None else None
        if code is None:
            raise RoomNotFound(code)
        await run_store(store, lambda: store.room(code))  # (it is there)
    except (DatabaseTimeout, OperationalError):
        # the database busy past the deadline (or its read cut at it) before the connection
        # was taken: refused as one refused later is closed, to try again (an exception
        # would reach the server after the refusal: a server error in its log)
        await websocket.close(code=1013, reason="try_again")
        return
    except RoomNotFound:
        reason = "room_not_found"
        try:
            await missed()
        except ApiError as limited:
            reason = limited.code
        await websocket.close(code=4404 if reason == "room_not_found" else 4429, reason=reason)
        return
    await websocket.accept()
    hub = room_hub(websocket.app)
    follower = Follower(_since(websocket.query_params.get("since")), partial(_moment, websocket))
    feed = hub.follow(store, code, follower)

    async def listen() -> None:
        try:
            while True:
                message = await websocket.receive_text()
                with contextlib.suppress(ValueError, TypeError, AttributeError):
                    asked = json.loads(message).get("since")
                    if isinstance(asked, int) and asked >= 0:
                        follower.since = asked
                        feed.poke.set()
        finally:
            follower.news.set()  # (the connection looks, and finds the client gone)

    listener = asyncio.create_task(listen())
    try:
        while websocket.client_state is WebSocketState.CONNECTED and not listener.done():
            await follower.news.wait()
            follower.news.clear()
            if follower.failed is not None:
                raise follower.failed
            if follower.read is None:
                continue
            names, events, base = follower.read
            if base > follower.since:  # (it went back, past what was read: read again)
                feed.poke.set()
                continue
            unsent = [e for e in events if e.seq > follower.since]
            for event in named(names, player, unsent[:QUEUE]):
                await asyncio.wait_for(
                    websocket.send_text(event.model_dump_json()), timeout=SEND_TIMEOUT
                )
                follower.since = max(follower.since, event.seq)
            if len(unsent) > QUEUE:
                follower.news.set()  # (the rest of this read, after the first QUEUE)
            elif len(events) >= EVENTS_PAGE:
                feed.poke.set()  # (a page was read: the next)
    except TimeoutError:
        cut(websocket)  # the client does not read: it resumes from its last event
    except (WebSocketDisconnect, RuntimeError):
        pass  # the client left
    except (DatabaseTimeout, OperationalError):
        # the database was busy past a read's deadline (or the read was cut at it): the
        # client reconnects and resumes
        await _close(websocket, code=1013, reason="try_again")
    finally:
        listener.cancel()
        with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect, RuntimeError):
            await listener
        hub.leave(feed, follower)
        if websocket.client_state is WebSocketState.CONNECTED:
            await _close(websocket)
