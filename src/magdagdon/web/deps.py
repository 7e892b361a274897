"""Request dependencies: the store, the settings and the current player (cookie)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, Response

from ..settings import Settings
from ..store import PlayerRow, Store

COOKIE = "magdagdon_player"
COOKIE_MAX_AGE = 2 * 365 * 24 * 3600


def get_store(request: Request) -> Store:
    """The app's store."""
    store: Store = request.app.state.store
    return store


def get_settings(request: Request) -> Settings:
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


def known_player(request: Request, store: StoreDep) -> PlayerRow | None:
    """The player of the request's cookie, or None (nobody is created)."""
    token = request.cookies.get(COOKIE)
    if not token or len(token) > 128:
        return None
    return store.player_by_token(token)


def current_player(
    request: Request, response: Response, store: StoreDep, settings: SettingsDep
) -> PlayerRow:
    """The player of the request's cookie, created (with a new cookie) on the first visit."""
    player = known_player(request, store)
    if player is not None:
        return player
    player, token = store.create_player()
    response.set_cookie(
        COOKIE,
        token,
        max_age=COOKIE_MAX_AGE,
        httponly=True,
        samesite="lax",
        secure=_secure(request, settings),
        path="/",
    )
    return player


CurrentPlayer = Annotated[PlayerRow, Depends(current_player)]
KnownPlayer = Annotated[PlayerRow | None, Depends(known_player)]
