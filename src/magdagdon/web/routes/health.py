"""Liveness and readiness."""

from __future__ import annotations

import logging

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy.exc import SQLAlchemyError

from ...ai.strong import models_problem
from ...store import DatabaseTimeout
from ..deps import StoreDep, run_store
from ..schemas import Health

router = APIRouter(prefix="/api", tags=["health"])
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
async def ready(store: StoreDep) -> Health | JSONResponse:
    """The database answers a query and the parts the server needs load."""
    problem = models_problem()
    if problem:
        log.error("not ready: %s", problem)
        return JSONResponse({"status": "unavailable"}, status_code=503)
    try:
        await run_store(store, store.db.ping)
    except (SQLAlchemyError, DatabaseTimeout):
        return JSONResponse({"status": "unavailable"}, status_code=503)
    return Health(status="ok")
