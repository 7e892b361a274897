"""Request dependencies: the store, the settings and the current player (cookie).

They are ``async`` so that a request does not hop to a worker thread for each of them;
the database is reached (in a worker thread) only for a token this process has not seen.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, Response
from starlette.concurrency import run_in_threadpool

from ..settings import Settings
from ..store import Store

COOKIE = "magdagdon_player"
COOKIE_MAX_AGE = 2 * 365 * 24 * 3600
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
SettingsDep = Annotated[Settings, Depends(get_settings)]


def _secure(request: Request, settings: Settings) -> bool:
    if settings.secure_cookies == "always":
        return True
    if settings.secure_cookies == "never":
        return False
    return request.url.scheme == "https"


async def known_player(request: Request, store: StoreDep) -> int | None:
    """The id of the request's player (from the cookie), or None; nobody is created."""
    token = request.cookies.get(COOKIE)
    if not token or len(token) > _TOKEN_MAX:
        return None
    cached = store.cached_player_id(token)
    if cached is not None:
        return cached
    return await run_in_threadpool(store.player_id, token)


async def current_player(
    request: Request, response: Response, store: StoreDep, settings: SettingsDep
) -> int:
    """The id of the request's player, created (with a new cookie) on the first visit."""
    known = await known_player(request, store)
    if known is not None:
        return known
    player_id, token = await run_in_threadpool(store.create_player)
    response.set_cookie(
        COOKIE,
        token,
        max_age=COOKIE_MAX_AGE,
        httponly=True,
        samesite="lax",
        secure=_secure(request, settings),
        path="/",
    )
    return player_id


CurrentPlayer = Annotated[int, Depends(current_player)]
KnownPlayer = Annotated[int | None, Depends(known_player)]
