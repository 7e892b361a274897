"""Daily games: today's, playing one, and each day's leaderboard."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Request, Response, status

from ...engine import Difficulty
from ...store import (
    DailyEntry,
    FriendScore,
    GameStatus,
    Leaderboard,
    daily_ends_at,
    daily_finish_by,
    daily_number,
    daily_over,
)
from ..deps import (
    CurrentPlayer,
    KnownPlayer,
    Now,
    OpenDay,
    SettingsDep,
    StoreDep,
    Today,
    limit_games,
    run_store,
)
from ..errors import ApiError
from ..par import start_par
from ..schemas import (
    DailyGame,
    DailyToday,
    DailyUnfinished,
    ErrorResponse,
    FriendScoreView,
    GameConflict,
    GameView,
    LeaderboardRow,
    LeaderboardView,
    PastStanding,
    Standing,
)
from .games import view_response

router = APIRouter(prefix="/api/daily", tags=["daily"])


@router.get("", response_model=DailyToday)
async def today_dailies(
    player: KnownPlayer, store: StoreDep, today: Today, open_from: OpenDay, moment: Now
) -> DailyToday:
    """Today's dailies (UTC), one per difficulty, and how far the player is with each; when
    today's can no longer be started, until when one started today can be finished, and
    the player's unfinished dailies of the days that ended but are not over (yesterday's,
    for two hours after midnight UTC)."""
    ended = [today - timedelta(days=n) for n in range(1, (today - open_from).days + 1)]

    def work() -> tuple[dict[Difficulty, DailyEntry], list[tuple[date, DailyEntry]]]:
        left = [
            (day, entry)
            for day in ended
            for entry in store.daily_games(player, day).values()
            if entry.status is GameStatus.ACTIVE
        ]
        return store.daily_games(player, today), left

    mine, left = await run_store(store, work)
    games = []
    for difficulty in Difficulty:
        entry = mine.get(difficulty)
        if entry is None:
            games.append(DailyGame(difficulty=difficulty, status="new", game_id=None, score=None))
        else:
            shown: Literal["active", "over"] = (
                "over" if entry.status is GameStatus.OVER else "active"
            )
            games.append(
                DailyGame(
                    difficulty=difficulty, status=shown, game_id=entry.game_id, score=entry.score
                )
            )
    return DailyToday(
        date=today,
        number=daily_number(today),
        games=games,
        ends_at=daily_ends_at(today),
        finish_by=daily_finish_by(today),
        now=moment,
        unfinished=[
            DailyUnfinished(
                date=day,
                number=daily_number(day),
                difficulty=entry.difficulty,
                game_id=entry.game_id,
                finish_by=daily_finish_by(day),
            )
            for day, entry in left
        ],
    )


@router.post(
    "/{difficulty}",
    status_code=status.HTTP_201_CREATED,
    response_model=GameView,
    dependencies=[Depends(limit_games)],
    responses={
        200: {"model": GameView, "description": "The daily being played, continued."},
        409: {"model": GameConflict, "description": "Played already (daily_played)."},
        429: {"model": ErrorResponse, "description": "Too many new games: see Retry-After."},
    },
)
async def play_daily(
    difficulty: Difficulty,
    request: Request,
    player: CurrentPlayer,
    store: StoreDep,
    today: Today,
) -> Response:
    """Today's daily of a difficulty: the same dice for everybody, one scored attempt each.
    201 with a new game, 200 with the one being played; the regular game is not touched."""

    def work() -> Response:
        row, new = store.start_daily(player, today, difficulty)
        return view_response(row, store, status.HTTP_201_CREATED if new else status.HTTP_200_OK)

    response = await run_store(store, work)
    start_par(request.app, today, difficulty)
    return response


DAY = Path(pattern=r"^\d{4}-\d{2}-\d{2}$", description="The UTC day, YYYY-MM-DD.")


@router.get(
    "/{date}/{difficulty}/leaderboard",
    response_model=LeaderboardView,
    responses={404: {"model": ErrorResponse, "description": "No daily on that day."}},
)
async def leaderboard(
    date: Annotated[str, DAY],
    difficulty: Difficulty,
    request: Request,
    player: KnownPlayer,
    store: StoreDep,
    settings: SettingsDep,
    today: Today,
    moment: Now,
) -> LeaderboardView:
    """A daily's leaderboard: the best 20 (ties share a rank; the earlier game is listed
    first), the number of players and your own rank and percentile; the par once you have
    finished it; once the day is over (02:00 UTC the day after: its games may be finished
    until then), the day's seed (re-run the engine on any game). By
    default only accounts are ranked: an anonymous player's game is shown apart, with the
    place it would have (``me.ranked`` false). Your finished past daily of the day is shown
    apart too (``past``: where it would stand), and once you finished the day's dice either
    way, your friends' games of them (``friends``)."""
    when = daily_day(date, today)
    ended = daily_over(when, moment)
    only = settings.daily_ranks == "accounts"

    def work() -> tuple[Leaderboard, PastStanding | None, list[FriendScore]]:
        board = store.daily_leaderboard(when, difficulty, player, ranked_only=only)
        past = None
        if player is not None and ended:
            mine = store.daily_calendar(player, difficulty, when, when).get(when)
            if mine is not None and mine.past and mine.status is GameStatus.OVER:
                assert mine.score is not None
                rank, _, percentile = store.past_daily_standing(
                    when, difficulty, mine.score, ranked_only=only
                )
                past = PastStanding(
                    game_id=mine.game_id, score=mine.score, rank=rank, percentile=percentile
                )
                if board.par is None:  # the par is shown to whoever finished the dice
                    board = replace(board, par=store.daily_par(when, difficulty))
        finished = board.me is not None or past is not None
        friends = store.daily_friends(player, when, difficulty) if finished and player else []
        return board, past, friends

    board, past, friends = await run_store(store, work)
    seed = None
    if ended:
        seed = (await run_store(store, lambda: store.daily_seed(when, difficulty))).hex()
    if (board.me is not None or past is not None) and board.par is None:
        start_par(request.app, when, difficulty)  # not computed yet (or its worker died)
    return LeaderboardView(
        date=when,
        difficulty=difficulty,
        number=daily_number(when),
        players=board.players,
        par=board.par,
        ended=ended,
        seed=seed,
        rows=[
            LeaderboardRow(
                rank=r.rank,
                name=r.name,
                score=r.score,
                turns=r.turns,
                powers_used=r.powers_used,
                hints_used=r.hints_used,
                game_id=r.game_id,
                mine=r.player_id == player,
            )
            for r in board.rows
        ],
        accounts_only=board.ranked_only,
        me=Standing(
            rank=board.me.rank,
            score=board.me.score,
            percentile=board.me.percentile,
            ranked=board.me.ranked,
            game_id=board.me.game_id,
        )
        if board.me
        else None,
        past=past,
        friends=[
            FriendScoreView(name=f.name, score=f.score, game_id=f.game_id, past=f.past)
            for f in friends
        ],
    )


def daily_day(text: str, today: date) -> date:
    """The day of a daily from the path: 404 for no such date, before daily #1, after today."""
    try:
        day = date.fromisoformat(text)
    except ValueError:
        day = None
    if day is None or daily_number(day) < 1 or day > today:
        raise ApiError(404, "daily_not_found", f"There is no daily on {text}.")
    return day
