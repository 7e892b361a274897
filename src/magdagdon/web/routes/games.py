"""Games: create, resume, read, act, replay, watch."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, cast

from fastapi import APIRouter, Depends, Request, Response, status

from ...engine import Action, Difficulty, Game, Phase
from ...store import GameInProgress, GameRow, GameStatus, Store
from ..deps import (
    CurrentPlayer,
    Now,
    SettingsDep,
    StoreDep,
    finished_game,
    limit_actions,
    limit_games,
    limit_replays,
    refuse_chosen_seed,
    run_store,
)
from ..frames import replay_frames
from ..limits import check_turn_bound
from ..live import room_news
from ..schemas import (
    ActionRequest,
    ErrorResponse,
    FramesView,
    GameConflict,
    GameCreate,
    GameView,
    Replay,
)
from ..view import daily_ref, game_view, past_daily_ref

router = APIRouter(prefix="/api/games", tags=["games"])

_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorResponse, "description": "No such game, or not yours."}
}


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    response_model=GameView,
    dependencies=[Depends(limit_games)],
    responses={
        409: {"model": GameConflict, "description": "A game is in progress (see `abandon`)."},
        422: {"model": ErrorResponse, "description": "Invalid request."},
        429: {"model": ErrorResponse, "description": "Too many new games: see Retry-After."},
    },
)
async def create_game(
    body: GameCreate, player: CurrentPlayer, store: StoreDep, settings: SettingsDep
) -> Response:
    """Start a new game of a difficulty (201). Its dice come from a secret seed on the server.
    With ``resume``, the unfinished regular game instead if there is one (200)."""
    refuse_chosen_seed(body.seed, settings)

    def work() -> Response:
        if body.resume:
            current = store.current_game(player, None)
            if current is not None:
                return view_response(current, store)
        try:
            row = store.create_game(player, body.difficulty, body.seed, abandon=body.abandon)
        except GameInProgress as exc:
            if not body.resume:
                raise
            return view_response(exc.current, store)  # started meanwhile (another tab): that one
        return view_response(row, store, status.HTTP_201_CREATED)

    return await run_store(store, work)


@router.get("/current", response_model=GameView | None)
async def current_game(
    player: CurrentPlayer, store: StoreDep, difficulty: Difficulty | None = None
) -> Response:
    """The player's unfinished game (of that difficulty, if given), to continue after a reload;
    ``null`` when there is none (nothing is wrong then: a first visit has none). A page asks
    for it as it opens, so the answer says, in :data:`NEWS_HEADER`, how much news the player's
    challenges hold (on every device of theirs: GET /api/challenges names it)."""

    def work() -> Response:
        row = store.current_game(player, difficulty)
        if row is None:
            response = Response("null", media_type="application/json")
        else:
            response = view_response(row, store)
        news = len(store.news(player))
        if news:
            response.headers[NEWS_HEADER] = str(news)
        return response

    return await run_store(store, work)


NEWS_HEADER = "X-Magdagdon-News"
"""On ``GET /api/games/current``: the number of things the player's challenges hold that they
have not seen (absent: none)."""


def view_response(row: GameRow, store: Store, status_code: int = 200) -> Response:
    """The game view as JSON (serialised once here: FastAPI need not validate it again); a
    finished game with its places in the high scores, or its par when it is a daily or a past
    daily."""
    places = par = sent_back = None
    if row.status is GameStatus.OVER:
        if row.challenge is not None:
            pass  # a challenge's game: its table is the challenge's (GET .../results)
        elif row.daily is not None:
            par = store.daily_par(row.daily, row.difficulty)
        elif row.past_daily is not None:  # not in the high scores: beside its day's par
            par = store.daily_par(row.past_daily, row.difficulty)
        else:
            places = store.places(row.id)
        if row.rematch_of is not None:
            sent_back = store.challenge_made_of(row.id)
    view = game_view(row, places, par, sent_back)
    return Response(view.model_dump_json(), status_code=status_code, media_type="application/json")


def room_turn(
    store: Store,
    row: GameRow,
    player: int,
    now: datetime,
    ended_by: int | None = None,
    playing: int | None = None,
) -> tuple[GameRow, bool]:
    """A live room's game after an action or a look (``Store.after_room_action``: the open
    turn closed, the next opened and rolled, when due), read again only when that may have
    changed it; whether it did."""
    assert row.room is not None
    if store.after_room_action(row.room, now=now, ended_by=ended_by, playing=playing):
        return store.get_game(row.id, player), True
    return row, False


@router.get("/{game_id}", response_model=GameView, responses=_NOT_FOUND)
async def read_game(
    game_id: str, request: Request, player: CurrentPlayer, store: StoreDep, moment: Now
) -> Response:
    """One of the player's games."""

    def work() -> tuple[Response, str | None]:
        row = store.get_game(game_id, player)
        # a live room's game waiting for its roll: the room's open turn is rolled (or closed,
        # its clock run out) first, so a member reading it after ``turn_opened`` has its dice
        changed = False
        if row.room is not None and row.game.phase is Phase.ROLL:
            row, changed = room_turn(store, row, player, moment)
        return view_response(row, store), row.room if changed else None

    response, changed_room = await run_store(store, work)
    if changed_room is not None:
        room_news(request.app, changed_room)
    return response


@router.post(
    "/{game_id}/actions",
    response_model=GameView,
    dependencies=[Depends(limit_actions)],
    responses={
        **_NOT_FOUND,
        429: {"model": ErrorResponse, "description": "Too many actions: see Retry-After."},
        409: {
            "model": GameConflict,
            "description": "Stale version (the current view is included), a daily game whose "
            "day is over (daily_ended), or a live room's game whose turn is not open "
            "(turn_not_open: the room rolls the dice).",
        },
        422: {"model": ErrorResponse, "description": "Illegal or malformed action."},
    },
)
async def act(
    game_id: str,
    body: ActionRequest,
    request: Request,
    player: CurrentPlayer,
    store: StoreDep,
    moment: Now,
) -> Response:
    """Apply one action to the game at `version`; the engine checks it, all or nothing."""
    action = cast(Action, body.action.model_dump())  # checked by the schema and the engine

    def change(game: Game) -> None:
        check_turn_bound(game, action)
        game.apply(action)

    def work() -> tuple[Response, str | None]:
        row = store.act(game_id, player, body.version, change, now=moment)
        if row.room is None:
            return view_response(row, store), None
        # a live room's game: the turn may close now (and the next open: the room rolls).
        # The room has news only when the action may have made an event (the member ended
        # the turn: member_done; the turn closed): a die staged shows the others nothing, and
        # news of it had every connection's reader read the room again for nothing
        ending = action["type"] in ("confirm", "accept_magdagdon")
        if ending:
            row, changed = room_turn(store, row, player, moment, ended_by=player)
        else:  # (the turn still open for this member: only its deadline can close it)
            row, changed = room_turn(store, row, player, moment, playing=row.game.turns + 1)
        return view_response(row, store), row.room if ending or changed else None

    response, room = await run_store(store, work)
    if room is not None:
        room_news(request.app, room)
    return response


@router.get(
    "/{game_id}/replay",
    response_model=Replay,
    dependencies=[Depends(limit_replays)],
    responses={
        **_NOT_FOUND,
        429: {"model": ErrorResponse, "description": "Too many replays: see Retry-After."},
        409: {
            "model": ErrorResponse,
            "description": "The game is not over, or it is a daily whose day is not over "
            "(daily_not_over): its seed is secret.",
        },
    },
)
async def replay(
    row: Annotated[
        GameRow,
        finished_game("The seed stays secret until the game is over.", daily_owner=False),
    ],
) -> Replay:
    """A finished game's seed and action log: anyone can re-run the engine to check the score."""
    game = row.game
    return Replay(
        id=row.id,
        difficulty=row.difficulty,
        seed=row.seed.hex(),
        actions=[dict(a) for a in game.actions],
        board=str(game.board),
        score=game.score().total,
        turns=game.turns,
        powers_used=game.powers_used,
        finished_at=row.finished_at,
    )


@router.get(
    "/{game_id}/frames",
    response_model=FramesView,
    dependencies=[Depends(limit_replays)],
    responses={
        **_NOT_FOUND,
        429: {"model": ErrorResponse, "description": "Too many replays: see Retry-After."},
        409: {
            "model": ErrorResponse,
            "description": "The game is not over, or it is another player's daily whose day is "
            "not over (daily_not_over).",
        },
    },
)
async def frames(
    row: Annotated[GameRow, finished_game("Watch it once it is over.", daily_owner=True)],
    store: StoreDep,
) -> FramesView:
    """A finished game turn by turn for the replay viewer: each roll, the dice placed in
    their order, powers and RUINS with the running score. Anyone with the link may watch a
    regular game; a daily, its player at once and everyone else once its day is over."""
    name = (await run_store(store, lambda: store.player(row.player_id))).name
    game = row.game
    return FramesView(
        id=row.id,
        difficulty=row.difficulty,
        name=name,
        score=game.score().total,
        turns=game.turns,
        powers_total=game.difficulty.powers,
        daily=daily_ref(row),
        past_daily=past_daily_ref(row),
        frames=replay_frames(row),
    )
