"""The coach: a hint for the turn in progress, a review of a finished game."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from ...engine import Phase
from ...store import DailyEnded, GameRow, GameStatus
from ..caches import ReviewCache
from ..coach_pool import CoachPool
from ..coach_work import hint_dict, review_dicts
from ..deps import (
    CurrentPlayer,
    Now,
    StoreDep,
    finished_game,
    is_head,
    limit_coach,
    renew_deadline,
    run_store,
)
from ..errors import ApiError
from ..schemas import ErrorResponse, HintView, ReviewView, TurnReviewView

router = APIRouter(prefix="/api/games", tags=["coach"])

_RESPONSES: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorResponse, "description": "No such game, or not yours."},
    429: {"model": ErrorResponse, "description": "Too many hints or reviews: see Retry-After."},
}


@router.get(
    "/{game_id}/hint",
    response_model=HintView,
    dependencies=[Depends(limit_coach)],
    responses={
        **_RESPONSES,
        409: {
            "model": ErrorResponse,
            "description": "The game is over, or it is a daily whose day is over (daily_ended).",
        },
    },
)
async def game_hint(
    request: Request, game_id: str, player: CurrentPlayer, store: StoreDep, moment: Now
) -> HintView:
    """The best plan for the turn in progress, its expected final score and the next best
    plans with what each is expected to cost. The hint knows what the player sees, never the
    dice to come. Hints are counted per game (once per game version) and shown with the score.
    """
    row = await run_store(store, lambda: store.get_game(game_id, player))
    if row.status is not GameStatus.ACTIVE or row.game.phase is Phase.OVER:
        raise ApiError(409, "game_over", "The game is over: there is nothing to hint.")
    if row.daily_over(moment):
        raise DailyEnded(row)  # it can no longer be played: no hint for it either
    pool = _coach_pool(request)
    advice = await pool.run(hint_dict, row.game)
    renew_deadline()  # the coach's time is not the database's
    if is_head(request):  # HEAD changes nothing: the hint is not counted
        used = row.hints_used
    else:
        used = await run_store(store, lambda: store.count_hint(row.id, player, row.version))
    return HintView(**advice, version=row.version, hints_used=used)


def _coach_pool(request: Request) -> CoachPool:
    """The app's coach processes (the searches never run in the server process, so that a
    review never holds up a game's actions)."""
    pool: CoachPool = request.app.state.coach_pool
    return pool


REVIEWS_KEPT = 64
"""Reviews of finished games (they never change) a process keeps, the most recent (with
``MAGDAGDON_REDIS_URL`` every review is kept in Redis too, for a day)."""


def _review(row: GameRow, turn_dicts: list[dict[str, Any]]) -> ReviewView:
    turns = [TurnReviewView(**t) for t in turn_dicts]
    return ReviewView(
        id=row.id,
        difficulty=row.difficulty,
        score=row.game.score().total,
        expected_loss=round(sum(t.expected_loss for t in turns), 1),
        turns=turns,
    )


@router.get(
    "/{game_id}/review",
    response_model=ReviewView,
    dependencies=[Depends(limit_coach)],
    responses={
        **_RESPONSES,
        409: {"model": ErrorResponse, "description": "The game is not over yet."},
    },
)
async def game_review(
    request: Request,
    row: Annotated[GameRow, finished_game("A game is reviewed once it is over.", daily_owner=True)],
) -> ReviewView:
    """A finished game, turn by turn: the player's move, the best move and the expected points
    lost. Like the replay, any finished game can be reviewed (from the high-score tables)."""
    reviews: ReviewCache = request.app.state.reviews
    found = await reviews.get(row.id)
    if found is None:
        pool = _coach_pool(request)
        turns = await pool.run(review_dicts, row.game)
        found = _review(row, turns)
        await reviews.put(row.id, found)
    return found
