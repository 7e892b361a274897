"""The current player: display name."""

from __future__ import annotations

from fastapi import APIRouter

from ..deps import CurrentPlayer, StoreDep, run_store
from ..schemas import ErrorResponse, NameUpdate, PlayerView

router = APIRouter(prefix="/api/players", tags=["players"])


@router.get("/me", response_model=PlayerView)
async def me(player: CurrentPlayer, store: StoreDep) -> PlayerView:
    """The current player (created with a cookie on the first visit)."""
    return PlayerView(name=(await run_store(store, lambda: store.player(player))).name)


@router.put(
    "/me",
    response_model=PlayerView,
    responses={422: {"model": ErrorResponse, "description": "Invalid name."}},
)
async def set_name(body: NameUpdate, player: CurrentPlayer, store: StoreDep) -> PlayerView:
    """Set the display name shown in the high-score tables."""
    return PlayerView(name=(await run_store(store, lambda: store.set_name(player, body.name))).name)
