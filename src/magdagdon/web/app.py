"""The FastAPI application: routers, error handlers, the static client."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cache
from pathlib import Path
from typing import Any

import anyio
from anyio import to_thread
from fastapi import APIRouter, FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from starlette.convertors import register_url_convertor
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from swagger_ui_bundle import swagger_ui_path

from .. import __version__
from ..settings import Settings, get_settings
from ..store import Database, Store
from .assets import Assets, plain_file, release_file, service_worker, start_page
from .caches import ReviewCache
from .coach_pool import Background, CoachPool
from .deps import HEAD_SCOPE_KEY, OUTCOME_GRACE, PathPattern, current_player, store_work
from .errors import install_error_handlers
from .limits import Limits, RateLimits
from .live import ServerSend, room_hub, watch_clocks
from .request_id import RequestIdMiddleware
from .routes import (
    account,
    challenges,
    coach,
    daily,
    games,
    health,
    highscores,
    leagues,
    pastdaily,
    players,
    puzzles,
    rooms,
)
from .schemas import ErrorResponse
from .security import (
    BodyLimitMiddleware,
    CrossSiteMiddleware,
    NulPathMiddleware,
    SecurityHeadersMiddleware,
)
from .workers import exit_with_parent

STATIC = Path(__file__).parent / "static"


DOCS_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>MAGDAGDON API</title>
<link rel="stylesheet" href="/docs-assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs-assets/swagger-ui-bundle.js"></script>
<script src="/js/docs.js"></script></body></html>
"""


class ClientPathConvertor(PathPattern):
    """Any path outside /api/ (the static client's files)."""

    regex = r"(?!api(?:/|$)).*"


register_url_convertor("client", ClientPathConvertor())


class HeadMiddleware:
    """Answers HEAD as GET without the body, on every path (HTTP: a resource that answers GET
    answers HEAD; load balancers probe ``HEAD /api/health``). The scope says it was a HEAD
    (``deps.HEAD_SCOPE_KEY``): a HEAD changes nothing (no player made, no hint counted)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET", HEAD_SCOPE_KEY: True}, receive, headers_only)


_PLAYER_ERRORS: dict[int | str, dict[str, Any]] = {
    403: {
        "model": ErrorResponse,
        "description": "cross_site: a request of another site (a page elsewhere) that would "
        "change something, or make a player.",
    },
    429: {
        "model": ErrorResponse,
        "description": "rate_limited: too many requests (a first visit makes a player: "
        "players per address are limited too); see Retry-After.",
    },
}


def _uses(dependant: Dependant, call: Any) -> bool:
    return any(d.call is call or _uses(d, call) for d in dependant.dependencies)


def _document_player_errors(router: APIRouter) -> None:
    """Every route that may make a player (any method) answers 403 ``cross_site`` and 429
    ``rate_limited`` too: say so in its OpenAPI responses."""
    for route in router.routes:
        if isinstance(route, APIRoute) and _uses(route.dependant, current_player):
            for status, response in _PLAYER_ERRORS.items():
                route.responses.setdefault(status, response)


RESPONSES: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorResponse, "description": "The request body is too large."},
    422: {"model": ErrorResponse, "description": "Invalid request or illegal action."},
    500: {"model": ErrorResponse, "description": "A stored game cannot be loaded."},
    503: {"model": ErrorResponse, "description": "The database does not answer."},
}
"""The answers any route may give (OpenAPI)."""


@cache
def api_routes() -> tuple[BaseRoute, ...]:
    """The API's routes, made once per process and put in each app it makes.

    FastAPI makes an included router's routes anew for each app (each route's dependencies
    and its response models' validators, about 0.1 s for the API's 62), and the tests make an
    app for each of about a thousand tests. So the routers are included once, in a router of
    the process's own, and every app gets its routes; the OpenAPI document is the same as if
    each app had included them. An app's ``dependency_overrides`` do not reach these routes
    (nothing here overrides a dependency)."""
    api = APIRouter(responses=RESPONSES)
    for router in (
        *(m.router for m in (health, games, coach, highscores, players, daily, account)),
        *(m.router for m in (challenges, leagues, puzzles, pastdaily, rooms)),
        puzzles.me_router,
    ):
        _document_player_errors(router)
        api.include_router(router)
    return tuple(api.routes)


API_DESCRIPTION = """
A player is a session cookie (`magdagdon_player`, or `__Host-magdagdon_player` over HTTPS),
made by the first request that needs one: any HTTP client with a cookie jar plays like a
browser.

**Signing in without a browser** (a script, a terminal): on a device where you play, open
ACCOUNT and SHOW A TRANSFER CODE (or `POST /api/account/transfer-codes` there); then, from
the client, `POST /api/account/sign-in/transfer` with `{"code": "ABCD-EFGH"}`. The answer
sets the session cookie: send it with every later request. The code works once, for 10
minutes. `POST /api/account/sign-out` ends the session; `GET /api/account/sessions` lists
them.

Requests that change something must not come from another site's page (403 `cross_site`).
"""


def create_app(
    settings: Settings | None = None, *, migrate: bool = True, static: Path = STATIC
) -> FastAPI:
    """The app for ``settings`` (default: from the environment); migrates the database on start.
    ``static`` is the browser client's folder (tests serve two releases from two folders)."""
    settings = settings or get_settings()
    database = Database(settings.database_url, timeout=settings.database_timeout)
    limits: RateLimits | None = Limits(settings) if settings.rate_limits else None
    reviews = ReviewCache(coach.REVIEWS_KEPT)
    coach_pool = CoachPool(
        settings.coach_processes, settings.coach_queue, settings.address_coach_at_once
    )
    background = Background(
        settings.background_processes, settings.background_queue, settings.background_at_once
    )
    link = None
    if settings.redis_url:  # several hosts: limits and reviews shared (imports redis)
        from .shared import RedisLink, SharedLimits

        link = RedisLink(settings.redis_url)
        if settings.rate_limits:
            limits = SharedLimits(link, settings, fallback=Limits(settings))
        reviews = ReviewCache(coach.REVIEWS_KEPT, remote=link)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if migrate:
            database.migrate()
        # Requests run their database work in worker threads. The work is short and holds
        # the GIL; a few threads keep the CPU busy while dozens would only contend for it.
        threads = settings.threads or (1 if database.is_sqlite else 4)
        to_thread.current_default_thread_limiter().total_tokens = threads
        # Bulkheads: session lookups (every request with a cookie) and the readiness check
        # have threads of their own, so a stall of one table, or of everything, does not take
        # the threads of requests that never touch it, nor the answer of /api/ready.
        app.state.session_threads = anyio.CapacityLimiter(threads)
        app.state.ready_threads = anyio.CapacityLimiter(1)
        # this release's client files, kept for the pages of it still open after the next
        # upgrade (store/releases.py); a database that does not answer now only loses that
        try:
            kept = {
                name: (asset.media_type, asset.body)
                for name, asset in app.state.assets.files.items()
                if name not in ("sw.js", "index.html")
            }
            await anyio.to_thread.run_sync(
                app.state.store.keep_release, app.state.assets.release, kept
            )
        except Exception:
            logging.getLogger("magdagdon").warning(
                "this release's client files were not kept in the database", exc_info=True
            )
        # Everything imported so far lives as long as the process: keep the collector from
        # walking it again and again (full collections otherwise pause requests ~100 ms).
        gc.collect()
        gc.freeze()
        watching = exit_with_parent()
        # live rooms: their news between processes (Redis), and the turns' clock (a test
        # server's clock is its requests' header, so it has no watcher of the real time)
        hub = room_hub(app)
        tasks = []
        if link is not None:
            await link.start()
            from .shared import RoomChannel

            hub.channel = RoomChannel(link, hub.wake)
            tasks.append(asyncio.create_task(hub.channel.run()))
        if not settings.allow_test_seeds:
            tasks.append(asyncio.create_task(watch_clocks(app)))
        yield
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        hub.channel = None
        if watching:
            watching.set()
        if link is not None:
            await link.close()
        coach_pool.close()
        background.close()
        # the database work its cancelled tasks left running in threads ends first (bounded:
        # it is past its own deadline by then)
        await anyio.to_thread.run_sync(
            store_work(app.state.store).wait_idle, database.timeout + OUTCOME_GRACE
        )
        database.dispose()

    app = FastAPI(
        title="MAGDAGDON",
        version=__version__,
        summary="The CUBIRI dice puzzle: the server is the authority on every roll and score.",
        description=API_DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # served below from this app's own files, not a CDN
        redoc_url=None,
        responses=RESPONSES,
    )
    app.state.settings = settings
    app.state.assets = Assets(static)
    app.state.store = Store(database, score_chosen_seeds=settings.test_seeds_scored)
    app.state.limits = limits
    app.state.reviews = reviews
    app.state.coach_pool = coach_pool
    app.state.background = background
    app.state.par_asked = {}  # dailies whose par this process asked for, and when
    app.state.par_tasks = set()  # the par computations running in this process
    app.state.challenge_par_asked = {}  # challenges whose par this process computed lately
    install_error_handlers(app)
    app.add_middleware(BodyLimitMiddleware, limit=settings.max_body_bytes)
    app.add_middleware(CrossSiteMiddleware)
    app.add_middleware(NulPathMiddleware)
    app.add_middleware(SecurityHeadersMiddleware)
    app.add_middleware(HeadMiddleware)
    app.add_middleware(RequestIdMiddleware)
    app.add_middleware(ServerSend)  # (the outermost: live.cut reaches the server's own send)
    app.mount("/docs-assets", StaticFiles(directory=swagger_ui_path), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return HTMLResponse(DOCS_PAGE)

    app.router.routes.extend(api_routes())

    # The client's files (assets.py), for GET and HEAD only: a Mount would answer every method
    # on every path, so a wrong method on an API path would get the files' Allow instead of its
    # own. Paths under /api/ are never files: a wrong method there answers 405 with its Allow.
    for path, endpoint in (
        ("/", start_page),
        ("/replay/{game_id}", start_page),
        ("/sw.js", service_worker),
        ("/r/{release}/{path:path}", release_file),
        ("/{path:client}", plain_file),
    ):
        app.router.routes.append(Route(path, endpoint, methods=["GET", "HEAD"]))
    return app
