"""The FastAPI application: routers, error handlers, the static client."""

from __future__ import annotations

import gc
import mimetypes
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from anyio import to_thread
from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from .. import __version__
from ..settings import Settings, get_settings
from ..store import Database, Store
from .deps import PlayerCookieMiddleware
from .errors import install_error_handlers
from .routes import games, health, highscores, players

STATIC = Path(__file__).parent / "static"
mimetypes.add_type("application/manifest+json", ".webmanifest")


def create_app(settings: Settings | None = None, *, migrate: bool = True) -> FastAPI:
    """The app for ``settings`` (default: from the environment); migrates the database on start."""
    settings = settings or get_settings()
    database = Database(settings.database_url)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if migrate:
            database.migrate()
        # Requests run their database work in worker threads. The work is short and holds
        # the GIL; a few threads keep the CPU busy while dozens would only contend for it.
        threads = settings.threads or (1 if database.is_sqlite else 4)
        to_thread.current_default_thread_limiter().total_tokens = threads
        # Everything imported so far lives as long as the process: keep the collector from
        # walking it again and again (full collections otherwise pause requests ~100 ms).
        gc.collect()
        gc.freeze()
        yield
        database.dispose()

    app = FastAPI(
        title="MAGDAGDON",
        version=__version__,
        summary="The CUBIRI dice puzzle: the server is the authority on every roll and score.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.store = Store(database)
    install_error_handlers(app)
    app.add_middleware(PlayerCookieMiddleware)
    for module in (health, games, highscores, players):
        app.include_router(module.router)
    app.mount("/", StaticFiles(directory=STATIC, html=True), name="client")
    return app
