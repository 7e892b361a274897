"""Puzzles (store/puzzles.py, ai/puzzles.py): the next one, the daily one, a turn played on
one, attempts graded by the coach, the player's ratings; and MY GAMES, the player's finished
games page by page.

A puzzle's turn is played as a game's is: each action the player makes is sent with the
actions before it to ``POST /api/puzzles/{id}/view``, which answers the game view of the
position after them (the client holds no rules); the plan, once it ends the turn, goes to
``POST /api/puzzles/{id}/attempts``. Grading runs in the coach's processes. Every puzzle given
and every attempt counts against the player, the address and its network (a bound on
harvesting answers with throwaway players: the README says what remains).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Depends, Path, Query, Request
from pydantic import BaseModel, Field

from ...ai import puzzles as P
from ...engine import Difficulty, Game
from ...store import GameRow, GameStatus, Store
from ...store.models import utcnow
from ...store.puzzles import (
    AttemptResult,
    PuzzleNotFound,
    PuzzleRow,
)
from ..coach_pool import Background, BackgroundRefused
from ..coach_work import grade_plan, mine_dicts
from ..deps import (
    CurrentPlayer,
    OpenDay,
    StoreDep,
    Today,
    background_owners,
    client_address,
    client_network,
    enforce,
    renew_deadline,
    run_store,
)
from ..errors import ApiError
from ..schemas import ActionModel, ErrorResponse, GameView, Strict
from ..view import game_view

log = logging.getLogger("magdagdon.puzzles")
router = APIRouter(prefix="/api/puzzles", tags=["puzzles"])
me_router = APIRouter(prefix="/api/players/me", tags=["puzzles"])

MAX_PLAN = 40
"""Actions a plan may have (a turn rarely needs ten)."""
OWN_MINED_AT_ONCE = 5
"""Finished games searched for the player's own puzzles when they ask for them."""


async def limit_puzzles(request: Request, player: CurrentPlayer) -> None:
    """A puzzle given or attempted counts against the player, the address and its network."""
    await enforce(
        request,
        ("puzzles_per_player", str(player)),
        ("puzzles_per_address", client_address(request)),
        ("puzzles_per_network", client_network(request)),
    )


class PuzzleView(BaseModel):
    """A puzzle to play: its position in the engine's own form and the turn's game view."""

    id: int
    difficulty: Difficulty
    position: dict[str, Any] = Field(
        description="Game.from_position's keyword arguments: difficulty, board, dice, "
        "powers_used, turns."
    )
    themes: list[str] = Field(description="What the best plan does (ai.puzzles.THEMES).")
    rating: float = Field(description="The puzzle's rating (Glicko-2).")
    mode: Literal["rated", "streak", "daily", "own"]
    view: GameView = Field(description="The turn as a game view (nothing staged yet).")
    player_rating: float = Field(description="Your rating in this puzzle's pool.")
    streak: int = Field(description="STREAK: puzzles solved in a row so far.")
    date: dt.date | None = Field(
        default=None, description="The daily puzzle's day (UTC), from GET /api/puzzles/daily."
    )


class PlanRequest(Strict):
    """The turn's actions so far (a view) or the whole plan (an attempt), in order."""

    actions: list[ActionModel] = Field(max_length=MAX_PLAN)


class Expected(BaseModel):
    """Expected final scores of the two plans."""

    yours: float
    best: float


class RatingChange(BaseModel):
    """A rating before and after the attempt (the same when it was not rated)."""

    before: float
    after: float


class AttemptView(BaseModel):
    """What an attempt came to."""

    solved: bool
    best: list[dict[str, Any]] = Field(description="The best plan's actions.")
    best_board: str | None = Field(description="The board the best plan leaves (no REROLL).")
    your_board: str | None
    expected: Expected
    tolerance: float = Field(description="A plan this close to the best solves the puzzle.")
    player_rating: RatingChange
    rated: bool = Field(description="False for a second try, STREAK, or a race lost.")
    puzzle_rating: float
    themes: list[str]
    streak: int
    differences: list[dict[str, Any]] = Field(
        default_factory=list,
        description="What the best plan does that yours does not, most telling first: "
        "`completes` (a bonus in a line: `line` row/column, `n` 1-4, `bonus`), `gave_up` (a "
        "bonus the best keeps possible there), `spent` / `kept` (`n` Majda Powers yours spent "
        "more / the best spends more), `placed` (`yours`, `best`: dice placed).",
    )


class RatingView(BaseModel):
    """A pool's rating."""

    rating: float
    deviation: float
    attempts: int
    solved: int
    streak: int
    best_streak: int


class OwnView(RatingView):
    """The player's own puzzles: their rating, and how many are waiting."""

    left: int
    searching: bool = Field(description="Your new finished games are being searched now.")


class HistoryPoint(BaseModel):
    """A rated attempt."""

    at: datetime
    rating: float
    solved: bool


class SolvedCount(BaseModel):
    """First attempts and how many solved."""

    attempts: int
    solved: int


class PuzzleStatsView(BaseModel):
    """The player's puzzles: ratings, history (oldest first), solved per difficulty."""

    rating: RatingView
    own: OwnView
    history: list[HistoryPoint]
    solved: dict[str, dict[str, SolvedCount]]


class MyGameView(BaseModel):
    """A finished game of mine."""

    id: str
    difficulty: Difficulty
    score: int
    turns: int
    hints_used: int
    finished_at: datetime
    daily: str | None
    challenge: str | None
    past_daily: str | None = Field(
        default=None, description="A past daily: the day (YYYY-MM-DD) whose dice it played."
    )


class MyGamesView(BaseModel):
    """A page of my finished games, newest first."""

    games: list[MyGameView]
    next: str | None = Field(description="`before` of the next page (null: the last page).")


_NOT_FOUND = ApiError(404, "puzzle_not_found", "There is no such puzzle for you.")
_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorResponse, "description": "puzzle_not_found: no such puzzle given you."},
    429: {"model": ErrorResponse, "description": "Too many puzzles: see Retry-After."},
}
T = TypeVar("T")
PuzzleId = Annotated[int, Path(ge=1, le=2**31 - 1, description="A puzzle's id.")]


async def _asked(store: Store, work: Callable[[], T]) -> T:
    try:
        return await run_store(store, work)
    except PuzzleNotFound:
        raise _NOT_FOUND from None


def _turn(row: PuzzleRow, player: int, actions: list[Any]) -> Game:
    """The puzzle's turn after ``actions`` (422 with the rule's code for an illegal one)."""
    game = P.Position.from_dict(row.position).game().search_copy()
    for action in actions:
        if action["type"] in ("confirm", "accept_magdagdon", "reroll"):
            raise ApiError(
                422, "plan_ends_turn", "That action ends the turn: send the plan as an attempt."
            )
        game.apply(action)  # RuleViolation → 422 with its code
    return game


def _view(row: PuzzleRow, player: int, game: Game, version: int) -> GameView:
    now = utcnow()
    shown = GameRow(
        id=f"puzzle-{row.id}",
        player_id=player,
        difficulty=row.difficulty,
        version=version,
        status=GameStatus.ACTIVE,
        hints_used=0,
        created_at=now,
        finished_at=None,
        game=game,
    )
    return game_view(shown)


def _puzzle(
    row: PuzzleRow, player: int, summary: dict[str, Any], day: dt.date | None = None
) -> PuzzleView:
    pool = summary["own"] if row.owner is not None else summary["rating"]
    return PuzzleView(
        id=row.id,
        difficulty=row.difficulty,
        position=row.position,
        themes=row.themes,
        rating=round(row.rating, 1),
        mode=row.mode,  # type: ignore[arg-type]
        view=_view(row, player, _turn(row, player, []), 0),
        player_rating=pool["rating"],
        streak=summary["rating"]["streak"],
        date=day,
    )


def _theme(theme: str | None) -> str | None:
    if theme and theme not in P.THEMES:
        raise ApiError(
            422, "unknown_theme", f"Unknown theme {theme!r}; known: {', '.join(P.THEMES)}."
        )
    return theme or None


@router.get(
    "/next", response_model=PuzzleView, dependencies=[Depends(limit_puzzles)], responses=_ERRORS
)
async def next_puzzle(
    player: CurrentPlayer,
    store: StoreDep,
    difficulty: Difficulty | None = None,
    theme: Annotated[str | None, Query(max_length=32, pattern=r"^[a-z_]*$")] = None,
    mode: Literal["rated", "streak", "own"] = "rated",
) -> PuzzleView:
    """The next puzzle near your rating (never one you were given before, nor one of your own
    games: see docs/design.md, "Puzzles"), in the difficulty and with the theme asked; in
    STREAK, harder each time; ``own``: your own games' turns. 404 when none is left."""
    chosen = _theme(theme)

    def work() -> tuple[PuzzleRow, dict[str, Any]]:
        row = store.next_puzzle(player, difficulty, chosen, mode)
        return row, store.puzzle_summary(player)

    row, summary = await _asked(store, work)
    return _puzzle(row, player, summary)


@router.get(
    "/daily", response_model=PuzzleView, dependencies=[Depends(limit_puzzles)], responses=_ERRORS
)
async def daily_puzzle(player: CurrentPlayer, store: StoreDep, today: Today) -> PuzzleView:
    """Today's puzzle (UTC): the same for everybody."""

    def work() -> tuple[PuzzleRow, dict[str, Any]]:
        return store.daily_puzzle(player, today), store.puzzle_summary(player)

    row, summary = await _asked(store, work)
    return _puzzle(row, player, summary, today)


@router.get("/{puzzle_id}", response_model=PuzzleView, responses=_ERRORS)
async def given_puzzle(puzzle_id: PuzzleId, player: CurrentPlayer, store: StoreDep) -> PuzzleView:
    """A puzzle you were given (again: after a reload)."""

    def work() -> tuple[PuzzleRow, dict[str, Any]]:
        return store.given_puzzle(player, puzzle_id), store.puzzle_summary(player)

    row, summary = await _asked(store, work)
    return _puzzle(row, player, summary)


@router.post(
    "/{puzzle_id}/view",
    response_model=GameView,
    responses={
        **_ERRORS,
        422: {"model": ErrorResponse, "description": "An illegal action (the rule's code)."},
    },
)
async def puzzle_view(
    puzzle_id: PuzzleId, body: PlanRequest, player: CurrentPlayer, store: StoreDep
) -> GameView:
    """The puzzle's turn after these actions, as a game view (to draw what the player stages;
    nothing is stored). An action that ends the turn is 422 ``plan_ends_turn``: send the plan
    as an attempt."""
    row = await _asked(store, lambda: store.given_puzzle(player, puzzle_id))
    actions: list[Any] = [a.model_dump() for a in body.actions]
    return _view(row, player, _turn(row, player, actions), len(actions))


def best_board(row: PuzzleRow) -> str | None:
    """The board the puzzle's best plan leaves (None: it ends with a REROLL)."""
    plan: list[Any] = row.best
    if plan[-1]["type"] == "reroll":
        return None
    return str(P.play_plan(P.Position.from_dict(row.position), plan).board)


@router.post(
    "/{puzzle_id}/attempts",
    response_model=AttemptView,
    dependencies=[Depends(limit_puzzles)],
    responses={
        **_ERRORS,
        422: {
            "model": ErrorResponse,
            "description": "An illegal plan: the rule's code, plan_unfinished (the plan does "
            "not end the turn) or plan_too_long (actions after its end).",
        },
    },
)
async def attempt(
    request: Request, puzzle_id: PuzzleId, body: PlanRequest, player: CurrentPlayer, store: StoreDep
) -> AttemptView:
    """Your plan for the puzzle's turn (its actions up to CONFIRM, the RUIN, or a REROLL),
    graded: solved when it is the best plan or within ``tolerance`` of its expected final
    score. The first attempt at a puzzle changes your rating and the puzzle's (not in STREAK);
    a second try changes nothing. The answer shows the best plan."""
    actions = [a.model_dump() for a in body.actions]
    row = await _asked(store, lambda: store.given_puzzle(player, puzzle_id))
    pool = request.app.state.coach_pool
    with pool.slot(client_address(request)):
        graded = await pool.run(grade_plan, row.position, row.best_value, actions, row.best)
    renew_deadline()  # the coach's time is not the database's
    if graded[0] == "refused":
        raise ApiError(422, graded[1], graded[2])
    _, yours, solved, board, gave_up = graded
    grade = P.Grade(yours, row.best_value, solved)
    result: AttemptResult = await _asked(
        store, lambda: store.attempt_puzzle(player, row, actions, grade)
    )
    return AttemptView(
        solved=result.solved,
        best=result.best,
        best_board=best_board(row),
        your_board=board,
        expected=Expected(yours=round(result.yours, 1), best=round(result.best_value, 1)),
        tolerance=P.TOLERANCE,
        player_rating=RatingChange(before=round(result.before, 1), after=round(result.after, 1)),
        rated=result.rated,
        puzzle_rating=round(result.puzzle_rating, 1),
        themes=result.themes,
        streak=result.streak,
        differences=gave_up,
    )


# --- the player's side ----------------------------------------------------------------------


async def _search_game(app: Any, store: Store, game_id: str, open_day: Any) -> None:
    """One finished game searched for puzzles in a background process, what it found stored
    (a daily's public puzzles only once its day is over: before ``open_day``)."""

    def load() -> GameRow | None:
        try:
            return store.finished_game(game_id)
        except LookupError:
            return None

    row = await run_store(store, load, budget=10)
    if row is None:
        return
    background: Background = app.state.background
    public, own = await background.process(mine_dicts, row.game, game_id, low=True)

    def save() -> None:
        store.store_mined(
            game_id,
            [P.Puzzle.from_dict(x) for x in public],
            [P.Puzzle.from_dict(x) for x in own],
            open_day,
        )

    await run_store(store, save, budget=10)


async def _search_own(
    app: Any, store: Store, player: int, open_day: Any, hits: list[tuple[str, str]]
) -> None:
    """Search the player's newest finished games not searched yet (in the background), each
    counted against ``hits`` (the player's and the address's searches an hour): the ones
    past them are put off until the player looks again."""
    try:
        found = await run_store(
            store, lambda: store.unmined_games(player, OWN_MINED_AT_ONCE, open_day), budget=10
        )
        limits = app.state.limits
        for game_id, _ in found:
            if limits is not None and await limits.check(hits) is not None:
                return
            await _search_game(app, store, game_id, open_day)
    except Exception:  # the next ask tries again
        log.exception("searching a player's games for puzzles failed")


@me_router.get(
    "/puzzles",
    response_model=PuzzleStatsView,
    responses={429: {"model": ErrorResponse, "description": "Too many requests."}},
)
async def my_puzzles(
    request: Request,
    player: CurrentPlayer,
    store: StoreDep,
    open_from: OpenDay,
    search: Annotated[
        bool,
        Query(
            description="Search your newest finished games for your own puzzles meanwhile "
            "(false: only read; STATISTICS shows the rating, not your puzzles)."
        ),
    ] = True,
) -> PuzzleStatsView:
    """Your puzzle ratings (public and your own games'), the rating's history, and what you
    solved per difficulty. Your newest finished games are searched for your own puzzles
    meanwhile (``own.searching``: ask again in a few seconds), unless ``search`` is false: a
    search takes seconds to a minute of the coach's time a game."""

    def work() -> tuple[dict[str, Any], bool]:
        return store.puzzle_summary(player), bool(store.unmined_games(player, 1, open_from))

    summary, unmined = await run_store(store, work)
    background: Background = request.app.state.background
    key = ("search", player)
    searching = key in background
    if search and unmined and not searching:
        hits = [
            ("searches_per_player", str(player)),
            ("searches_per_address", client_address(request)),
        ]
        try:
            background.submit(
                key,
                lambda: _search_own(request.app, store, player, open_from, hits),
                owners=background_owners(request, player),
                low=True,
            )
            searching = True
        except BackgroundRefused:  # put off: the next look asks again
            pass
    summary["own"]["searching"] = searching
    return PuzzleStatsView.model_validate(summary)


@me_router.get(
    "/games",
    response_model=MyGamesView,
    responses={404: {"model": ErrorResponse, "description": "`before` is not a game of yours."}},
)
async def my_games(
    player: CurrentPlayer,
    store: StoreDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    before: Annotated[str | None, Query(max_length=32, pattern=r"^[^\x00]*$")] = None,
    difficulty: Difficulty | None = None,
) -> MyGamesView:
    """Your finished games, newest first, ``limit`` a page; ``before``: the last game of the
    page before (its ``next``); ``difficulty``: only those."""

    def work() -> tuple[list[Any], str | None]:
        return store.finished_games(player, limit, before, difficulty)

    try:
        found, cursor = await run_store(store, work)
    except LookupError:
        raise ApiError(404, "game_not_found", "`before` names no finished game of yours.") from None
    return MyGamesView(
        games=[MyGameView.model_validate(g.__dict__) for g in found],
        next=cursor,
    )
