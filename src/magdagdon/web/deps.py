"""Request dependencies: the store, the settings and the current player (cookie).

Routes and dependencies are ``async`` and reach the database through :func:`run_store`, in
a worker thread, so the event loop never waits on the database: ``/api/health`` answers at
once whatever the database does (a PostgreSQL that stopped answering, an SQLite file locked
by a backup or the sqlite3 shell). A request whose database work takes longer than
``Settings.database_timeout`` answers 503 ``database_unavailable``, having changed nothing.

That timeout is **one deadline per request** (:data:`REQUEST_DEADLINE`, from its first
database work), not per statement: the database is told the time left (``store.db.DEADLINE``)
and abandons the work when it passes, and the answer waits for the outcome, so a 503 never
hides a change made after it was sent. Session lookups run on threads of their own
(``app.state.session_threads``): a stall of the sessions table does not hold the threads
of the requests that never touch it.
"""

from __future__ import annotations

import ipaddress
import threading
import time
import weakref
from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar
from datetime import UTC, date, datetime
from typing import Annotated, Any, TypeVar
from urllib.parse import urlsplit

import anyio
import segno
from anyio import to_thread
from fastapi import Depends, Request, Response
from starlette.convertors import Convertor
from starlette.requests import HTTPConnection

from ..settings import Settings
from ..store import DailyEnded, DatabaseTimeout, GameRow, GameStatus, Store, first_open_day
from ..store.db import DEADLINE
from ..store.players import SessionRef
from .errors import ApiError
from .limits import Hit, RateLimits
from .security import CROSS_SITE_MESSAGE, is_cross_site

COOKIE = "magdagdon_player"
"""The session cookie's name over plain HTTP (a development server, a LAN)."""
HOST_COOKIE = "__Host-magdagdon_player"
"""Its name over HTTPS: the ``__Host-`` prefix makes a browser take it only with Secure, for
the whole site, from this host alone (no sibling domain can set or shadow it)."""
COOKIE_MAX_AGE = 400 * 24 * 3600
"""The longest a browser keeps a cookie; the server ends sessions sooner when unused
(``store.players.SESSION_IDLE_ACCOUNT``)."""
_TOKEN_MAX = 128


async def get_store(request: Request) -> Store:
    """The app's store."""
    store: Store = request.app.state.store
    return store


async def get_settings(request: Request) -> Settings:
    """The app's settings."""
    settings: Settings = request.app.state.settings
    return settings


StoreDep = Annotated[Store, Depends(get_store)]
T = TypeVar("T")

REQUEST_DEADLINE: ContextVar[float | None] = ContextVar("magdagdon_request_deadline", default=None)
"""When the current request's database work must be done (``time.monotonic()``): set by its
first :func:`run_store`, shared by the rest (see the module docstring)."""


OUTCOME_GRACE = 1.0
"""Seconds past the deadline a request waits for the database to say how its work ended."""


class StoreWork:
    """The database work of :func:`run_store` still running in threads, a store's (a request
    cancelled, or past its deadline, abandons its thread, which goes on to its end): a server
    stopping waits for it before it closes the database, so that nothing it was writing is
    cut off, and nothing writes after the server said it stopped."""

    def __init__(self) -> None:
        self._running = 0
        self._idle = threading.Condition()

    def __enter__(self) -> None:
        with self._idle:
            self._running += 1

    def __exit__(self, *exc: object) -> None:
        with self._idle:
            self._running -= 1
            if not self._running:
                self._idle.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no work runs, at most ``timeout`` seconds; whether none runs."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._running, timeout)


_STORE_WORK: weakref.WeakKeyDictionary[Store, StoreWork] = weakref.WeakKeyDictionary()
_STORE_WORK_LOCK = threading.Lock()


def store_work(store: Store) -> StoreWork:
    """The :class:`StoreWork` of ``store``."""
    with _STORE_WORK_LOCK:
        work = _STORE_WORK.get(store)
        if work is None:
            work = _STORE_WORK[store] = StoreWork()
        return work


def renew_deadline() -> None:
    """Start the request's database deadline again at its next database work: after work
    that is not the database's (the coach's search), or in a background task that outlives
    the request that started it."""
    REQUEST_DEADLINE.set(None)


async def run_store(
    store: Store,
    work: Callable[[], T],
    *,
    limiter: anyio.CapacityLimiter | None = None,
    budget: float | None = None,
) -> T:
    """Run database work for a request in a worker thread (of ``limiter``, else the default
    ones) within the request's deadline (see the module docstring); ``budget``: within that
    many seconds of its own instead. Past the deadline the work does not start (503); work
    that started is abandoned by the database when the deadline passes, and its outcome
    (done, or undone) is what the request answers."""
    if budget is not None:
        deadline = time.monotonic() + budget
    else:
        found = REQUEST_DEADLINE.get()
        deadline = found if found is not None else time.monotonic() + store.db.timeout
        REQUEST_DEADLINE.set(deadline)

    running = store_work(store)

    def guarded() -> T:
        if time.monotonic() > deadline:
            raise DatabaseTimeout("no database thread was free before the request's deadline")
        token = DEADLINE.set(deadline)
        try:
            with running:
                return work()
        finally:
            DEADLINE.reset(token)

    try:
        # Waiting for a thread ends at the deadline. Work under way is waited for until the
        # deadline and OUTCOME_GRACE more: the database abandons it at the deadline and says
        # so at once. Past that the database itself does not answer (a network that drops
        # everything): the request answers 503 and the thread is left to its connection's
        # timeouts, while the server side ends what it was given at the deadline
        # (statement_timeout, idle_in_transaction_session_timeout).
        with anyio.fail_after(max(0.0, deadline - time.monotonic()) + OUTCOME_GRACE):
            return await to_thread.run_sync(guarded, abandon_on_cancel=True, limiter=limiter)
    except TimeoutError:
        raise DatabaseTimeout(f"no answer within {store.db.timeout:g} s") from None


SettingsDep = Annotated[Settings, Depends(get_settings)]


def _secure(request: Request, settings: Settings) -> bool:
    if settings.secure_cookies == "always":
        return True
    if settings.secure_cookies == "never":
        return False
    return request.url.scheme == "https"


def cookie_token(request: HTTPConnection) -> tuple[str, bool] | None:
    """The session token the request's cookie carries, if any, and whether it came under the
    ``__Host-`` name (looked at first); a WebSocket's too."""
    prefixed = request.cookies.get(HOST_COOKIE)
    token = prefixed or request.cookies.get(COOKIE)
    if not token or len(token) > _TOKEN_MAX:
        return None
    return token, bool(prefixed)


def _accepted(
    request: Request, settings: Settings, token: str, prefixed: bool, found: SessionRef | None
) -> SessionRef | None:
    """Over HTTPS a session's cookie must be the ``__Host-`` one: a plain one could have been
    set by a sibling domain or over plain HTTP (a planted session would have its visitor play
    as somebody else). Only a cookie of a release before sessions (method ``earlier``) comes
    under the plain name; it is sent back with the prefix at once."""
    if found is None or prefixed or not _secure(request, settings):
        return found
    if found.method != "earlier":
        return None
    set_session_cookie(request, settings, token)
    return found


SESSION_ENDED_HEADER = "X-Magdagdon-Session"
"""Sent as ``ended`` with every answer to a request whose cookie named a session that has
ended (signed out here or on another device, revoked, its player deleted, unused too long):
the page says so before anything else."""


async def known_session(
    request: Request, store: StoreDep, settings: SettingsDep
) -> SessionRef | None:
    """The request's session (from its cookie), or None; nobody is created. Read from the
    database on the session threads (``app.state.session_threads``)."""
    if hasattr(request.state, "session"):
        known: SessionRef | None = request.state.session
        return known
    carried = cookie_token(request)
    found = None
    if carried is not None:
        token, prefixed = carried
        limiter = getattr(request.app.state, "session_threads", None)
        found = await run_store(store, lambda: store.session(token), limiter=limiter)
        found = _accepted(request, settings, token, prefixed, found)
        if found is None:
            request.state.session_ended = True
    request.state.session = found
    return found


async def known_player(request: Request, store: StoreDep, settings: SettingsDep) -> int | None:
    """The id of the request's player (from the cookie), or None; nobody is created."""
    found = await known_session(request, store, settings)
    return found.player_id if found is not None else None


def device_label(request: Request) -> str:
    """A short name of the device for the sessions' list: its browser and system as its
    User-Agent says ("Firefox on Android"), or what it says of itself, shortened."""
    agent = request.headers.get("user-agent", "")
    browser = next(
        (name for key, name in _BROWSERS if key in agent), agent.split("/", 1)[0].strip()
    )
    system = next((name for key, name in _SYSTEMS if key in agent), "")
    label = f"{browser} on {system}" if browser and system else browser or system
    return label[:64]


_BROWSERS = (
    ("Edg/", "Edge"),
    ("OPR/", "Opera"),
    ("Firefox/", "Firefox"),
    ("Chrome/", "Chrome"),
    ("Chromium/", "Chromium"),
    ("Safari/", "Safari"),
)
_SYSTEMS = (
    ("Android", "Android"),
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("CrOS", "ChromeOS"),
    ("Linux", "Linux"),
)


def set_session_cookie(request: Request, settings: Settings, token: str | None) -> None:
    """Send a session's cookie with the answer (``None``: end the device's cookie). Its name
    has the ``__Host-`` prefix over HTTPS; HttpOnly, SameSite=Lax, the whole site. The plain
    name is ended too when the prefixed one is sent (a cookie of an earlier release)."""
    secure = _secure(request, settings)
    cookie = Response()
    name = HOST_COOKIE if secure else COOKIE
    if token is None:
        cookie.delete_cookie(name, httponly=True, samesite="lax", secure=secure, path="/")
    else:
        cookie.set_cookie(
            name,
            token,
            max_age=COOKIE_MAX_AGE,
            httponly=True,
            samesite="lax",
            secure=secure,
            path="/",
        )
    if secure and COOKIE in request.cookies:
        cookie.delete_cookie(COOKIE, httponly=True, samesite="lax", secure=True, path="/")
    # Routes return ready JSON responses that FastAPI's per-dependency headers would not
    # reach: the response-headers layer (security.py) adds these cookies to the answer.
    request.state.player_cookie = [h for h in cookie.raw_headers if h[0] == b"set-cookie"]


NOBODY = 0
"""The player of a ``HEAD`` request without a known cookie: no player has this id, so every
answer is a stranger's (nothing of anyone's), and nobody is created (``HEAD`` changes
nothing)."""

HEAD_SCOPE_KEY = "magdagdon.head"
"""Set in the scope of a ``HEAD`` request answered as a ``GET`` (``app.HeadMiddleware``)."""


def is_head(request: Request) -> bool:
    """Whether the request is a ``HEAD`` (answered as a ``GET`` that must change nothing)."""
    return bool(request.scope.get(HEAD_SCOPE_KEY))


async def current_player(request: Request, store: StoreDep, settings: SettingsDep) -> int:
    """The id of the request's player, created (with a new cookie) on the first visit.

    Never for a request of another site (403 ``cross_site``: its cookie, SameSite=Lax, stays
    behind, and the new player's cookie would replace the visitor's), nor for a ``HEAD``
    (:data:`NOBODY`)."""
    known = await known_player(request, store, settings)
    if known is not None:
        return known
    if is_cross_site(request.scope):
        raise ApiError(403, "cross_site", CROSS_SITE_MESSAGE)
    if is_head(request):
        return NOBODY
    await enforce(request, ("players_per_address", client_address(request)))
    label = device_label(request)
    made, token = await run_store(store, lambda: store.create_player(label))
    set_session_cookie(request, settings, token)
    request.state.session = made
    return made.player_id


CurrentPlayer = Annotated[int, Depends(current_player)]


class PathPattern(Convertor[str]):
    """A path parameter that its ``regex`` alone matches, passed on as written (a subclass
    sets the regex; ``register_url_convertor`` names it for the routes' ``{param:name}``)."""

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


def refuse_chosen_seed(seed: int | None, settings: Settings) -> None:
    """422 ``seed_not_allowed`` for a chosen dice seed on a server that is no test server."""
    if seed is not None and not settings.allow_test_seeds:
        raise ApiError(422, "seed_not_allowed", "This server does not accept chosen seeds.")


def _client_ip(request: HTTPConnection) -> ipaddress.IPv4Address | ipaddress.IPv6Address | str:
    """The client's address (from X-Forwarded-For when a trusted proxy sent it), an
    IPv4-mapped IPv6 address as its IPv4; what is no address, as it is."""
    host = request.client.host if request.client else "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def client_address(request: HTTPConnection) -> str:
    """The key of the client's address for per-address limits: an IPv4 address as it is, an
    IPv6 address as its /64 network (one customer's line or one host gets a whole /64 and
    picks addresses from it freely)."""
    address = _client_ip(request)
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def link_origin(request: Request, settings: Settings) -> str:
    """The origin the game's links name (a transfer code's, a challenge's, an invite's; the
    passkeys' relying party): the operator's public origin the request came by (else the
    first of ``MAGDAGDON_PUBLIC_ORIGIN``), else the request's own scheme and Host."""
    given = (request.headers.get("host") or request.url.netloc).lower()
    origins = [urlsplit(o) for o in settings.public_origins]
    if origins:
        chosen = next((o for o in origins if o.netloc.lower() == given), origins[0])
        return f"{chosen.scheme}://{chosen.netloc}"
    return f"{request.url.scheme}://{given}"


def qr_modules(url: str) -> list[str]:
    """A link's QR code as rows of modules ("1" dark), for the page to draw."""
    matrix = segno.make(url, error="m").matrix
    return ["".join("1" if dark else "0" for dark in row) for row in matrix]


def client_network(request: HTTPConnection) -> str:
    """The key of the client's network for limits on guessing (transfer codes): an IPv4
    address's /24, an IPv6 address's /48 (what one site or customer is given)."""
    address = _client_ip(request)
    if isinstance(address, str):
        return address
    prefix = 24 if isinstance(address, ipaddress.IPv4Address) else 48
    return str(ipaddress.ip_network((address, prefix), strict=False))


def background_owners(request: Request, player: int | None) -> list[str]:
    """Whom background work asked for by this request counts against
    (:class:`~magdagdon.web.coach_pool.Background`): the player, the address, the network."""
    owners = [f"address {client_address(request)}", f"network {client_network(request)}"]
    return owners if player is None else [f"player {player}", *owners]


async def enforce(request: HTTPConnection, *hits: Hit) -> None:
    """Count events against rate limits, in order (one Redis round trip for them all when
    the limits are shared); 429 with Retry-After at the first that is exhausted."""
    limits: RateLimits | None = request.app.state.limits
    if limits is None:
        return
    wait = await limits.check(hits)
    if wait is not None:
        raise ApiError(
            429,
            "rate_limited",
            f"Too many requests: try again in {wait} s.",
            headers={"Retry-After": str(wait)},
        )


async def limit_games(request: Request, player: CurrentPlayer) -> None:
    """Rate limits on starting games."""
    await enforce(
        request,
        ("games_per_player", str(player)),
        ("games_per_address", client_address(request)),
    )


async def limit_actions(request: Request, player: CurrentPlayer) -> None:
    """Rate limits on actions."""
    await enforce(
        request,
        ("actions_per_player", str(player)),
        ("actions_per_address", client_address(request)),
    )


async def limit_coach(request: Request, player: CurrentPlayer) -> AsyncIterator[None]:
    """Rate limits on hints and reviews (the strong player's search costs CPU time), then a
    place in the coach's processes for as long as the request lasts (``CoachPool.slot``):
    refused at once when the address or the pool has none, before any other work."""
    address = client_address(request)
    await enforce(request, ("coach_per_player", str(player)), ("coach_per_address", address))
    with request.app.state.coach_pool.slot(address):
        yield


KnownPlayer = Annotated[int | None, Depends(known_player)]


async def limit_replays(request: Request, player: KnownPlayer) -> None:
    """Rate limits on replays (a finished game's whole log, to anyone), and on statistics
    (all of a player's games are read)."""
    hits: list[Hit] = [] if player is None else [("replays_per_player", str(player))]
    await enforce(request, *hits, ("replays_per_address", client_address(request)))


TEST_DATE_HEADER = "X-Magdagdon-Test-Date"
"""On test servers (``allow_test_seeds``), the day a request takes as today (YYYY-MM-DD): that
day at 12:00 UTC is the request's moment (:data:`TEST_NOW_HEADER` wins over it)."""
TEST_NOW_HEADER = "X-Magdagdon-Test-Now"
"""On test servers, the moment a request takes as now (ISO 8601; UTC when it names no zone):
tests move the clock across midnight and the daily's grace with it, with no real wait."""


async def now(request: Request, settings: SettingsDep) -> datetime:
    """The request's moment in UTC: the clock of the daily games (a test server takes it from
    :data:`TEST_NOW_HEADER`, else :data:`TEST_DATE_HEADER`'s day at noon, when the request
    has one, to play across midnight)."""
    if settings.allow_test_seeds:
        given = request.headers.get(TEST_NOW_HEADER)
        if given:
            try:
                moment = datetime.fromisoformat(given)
            except ValueError:
                raise ApiError(422, "invalid_request", f"{TEST_NOW_HEADER}: not a moment") from None
            return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
        day = request.headers.get(TEST_DATE_HEADER)
        if day:
            try:
                noon = date.fromisoformat(day)
                return datetime(noon.year, noon.month, noon.day, 12, tzinfo=UTC)
            except ValueError:
                raise ApiError(422, "invalid_request", f"{TEST_DATE_HEADER}: not a date") from None
    return datetime.now(UTC)


Now = Annotated[datetime, Depends(now)]


async def today(moment: Now) -> date:
    """Today in UTC: the day whose dailies may be started (and shown as today's)."""
    return moment.date()


Today = Annotated[date, Depends(today)]


async def open_day(moment: Now) -> date:
    """The oldest day not over (:func:`~magdagdon.store.first_open_day`): the days before it
    are over (their dice public); yesterday is not until two hours after midnight UTC."""
    return first_open_day(moment)


OpenDay = Annotated[date, Depends(open_day)]

DAILY_NOT_OVER = (
    "This daily game can be watched once its day is over (02:00 UTC the day after: "
    "until then its games can still be finished)."
)


ROOM_NOT_OVER = (
    "This game of a live room can be watched once the room is over: its dice are the other "
    "players' too."
)


def finished_game(not_over: str, *, daily_owner: bool) -> Any:
    """A dependency: the finished game named by the path's ``game_id``, with its whole log
    (replays and reviews are public). The player's own unfinished game is 409
    ``game_not_over`` with ``not_over`` as the message; anyone else's, or none, 404. A daily
    game is 409 ``daily_not_over`` until its day is over, except to its own player when
    ``daily_owner`` (they have seen its dice); a live room's game 409 ``room_not_over`` until
    the room is over."""

    async def dependency(
        game_id: str, player: KnownPlayer, store: StoreDep, moment: Now
    ) -> GameRow:
        def work() -> GameRow:
            if player is not None:
                try:
                    own = store.get_game(game_id, player)
                except LookupError:
                    own = None
                if own is not None and own.status is not GameStatus.OVER:
                    if own.daily_over(moment):
                        raise DailyEnded(own)  # left unfinished: it never will be
                    raise ApiError(409, "game_not_over", not_over)
            row = store.finished_game(game_id)
            hidden = row.daily is not None and not row.daily_over(moment)  # its day still on
            if hidden and not (daily_owner and row.player_id == player):
                raise ApiError(409, "daily_not_over", DAILY_NOT_OVER)
            if row.room is not None and store.room(row.room).phase != "over":
                # its seed would tell the others' rolls to come: the room's end first
                raise ApiError(409, "room_not_over", ROOM_NOT_OVER)
            return row

        return await run_store(store, work)

    return Depends(dependency)
