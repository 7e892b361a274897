"""Challenges: a finished game's dice offered to friends through a link (store/challenges.py).

A challenge's link is ``/#challenge=CODE``: the code stays in the browser (an address's
fragment is never sent), and the page asks ``GET /api/challenges/{code}``, which names the
challenger, the difficulty and how many have played, never a seed, board, roll or score.
Codes are guessable in principle (ten letters of 31): every request that names one counts
against the address and its network (``links_per_address``, ``links_per_network``), as
transfer codes do.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal, TypeVar

from fastapi import APIRouter, Depends, FastAPI, Request, Response, status
from pydantic import Field
from starlette.convertors import register_url_convertor
from starlette.requests import HTTPConnection

from ...engine import Difficulty
from ...settings import Settings
from ...store import GameNotFound, Store
from ...store.challenges import (
    AlreadyPlayed,
    Challenge,
    ChallengeNotFound,
    NotFinished,
    PlayFirst,
    normal_code,
)
from ..coach_pool import Background, BackgroundRefused
from ..coach_work import play_par
from ..deps import (
    CurrentPlayer,
    KnownPlayer,
    OpenDay,
    PathPattern,
    SettingsDep,
    StoreDep,
    background_owners,
    client_address,
    client_network,
    enforce,
    limit_games,
    link_origin,
    qr_modules,
    run_store,
)
from ..errors import ApiError, error_response
from ..schemas import ErrorResponse, GameConflict, GameView, Strict
from .games import view_response

log = logging.getLogger("magdagdon.challenges")


class CodeConvertor(PathPattern):
    """A challenge's code or a league's id or invite in a path (ten letters, as typed: any
    case, dashes): never one of the resources' own words (``seen``, ``join``, ``invites``),
    so ``/api/leagues/join`` is that path alone, with its own Allow."""

    regex = r"[A-Za-z0-9][A-Za-z0-9-]{9,23}"


register_url_convertor("code", CodeConvertor())

router = APIRouter(prefix="/api/challenges", tags=["challenges"])


class ChallengeCreate(Strict):
    """The finished game whose dice to offer."""

    game_id: str = Field(min_length=1, max_length=64)


class ChallengeLink(Strict):
    """A challenge's code and the link to send."""

    code: str
    url: str
    difficulty: Difficulty
    qr: list[str] = Field(description="The link's QR code: rows of modules, 1 dark, 0 light.")


class ChallengeView(Strict):
    """What a challenge's link shows before playing: no dice, board or score."""

    code: str
    difficulty: Difficulty
    by: str | None = Field(description="The challenger's name (null: no name set).")
    players: int = Field(description="How many have finished it (the challenger not counted).")
    created_at: datetime
    mine: bool = Field(description="You made it.")
    game_id: str | None = Field(description="Your game of it, if you have started one.")


class ResultRowView(Strict):
    """One finished game of the challenge."""

    rank: int
    name: str | None
    score: int
    game_id: str
    turns: int
    powers_used: int
    hints_used: int
    finished_at: datetime
    board: str = Field(description="The finished board (notation).")
    challenger: bool
    mine: bool
    parted_at: int | None = Field(
        description="The first turn (1-based) whose choices differ from the challenger's game."
    )


class ResultsView(Strict):
    """A challenge's table and the coach's score on the same dice."""

    code: str
    difficulty: Difficulty
    by: str | None
    rows: list[ResultRowView]
    coach: int | None = Field(description="The coach's score on these dice (null until known).")
    seed: str = Field(description="The dice's seed (hex): every game here is over or yours.")


class MyChallengeView(Strict):
    """A challenge in my list."""

    code: str
    difficulty: Difficulty
    by: str | None
    role: str = Field(description="made, played or reply (a REMATCH answering mine).")
    players: int
    score: int | None
    game_id: str | None
    status: str | None
    unseen: int
    created_at: datetime


NEWS_ITEMS = 5
"""How many of the news a list names (the counts are whole)."""


class NewsItemView(Strict):
    """One piece of news: a friend finished my challenge, or answered it with a REMATCH."""

    kind: Literal["played", "reply"]
    code: str = Field(description="The challenge: mine, or the REMATCH that answers mine.")
    difficulty: Difficulty
    who: str | None = Field(description="The friend's name (null: they gave none).")
    score: int | None = Field(description="played: the friend's score.")
    against: int | None = Field(description="played: my score on the same dice.")
    at: datetime


class MyChallenges(Strict):
    """My challenges, and how many friends played them since I last looked."""

    challenges: list[MyChallengeView]
    news: int = Field(description="played + replies: what the list holds that I have not seen.")
    played: int = Field(description="Plays of my challenges finished since I last looked.")
    replies: int = Field(
        description="Challenges back to me (REMATCHes) I have not looked at or played."
    )
    items: list[NewsItemView] = Field(
        default_factory=list,
        description=f"The newest {NEWS_ITEMS} of the news, newest first (on every device of "
        "the player's, until one looks: POST /api/challenges/seen).",
    )


class Rematch(Strict):
    """REMATCH: a new game on fresh dice that becomes a challenge back when it ends."""

    abandon: bool = Field(default=False, description="Abandon the unfinished regular game.")


_CODE_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorResponse, "description": "challenge_not_found"},
    429: {"model": ErrorResponse, "description": "Too many codes looked up: see Retry-After."},
}


async def limit_links(request: HTTPConnection) -> None:
    """A code named (a challenge's, an invite's) counts against the address and its network."""
    await enforce(
        request,
        ("links_per_address", client_address(request)),
        ("links_per_network", client_network(request)),
    )


def _not_found(code: str) -> ApiError:
    return ApiError(404, "challenge_not_found", f"There is no challenge {code!r}.")


T = TypeVar("T")


async def _asked(store: Store, work: Callable[[], T], code: str) -> T:
    """The store's answer to ``work``, its refusals as the API's errors."""
    try:
        return await run_store(store, work)
    except ChallengeNotFound:
        raise _not_found(code) from None
    except PlayFirst:
        raise ApiError(
            403, "play_first", "Play the challenge first: its table is for those who have."
        ) from None


def _code(text: str) -> str:
    code = normal_code(text)
    if not code.isalnum() or len(code) > 16:
        raise _not_found(text)
    return code


def _link(request: Request, settings: Settings, found: Challenge) -> ChallengeLink:
    url = f"{link_origin(request, settings)}/#challenge={found.code}"
    return ChallengeLink(code=found.code, url=url, difficulty=found.difficulty, qr=qr_modules(url))


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    response_model=ChallengeLink,
    responses={
        200: {"model": ChallengeLink, "description": "The game's challenge, made before."},
        404: {"model": ErrorResponse, "description": "No such game of yours."},
        409: {
            "model": ErrorResponse,
            "description": "not_finished (the game is not over), daily_not_over (a daily "
            "before its day is over: its dice are everybody's daily).",
        },
    },
)
async def create_challenge(
    body: ChallengeCreate,
    request: Request,
    player: CurrentPlayer,
    store: StoreDep,
    settings: SettingsDep,
    open_from: OpenDay,
) -> Response:
    """Challenge friends to one of your finished games' dice: a link (201; 200 with the same
    link when the game has one already; a challenge's game gives its challenge's link).
    Counted against the player's and the address's challenges an hour (the coach plays each
    challenge's dice)."""
    await enforce(
        request,
        ("challenges_per_player", str(player)),
        ("challenges_per_address", client_address(request)),
    )
    try:
        found, new = await run_store(
            store, lambda: store.create_challenge(player, body.game_id, open_from)
        )
    except GameNotFound:
        raise ApiError(404, "game_not_found", "No such game of yours.") from None
    except NotFinished as exc:
        if exc.daily:
            raise ApiError(
                409,
                "daily_not_over",
                "A daily can be a challenge once its day is over (02:00 UTC the day after): "
                "until then its dice are everybody's daily.",
            ) from None
        raise ApiError(409, "not_finished", "Finish the game first.") from None
    link = _link(request, settings, found)
    code = status.HTTP_201_CREATED if new else status.HTTP_200_OK
    if new:
        start_challenge_par(request.app, found.code, background_owners(request, player))
    return Response(link.model_dump_json(), status_code=code, media_type="application/json")


@router.get("", response_model=MyChallenges)
async def my_challenges(player: CurrentPlayer, store: StoreDep) -> MyChallenges:
    """The challenges I made (with how many played each since I last looked), took, and the
    REMATCHes that answer mine."""
    entries = await run_store(store, lambda: store.my_challenges(player))
    news = await run_store(store, lambda: store.news(player))
    return MyChallenges(
        challenges=[
            MyChallengeView(
                code=e.challenge.code,
                difficulty=e.challenge.difficulty,
                by=e.challenge.by,
                role=e.role,
                players=e.challenge.players,
                score=e.score,
                game_id=e.game_id,
                status=e.status,
                unseen=e.unseen,
                created_at=e.challenge.created_at,
            )
            for e in entries
        ],
        news=len(news),
        played=sum(1 for item in news if item.kind == "played"),
        replies=sum(1 for item in news if item.kind == "reply"),
        items=[
            NewsItemView(
                kind=item.kind,
                code=item.code,
                difficulty=item.difficulty,
                who=item.who,
                score=item.score,
                against=item.against,
                at=item.at,
            )
            for item in news[:NEWS_ITEMS]
        ],
    )


@router.post("/seen", status_code=status.HTTP_204_NO_CONTENT)
async def saw_challenges(player: CurrentPlayer, store: StoreDep) -> Response:
    """I have seen who played my challenges (the news count starts again from none)."""
    await run_store(store, lambda: store.saw_challenges(player))
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get(
    "/{code:code}",
    response_model=ChallengeView,
    responses=_CODE_NOT_FOUND,
    dependencies=[Depends(limit_links)],
)
async def read_challenge(code: str, player: KnownPlayer, store: StoreDep) -> ChallengeView:
    """A challenge as its link shows it: who, the difficulty, how many have played; never a
    seed, board, roll or score."""
    key = _code(code)

    def work() -> tuple[Challenge, str | None]:
        found = store.challenge(key)
        mine = store.challenge_game_of(key, player) if player is not None else None
        return found, mine

    found, game_id = await _asked(store, work, code)
    return ChallengeView(
        code=found.code,
        difficulty=found.difficulty,
        by=found.by,
        players=found.players,
        created_at=found.created_at,
        mine=found.by_player == player,
        game_id=game_id,
    )


@router.post(
    "/{code:code}/games",
    status_code=status.HTTP_201_CREATED,
    response_model=GameView,
    dependencies=[Depends(limit_links), Depends(limit_games)],
    responses={
        **_CODE_NOT_FOUND,
        409: {
            "model": ErrorResponse,
            "description": "already_played, with game_id: your game of it (or yours that it "
            "was made of).",
        },
    },
)
async def play_challenge(code: str, player: CurrentPlayer, store: StoreDep) -> Response:
    """Play the challenge: a new game on the challenger's dice (201, as ``POST /api/games``
    answers). Once only: a second time 409 ``already_played`` with the game's id. The regular
    game in progress is not touched."""
    key = _code(code)

    def work() -> Response:
        return view_response(store.start_challenge(player, key), store, 201)

    try:
        return await _asked(store, work, code)
    except AlreadyPlayed as exc:
        return error_response(
            409,
            "already_played",
            "You have played this challenge (a challenge is played once).",
            game_id=exc.game_id,
        )


@router.get(
    "/{code:code}/results",
    response_model=ResultsView,
    dependencies=[Depends(limit_links)],
    responses={
        **_CODE_NOT_FOUND,
        403: {"model": ErrorResponse, "description": "play_first: finish your game of it."},
    },
)
async def challenge_results(
    code: str, request: Request, player: KnownPlayer, store: StoreDep
) -> ResultsView:
    """The challenge's table, best first (the challenger's game marked), each game's turn
    where it parted from the challenger's, and the coach's score on the same dice: for the
    challenger and for a player whose game of it is over (403 ``play_first`` otherwise)."""
    key = _code(code)
    results = await _asked(store, lambda: store.challenge_results(key, player), code)
    if results.par is None:
        start_challenge_par(request.app, key, background_owners(request, player))
    return ResultsView(
        code=results.challenge.code,
        difficulty=results.challenge.difficulty,
        by=results.challenge.by,
        coach=results.par,
        seed=results.seed.hex(),
        rows=[
            ResultRowView(
                rank=r.rank,
                name=r.name,
                score=r.score,
                game_id=r.game_id,
                turns=r.turns,
                powers_used=r.powers_used,
                hints_used=r.hints_used,
                finished_at=r.finished_at,
                board=r.board,
                challenger=r.challenger,
                mine=r.player_id == player,
                parted_at=r.parted_at,
            )
            for r in results.rows
        ],
    )


@router.post(
    "/{code:code}/rematch",
    status_code=status.HTTP_201_CREATED,
    response_model=GameView,
    dependencies=[Depends(limit_links), Depends(limit_games)],
    responses={
        **_CODE_NOT_FOUND,
        403: {"model": ErrorResponse, "description": "play_first: finish your game of it."},
        409: {
            "model": GameConflict,
            "description": "own_challenge (yours: send its link instead); a regular game in "
            "progress (see abandon).",
        },
    },
)
async def rematch(code: str, body: Rematch, player: CurrentPlayer, store: StoreDep) -> Response:
    """REMATCH: a new regular game on fresh dice of the challenge's difficulty; when it ends
    it becomes a challenge back to the challenger (it is in their list)."""
    key = _code(code)

    def work() -> Response:
        found = store.visible_challenge(key, player)
        if found.by_player == player:
            raise ApiError(409, "own_challenge", "This is your challenge: send its link.")
        row = store.create_game(
            player, found.difficulty, None, abandon=body.abandon, rematch_of=key
        )
        return view_response(row, store, 201)

    return await _asked(store, work, code)


# --- the coach's score on a challenge's dice ------------------------------------------------

RETRY_AFTER = 60.0
"""Seconds before this process computes a challenge's par again (a failure, a restart)."""


def start_challenge_par(app: FastAPI, code: str, owners: list[str]) -> None:
    """Have the coach play the challenge's dice in the background (once per process and
    minute; the first score stored stays, so two workers computing it agree), counted against
    ``owners`` (who asked). Put off, not lost, when the background has no room for them: the
    next look at the results asks again."""
    store: Store = app.state.store
    start_coach_score(
        app,
        ("challenge", code),
        lambda: store.challenge_seed(code),
        lambda par: store.save_challenge_par(code, par),
        owners,
    )


def start_coach_score(
    app: FastAPI,
    key: tuple[str, str],
    dice: Callable[[], tuple[Difficulty, bytes]],
    save: Callable[[int], None],
    owners: list[str],
) -> None:
    """The coach's score on shared dice (a challenge's, a live room's: ``key``) computed in
    the background: ``dice()`` reads their difficulty and seed, ``save(par)`` keeps the score
    (the first stored stays). Once per process and minute; put off, not lost, when the
    background has no room for ``owners``."""
    if not app.state.settings.daily_par:
        return
    asked: dict[tuple[str, str], float] = app.state.challenge_par_asked
    now = time.monotonic()
    if key in asked and now - asked[key] < RETRY_AFTER:
        return
    background: Background = app.state.background
    try:
        task = background.submit(key, lambda: _compute(app, key, dice, save), owners=owners)
    except BackgroundRefused:
        return
    asked[key] = now
    tasks: set[asyncio.Task[None]] = app.state.par_tasks
    tasks.add(task)
    task.add_done_callback(tasks.discard)


async def _compute(
    app: FastAPI,
    key: tuple[str, str],
    dice: Callable[[], tuple[Difficulty, bytes]],
    save: Callable[[int], None],
) -> None:
    store: Store = app.state.store
    background: Background = app.state.background
    try:
        difficulty, seed = await run_store(store, dice, budget=store.db.timeout)
        par = await background.process(play_par, difficulty, seed)
        await run_store(store, lambda: save(par), budget=store.db.timeout)
    except Exception:
        log.exception("the coach's score of %s %s could not be computed", *key)
