"""Liveness and readiness."""

from __future__ import annotations

import logging

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy.exc import SQLAlchemyError

from ...ai.strong import models_problem
from ...store import DatabaseTimeout
from ..deps import StoreDep, run_store
from ..errors import RETRY_AFTER
from ..schemas import Health

router = APIRouter(prefix="/api", tags=["health"])
_RETRY = {"Retry-After": RETRY_AFTER}
READY_BUDGET = 2.0
"""Seconds /api/ready waits for the database before it answers 503."""
log = logging.getLogger(__name__)


@router.get("/health", response_model=Health)
async def health() -> Health:
    """The process is up."""
    return Health(status="ok")


@router.get(
    "/ready",
    response_model=Health,
    responses={
        503: {
            "model": Health,
            "description": "The database does not answer, or a part the server needs (the "
            "strong player's weights) cannot be loaded.",
        }
    },
)
async def ready(request: Request, store: StoreDep) -> Health | JSONResponse:
    """The database answers a query and the parts the server needs load: within
    :data:`READY_BUDGET`, on a thread of its own (a stalled database, or requests holding
    every other thread, make it answer 503 in time, not wait)."""
    problem = models_problem()
    if problem:
        log.error("not ready: %s", problem)
        return JSONResponse({"status": "unavailable"}, status_code=503, headers=_RETRY)
    try:
        limiter = getattr(request.app.state, "ready_threads", None)
        await run_store(store, store.db.ping, limiter=limiter, budget=READY_BUDGET)
    except (SQLAlchemyError, DatabaseTimeout):
        return JSONResponse({"status": "unavailable"}, status_code=503, headers=_RETRY)
    return Health(status="ok")
