"""Past dailies: the calendar of the days gone by, and a past day's dice played again.

A day's daily can be played again once the day is over (its dice public) by a player who did
not finish it: a past daily (``store.pastdaily``), outside the day's leaderboard, the daily
streak, the leagues and the high scores. Its end is set beside the day's leaderboard, par and
the player's friends (``GET /api/daily/{date}/{difficulty}/leaderboard``: ``past``,
``friends``).
"""

from __future__ import annotations

from calendar import monthrange
from datetime import date, timedelta
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request, Response, status
from starlette.convertors import register_url_convertor

from ...engine import Difficulty
from ...store import EPOCH, GameStatus, PastDay, daily_finish_by, daily_number, daily_over
from ..deps import (
    CurrentPlayer,
    KnownPlayer,
    Now,
    PathPattern,
    StoreDep,
    Today,
    limit_games,
    run_store,
)
from ..errors import ApiError
from ..par import start_par
from ..schemas import (
    CalendarDay,
    CalendarState,
    DailyCalendar,
    ErrorResponse,
    GameConflict,
    GameView,
)
from .daily import DAY, daily_day
from .games import view_response

router = APIRouter(prefix="/api/daily", tags=["daily"])

MONTH = Query(
    pattern=r"^\d{4}-\d{2}$",
    description="The month, YYYY-MM (default: this month, UTC).",
)


def _month_of(text: str | None, today: date) -> date:
    """The first day of the asked month; 404 for a month with no daily (before #1, after
    today's)."""
    if text is None:
        return today.replace(day=1)
    try:
        first = date.fromisoformat(f"{text}-01")
    except ValueError:
        first = None
    first_daily = EPOCH + timedelta(days=1)
    if first is None or first > today or first < first_daily.replace(day=1):
        raise ApiError(404, "daily_not_found", f"There are no dailies in {text}.")
    return first


def _state(entry: PastDay | None, over: bool) -> CalendarState:
    """What the calendar says of a day (``CalendarDay.state``)."""
    if entry is not None and entry.status is GameStatus.OVER:
        return "past_played" if entry.past else "played"
    if not over:
        return "not_over"
    if entry is None:
        return "open"
    return "past_active" if entry.past else "unfinished"


@router.get(
    "/past/{difficulty}",
    response_model=DailyCalendar,
    responses={
        404: {
            "model": ErrorResponse,
            "description": "daily_not_found: no daily in that month (before #1, after today).",
        }
    },
)
async def calendar(
    difficulty: Difficulty,
    player: KnownPlayer,
    store: StoreDep,
    today: Today,
    moment: Now,
    month: Annotated[str | None, MONTH] = None,
) -> DailyCalendar:
    """A month of dailies of a difficulty, from daily #1 to today: which you played (with your
    score and the par), which you can play now as a past daily (their day is over: their dice
    are public), which are not over yet."""
    first = _month_of(month, today)
    last = first.replace(day=monthrange(first.year, first.month)[1])
    start = max(first, EPOCH + timedelta(days=1))
    end = min(last, today)

    def work() -> tuple[dict[date, PastDay], dict[date, int]]:
        mine = store.daily_calendar(player, difficulty, start, end)
        played = [d for d, e in mine.items() if e.status is GameStatus.OVER]
        return mine, store.daily_pars(difficulty, played)

    mine, pars = await run_store(store, work)
    days = []
    day = start
    while day <= end:
        entry = mine.get(day)
        state = _state(entry, daily_over(day, moment))
        finished = state in ("played", "past_played")
        days.append(
            CalendarDay(
                date=day,
                number=daily_number(day),
                state=state,
                score=entry.score if entry is not None and finished else None,
                game_id=entry.game_id if entry is not None else None,
                par=pars.get(day) if finished else None,
            )
        )
        day += timedelta(days=1)
    before = first - timedelta(days=1)
    after = last + timedelta(days=1)
    return DailyCalendar(
        difficulty=difficulty,
        month=first.strftime("%Y-%m"),
        today=today,
        days=days,
        previous=before.strftime("%Y-%m") if daily_number(before) >= 1 else None,
        next=after.strftime("%Y-%m") if after <= today else None,
    )


class DayConvertor(PathPattern):
    """A day in a path (digits and dashes): ``/api/daily/past/peaceful`` is then no day's
    path, and a POST to it answers 405 (its GET is the calendar) rather than a day refused."""

    regex = r"[0-9][0-9-]*"  # (its exact form is DAY's pattern: 422 when it is wrong)


register_url_convertor("day", DayConvertor())


@router.post(
    "/{date:day}/{difficulty}",
    status_code=status.HTTP_201_CREATED,
    response_model=GameView,
    dependencies=[Depends(limit_games)],
    responses={
        200: {"model": GameView, "description": "The past daily being played, continued."},
        404: {"model": ErrorResponse, "description": "No daily on that day."},
        409: {
            "model": GameConflict,
            "description": "You finished that day's dice already (daily_played, with the game); "
            "or the day is not over yet (daily_not_over).",
        },
        429: {"model": ErrorResponse, "description": "Too many new games: see Retry-After."},
    },
)
async def play_past_daily(
    date: Annotated[str, DAY],
    difficulty: Difficulty,
    request: Request,
    player: CurrentPlayer,
    store: StoreDep,
    today: Today,
    moment: Now,
) -> Response:
    """A past day's daily played again on its dice, once its day is over: 201 with a new game,
    200 with the one being played. It is marked as a past daily and stays out of the day's
    leaderboard, the daily streak, the leagues and the high scores; your regular game is not
    touched. Rate-limited like any new game."""
    day = daily_day(date, today)
    if not daily_over(day, moment):
        ends = daily_finish_by(day).strftime("%H:%M UTC on %Y-%m-%d")
        raise ApiError(
            409,
            "daily_not_over",
            f"The daily of {day.isoformat()} is not over: play it from DAILY while it lasts; "
            f"it can be played as a past daily from {ends}.",
        )

    def work() -> Response:
        row, new = store.start_past_daily(player, day, difficulty)
        return view_response(row, store, status.HTTP_201_CREATED if new else status.HTTP_200_OK)

    response = await run_store(store, work)
    start_par(request.app, day, difficulty)  # known by the end of the game, as for a daily
    return response
