"""Every error answers ``{"error": {"code", "message"}}`` with a fitting status."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from ..engine import RuleViolation
from ..store import (
    DailyEnded,
    DailyPlayed,
    DatabaseTimeout,
    GameInProgress,
    GameNotFound,
    GameUnreadable,
    NameTaken,
    StaleVersion,
)
from ..store.errors import TurnNotOpen
from .view import game_view

log = logging.getLogger("magdagdon.web")

RETRY_AFTER = "5"
"""Seconds a client waits before it tries again after a 503 (every 503 says it)."""


class ApiError(Exception):
    """An error the API answers with its own code and status."""

    def __init__(
        self, status: int, code: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None, **extra: Any
) -> JSONResponse:
    """The JSON error answer."""
    body = {"error": {"code": code, "message": message}, **extra}
    return JSONResponse(body, status_code=status, headers=headers)


def _describe_validation(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        location = ".".join(str(p) for p in err.get("loc", ()) if p not in ("body",))
        message = str(err.get("msg", "invalid"))
        parts.append(f"{location}: {message}" if location else message)
    return "; ".join(parts) or "The request is not valid."


def install_error_handlers(app: FastAPI) -> None:
    """Map exceptions to the API's error answers."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message, headers=exc.headers)

    @app.exception_handler(RuleViolation)
    async def _rule(request: Request, exc: RuleViolation) -> JSONResponse:
        return error_response(422, exc.code, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(422, "invalid_request", _describe_validation(exc))

    @app.exception_handler(GameNotFound)
    async def _not_found(request: Request, exc: GameNotFound) -> JSONResponse:
        return error_response(404, "game_not_found", "There is no such game.")

    @app.exception_handler(StaleVersion)
    async def _stale(request: Request, exc: StaleVersion) -> JSONResponse:
        view = game_view(exc.current)
        return error_response(
            409,
            "stale_version",
            "The game changed since you last saw it: here is where it stands now.",
            game=view.model_dump(mode="json"),
        )

    @app.exception_handler(GameInProgress)
    async def _in_progress(request: Request, exc: GameInProgress) -> JSONResponse:
        return error_response(
            409,
            "game_in_progress",
            "A game is in progress: continue it, or start a new one with abandon set "
            "(the unfinished game will not score).",
            game=game_view(exc.current).model_dump(mode="json"),
        )

    @app.exception_handler(DailyPlayed)
    async def _daily_played(request: Request, exc: DailyPlayed) -> JSONResponse:
        return error_response(
            409,
            "daily_played",
            "You have played this daily already: one attempt each day. See its leaderboard.",
            game=game_view(exc.finished).model_dump(mode="json"),
        )

    @app.exception_handler(TurnNotOpen)
    async def _turn_not_open(request: Request, exc: TurnNotOpen) -> JSONResponse:
        return error_response(
            409,
            "turn_not_open",
            "The room's next turn is not open: it opens when every player has ended this one "
            "(or the clock runs out), and the room rolls everyone's dice at once.",
            game=game_view(exc.current).model_dump(mode="json"),
        )

    @app.exception_handler(DailyEnded)
    async def _daily_ended(request: Request, exc: DailyEnded) -> JSONResponse:
        return error_response(
            409,
            "daily_ended",
            "This daily's day is over (02:00 UTC the day after it): it can no longer be played.",
            game=game_view(exc.current).model_dump(mode="json"),
        )

    @app.exception_handler(NameTaken)
    async def _name_taken(request: Request, exc: NameTaken) -> JSONResponse:
        return error_response(
            409,
            "name_taken",
            "That name is taken: another player's name is the same or looks the same. "
            "Choose another.",
        )

    @app.exception_handler(GameUnreadable)
    async def _unreadable(request: Request, exc: GameUnreadable) -> JSONResponse:
        log.error("stored game %s cannot be replayed: %s", exc.game_id, exc)
        return error_response(
            500, "game_unreadable", "This game's record is damaged and cannot be loaded."
        )

    @app.exception_handler(DatabaseTimeout)
    async def _db_timeout(request: Request, exc: DatabaseTimeout) -> JSONResponse:
        log.warning("database timeout: %s", exc)
        return error_response(
            503,
            "database_unavailable",
            "The game's database is not answering; nothing was changed. Try again shortly.",
            headers={"Retry-After": RETRY_AFTER},
        )

    @app.exception_handler(OperationalError)
    async def _db_down(request: Request, exc: OperationalError) -> JSONResponse:
        # also the database abandoning a statement at the request's deadline (PostgreSQL's
        # statement_timeout or lock_timeout, SQLite's interrupt): rolled back, nothing changed
        log.warning("database unavailable: %s", exc.orig.__class__.__name__)
        return error_response(
            503,
            "database_unavailable",
            "The game's database is not answering; nothing was changed. Try again shortly.",
            headers={"Retry-After": RETRY_AFTER},
        )

    @app.exception_handler(DBAPIError)
    async def _db_error(request: Request, exc: DBAPIError) -> JSONResponse:
        if exc.connection_invalidated:
            return error_response(
                503,
                "database_unavailable",
                "The game's database connection was lost; try again.",
                headers={"Retry-After": RETRY_AFTER},
            )
        log.exception("database error", exc_info=exc)
        return error_response(500, "internal_error", "Something went wrong on the server.")

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400:  # FastAPI could not parse the body at all
            return error_response(422, "invalid_request", "The request body must be a JSON object.")
        codes = {404: "not_found", 405: "method_not_allowed"}
        headers = dict(exc.headers) if exc.headers else None
        if exc.status_code == 405:  # Starlette names only the first matching route's methods
            headers = {"Allow": ", ".join(allowed_methods(request))}
        return error_response(
            exc.status_code, codes.get(exc.status_code, "http_error"), str(exc.detail), headers
        )


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def allowed_methods(request: Request) -> list[str]:
    """Every method some route answers on this request's path (HEAD wherever GET is: see
    :class:`~magdagdon.web.app.HeadMiddleware`)."""
    routes = request.app.router.routes
    allowed = {
        method
        for method in _METHODS
        if any(
            route.matches({**request.scope, "method": method})[0] is Match.FULL for route in routes
        )
    }
    if "GET" in allowed:
        allowed.add("HEAD")
    return [m for m in _METHODS if m in allowed]
