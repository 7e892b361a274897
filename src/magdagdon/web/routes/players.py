"""The current player: display name and statistics."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request, Response, status
from fastapi.responses import JSONResponse

from ...store import PlayerStats
from ...store.models import utcnow
from ..caches import ReviewCache
from ..deps import (
    CurrentPlayer,
    OpenDay,
    SettingsDep,
    StoreDep,
    Today,
    limit_replays,
    run_store,
    set_session_cookie,
)
from ..schemas import (
    DailyStatsView,
    DifficultyStatsView,
    ErrorResponse,
    HistogramBar,
    NameUpdate,
    NewPasskeyView,
    PlayerView,
    StatsView,
)

router = APIRouter(prefix="/api/players", tags=["players"])


@router.get("/me", response_model=PlayerView)
async def me(request: Request, player: CurrentPlayer, store: StoreDep) -> PlayerView:
    """The current player (created with a cookie on the first visit); for an account, a first
    passkey on probation that another device added (``new_passkey``)."""
    row = await run_store(store, lambda: store.player(player))
    new = None
    session = getattr(request.state, "session", None)
    if row.account and session is not None:
        found = await run_store(store, lambda: store.new_passkey(session))
        if found is not None and found.probation_until is not None:
            new = NewPasskeyView(
                id=found.id,
                label=found.label,
                created_at=found.created_at,
                probation_until=found.probation_until,
            )
    return PlayerView(name=row.name, account=row.account, new_passkey=new)


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
    row = await run_store(store, lambda: store.set_name(player, body.name))
    return PlayerView(name=row.name, account=row.account)


@router.get(
    "/me/stats",
    response_model=StatsView,
    dependencies=[Depends(limit_replays)],
    responses={429: {"model": ErrorResponse, "description": "Too many requests: see Retry-After."}},
)
async def stats(
    player: CurrentPlayer, store: StoreDep, today: Today, open_from: OpenDay
) -> StatsView:
    """Your games per difficulty (played, finished, mean, median, best, a histogram of the
    scores, the last 20 in order) and your daily streak."""
    found = await run_store(store, lambda: store.player_stats(player, today, open_from))
    return stats_view(found)


@router.get(
    "/me/export",
    dependencies=[Depends(limit_replays)],
    responses={
        200: {
            "description": "Everything the server keeps about you, as one JSON file: "
            "`player`, `games` (each with its actions; its seed once it is over, a daily's "
            "once its day is over too), `stats`, `passkeys` (public parts), `sessions`, "
            "`high_scores`, `daily_results`.",
            "content": {"application/json": {}},
        },
        429: {"model": ErrorResponse, "description": "Too many requests: see Retry-After."},
    },
)
async def export(
    player: CurrentPlayer, store: StoreDep, today: Today, open_from: OpenDay
) -> JSONResponse:
    """Download everything the server keeps about you (a file, ``magdagdon-export.json``)."""

    def work() -> dict[str, Any]:
        data = store.export_player(player, open_from)
        data["stats"] = stats_view(store.player_stats(player, today, open_from)).model_dump(
            mode="json", by_alias=True
        )
        return data

    data = await run_store(store, work)
    data = {"format": "magdagdon-export/1", "exported_at": utcnow().isoformat(), **data}
    return JSONResponse(
        data,
        headers={"Content-Disposition": 'attachment; filename="magdagdon-export.json"'},
    )


@router.delete("/me", status_code=status.HTTP_204_NO_CONTENT)
async def delete_me(
    request: Request, player: CurrentPlayer, store: StoreDep, settings: SettingsDep
) -> Response:
    """Delete yourself and everything the server keeps about you: games, statistics, streak,
    name, passkeys, sessions on every device. Your rows leave the high-score tables and the
    daily leaderboards. The cookie this device had is a stranger's from now on."""
    deleted = await run_store(store, lambda: store.delete_player(player))
    reviews: ReviewCache = request.app.state.reviews
    await reviews.forget(deleted)  # (with Redis: every host's copy)
    set_session_cookie(request, settings, None)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


def stats_view(found: PlayerStats) -> StatsView:
    """The statistics' answer."""
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
