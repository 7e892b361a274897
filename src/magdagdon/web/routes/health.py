"""Liveness and readiness."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy.exc import SQLAlchemyError

from ...store import DatabaseTimeout
from ..deps import StoreDep, run_store
from ..schemas import Health

router = APIRouter(prefix="/api", tags=["health"])


@router.get("/health", response_model=Health)
async def health() -> Health:
    """The process is up."""
    return Health(status="ok")


@router.get(
    "/ready",
    response_model=Health,
    responses={503: {"model": Health, "description": "The database does not answer."}},
)
async def ready(store: StoreDep) -> Health | JSONResponse:
    """The database answers a query."""
    try:
        await run_store(store, store.db.ping)
    except (SQLAlchemyError, DatabaseTimeout):
        return JSONResponse({"status": "unavailable"}, status_code=503)
    return Health(status="ok")
