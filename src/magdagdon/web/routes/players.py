"""The current player: display name and statistics."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from ..deps import CurrentPlayer, StoreDep, Today, limit_replays, run_store
from ..schemas import (
    DailyStatsView,
    DifficultyStatsView,
    ErrorResponse,
    HistogramBar,
    NameUpdate,
    PlayerView,
    StatsView,
)

router = APIRouter(prefix="/api/players", tags=["players"])


@router.get("/me", response_model=PlayerView)
async def me(player: CurrentPlayer, store: StoreDep) -> PlayerView:
    """The current player (created with a cookie on the first visit)."""
    return PlayerView(name=(await run_store(store, lambda: store.player(player))).name)


@router.put(
    "/me",
    response_model=PlayerView,
    responses={
        409: {
            "model": ErrorResponse,
            "description": "name_taken: another player's name is the same or looks the same "
            "(the same Unicode confusable skeleton, e.g. a Cyrillic Р for a Latin P).",
        },
        422: {
            "model": ErrorResponse,
            "description": "Invalid name: its length, its characters, or an invisible or "
            "formatting character in it.",
        },
    },
)
async def set_name(body: NameUpdate, player: CurrentPlayer, store: StoreDep) -> PlayerView:
    """Set the display name shown in the high-score tables (NFKC; refused when it looks
    like another player's)."""
    return PlayerView(name=(await run_store(store, lambda: store.set_name(player, body.name))).name)


@router.get(
    "/me/stats",
    response_model=StatsView,
    dependencies=[Depends(limit_replays)],
    responses={429: {"model": ErrorResponse, "description": "Too many requests: see Retry-After."}},
)
async def stats(player: CurrentPlayer, store: StoreDep, today: Today) -> StatsView:
    """Your games per difficulty (played, finished, mean, median, best, a histogram of the
    scores, the last 20 in order) and your daily streak."""
    found = await run_store(store, lambda: store.player_stats(player, today))
    return StatsView(
        difficulties={
            difficulty: DifficultyStatsView(
                games=s.games,
                finished=s.finished,
                mean=s.mean,
                median=s.median,
                best=s.best,
                histogram=[
                    HistogramBar.model_validate({"from": b.start, "to": b.end, "count": b.count})
                    for b in s.histogram
                ],
                recent=s.recent,
            )
            for difficulty, s in found.difficulties.items()
        },
        daily=DailyStatsView(
            played=found.daily.played,
            streak=found.daily.streak,
            best_streak=found.daily.best_streak,
        ),
    )
