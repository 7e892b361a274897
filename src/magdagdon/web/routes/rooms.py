"""Live rooms (store/rooms.py): make one, join it, start it, read its state and its events,
and follow it live over a WebSocket.

A room's code is a challenge's kind, as hard to guess: a request that names a room that does
not exist counts against the address and its network (``links_per_address``,
``links_per_network``: 429 past them), as a league id that is not the player's does. A room's
members look it up on every turn (a family at one table shares an address), so a room found is
not counted. The room's
clock is the server's: any request that reads a room, and every live connection about once a
second, closes an open turn whose deadline has passed (once, whichever sees it first:
store.rooms). Each event goes to the room's live connections of this process at once
(``web/live.py``); a connection also reads the database every second, so members on other
workers and hosts get every event too, in order, none twice.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Depends, Query, Request, Response, WebSocket, status
from pydantic import BaseModel, Field

from ...engine import Difficulty
from ...store import Store
from ...store.challenges import normal_code
from ...store.rooms import (
    ROOM_SIZE,
    NotRoomGame,
    NotRoomMaker,
    NotRoomMember,
    RoomFull,
    RoomNotFound,
    RoomNotOver,
    RoomStarted,
    RoomState,
)
from ..deps import (
    CurrentPlayer,
    KnownPlayer,
    Now,
    SettingsDep,
    StoreDep,
    background_owners,
    client_address,
    enforce,
    limit_replays,
    link_origin,
    qr_modules,
    refuse_chosen_seed,
    run_store,
)
from ..errors import ApiError
from ..live import follow_room, room_news
from ..schemas import ErrorResponse, Strict
from .challenges import limit_links, start_coach_score

router = APIRouter(prefix="/api/rooms", tags=["rooms"])
T = TypeVar("T")


class RoomCreate(Strict):
    """A new room: its difficulty and its turn clock."""

    difficulty: Difficulty
    clock: Literal[30, 60, 120] | None = Field(
        description="Seconds a turn lasts; null: wait for everyone."
    )
    seed: int | None = Field(
        default=None,
        ge=0,
        le=2**53 - 1,
        description="Test servers only (MAGDAGDON_ALLOW_TEST_SEEDS): the room's dice seed.",
    )


class RoomLink(BaseModel):
    """A room's code and the link that opens it."""

    code: str
    url: str
    qr: list[str] = Field(description="The link as a QR code: rows of 0 and 1.")


class RoomMemberView(BaseModel):
    """A member of a room, as everyone sees them."""

    name: str | None = Field(description="Their display name (text, never HTML).")
    me: bool
    maker: bool
    score: int | None = Field(description="Their total after the last closed turn.")
    done: bool = Field(description="They have ended the open turn (or their game).")
    game_id: str | None = Field(
        description="Their game, once the room is over (its replay; SAME DICE, DIFFERENT "
        "CHOICES: /compare)."
    )
    coached: list[int] = Field(
        description="The turns the coach's fast player ended for them (their clock ran out)."
    )


class RoomView(BaseModel):
    """A room's public state: no roll, no board before its turn closes (those are in the
    events: ``turn_closed``)."""

    code: str
    url: str
    qr: list[str] | None = Field(
        description="The link as a QR code (rows of 0 and 1) while the room waits for its start."
    )
    difficulty: Difficulty
    clock: int | None
    phase: str = Field(description="waiting (for the start), playing, over.")
    turn: int = Field(description="The open (or last) turn, 1-based; 0 before the start.")
    turn_open: bool
    deadline: datetime | None = Field(description="When the open turn closes (a clock's).")
    now: datetime = Field(description="The server's moment (count the time left from it).")
    seq: int = Field(description="The room's last event (resume the events after it).")
    size: int = Field(description="The most players a room has.")
    members: list[RoomMemberView]
    member: bool = Field(description="You play in this room (else you may watch).")
    maker: bool = Field(description="You made it (you start it).")
    game_id: str | None = Field(
        description="Your game in this room once it started (GET /api/games/{id}; its actions "
        "go through POST /api/games/{id}/actions)."
    )
    next: str | None = Field(
        description="PLAY AGAIN: the code of the room its members made to play again, once "
        "this one is over (POST /api/rooms/{code}/again joins it)."
    )
    coach: int | None = Field(
        description="The coach's score on the room's dice, once the room is over (null until "
        "it is computed: ask again)."
    )


class RoomCompareView(BaseModel):
    """SAME DICE, DIFFERENT CHOICES: two games of a finished room (each turn of each is its
    replay's, ``GET /api/games/{id}/frames``)."""

    a: str
    b: str
    parted_at: int | None = Field(
        description="The first turn where the two games parted (another shape left on the "
        "board, or another count of powers used); null: they never did."
    )
    turns: int = Field(description="The turns of the longer game.")


class RoomEventView(BaseModel):
    """One of a room's events, numbered in order."""

    seq: int
    type: str = Field(
        description="member_joined, room_started, turn_opened (turn, deadline), member_done "
        "(player, turn), turn_closed (turn, boards: each member's board, score, over, coached), "
        "room_over (standings), room_again (code: the next room, player: who made it)."
    )
    body: dict[str, Any]
    at: datetime


_ROOM_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorResponse, "description": "room_not_found"},
    429: {"model": ErrorResponse, "description": "Too many codes looked up: see Retry-After."},
}


def _room_code(text: str) -> str | None:
    """The room's code as written in the address, normalised; None when it cannot be one."""
    code = normal_code(text)
    return code if code.isalnum() and len(code) <= 16 else None


async def _code(request: Request, text: str) -> str:
    """The room's code as written in the address, normalised (a code that cannot be one is a
    room not found)."""
    code = _room_code(text)
    if code is None:
        raise await _not_found(request, text)
    return code


def _link(request: Request, settings: Any, code: str) -> RoomLink:
    """A room's code with its link and the link's QR code."""
    url = _url(request, settings, code)
    return RoomLink(code=code, url=url, qr=qr_modules(url))


async def _limit_rooms(request: Request, player: int) -> None:
    """A room made counts against the player's and the address's rooms an hour."""
    await enforce(
        request,
        ("rooms_per_player", str(player)),
        ("rooms_per_address", client_address(request)),
    )


def _answer(model: BaseModel, new: bool) -> Response:
    """``model`` as the answer: 201 when the request made something new, else 200."""
    return Response(
        model.model_dump_json(),
        status_code=status.HTTP_201_CREATED if new else status.HTTP_200_OK,
        media_type="application/json",
    )


async def _not_found(request: Request, code: str) -> ApiError:
    """404 ``room_not_found``, the miss counted as a guessed code (429 past the limits)."""
    await limit_links(request)
    return ApiError(404, "room_not_found", f"There is no room {code!r}.")


def _url(request: Request, settings: Any, code: str) -> str:
    return f"{link_origin(request, settings)}/#room={code}"


def _names(
    names: dict[int, str | None], player: int | None, events: list[Any]
) -> list[RoomEventView]:
    """Events as members read them: each player id named (``name``, from ``names``: the
    members' by id) and, for the asking player, marked ``me``; no id leaves the server."""

    def one(player_id: Any) -> dict[str, Any]:
        return {"name": names.get(player_id), "me": player_id == player}

    shown = []
    for e in events:
        body = dict(e.body)
        for key in ("boards", "standings"):
            if key in body:
                body[key] = [
                    {**{k: v for k, v in b.items() if k != "player"}, **one(b["player"])}
                    for b in body[key]
                ]
        if "player" in body:
            body["player"] = one(body["player"])
        if "players" in body:
            body["players"] = [one(p) for p in body["players"]]
        shown.append(RoomEventView(seq=e.seq, type=e.type, body=body, at=e.at))
    return shown


def room_view(
    request: Request, settings: Any, state: RoomState, player: int | None, now: datetime
) -> RoomView:
    """The room's public state for ``player`` (a member, or anyone watching)."""
    mine = next((m for m in state.members if m.player_id == player), None)
    url = _url(request, settings, state.code)
    return RoomView(
        code=state.code,
        url=url,
        qr=qr_modules(url) if state.phase == "waiting" else None,
        difficulty=state.difficulty,
        clock=state.clock,
        phase=state.phase,
        turn=state.turn,
        turn_open=state.turn_open,
        deadline=state.deadline,
        now=now,
        seq=state.seq,
        size=ROOM_SIZE,
        members=[
            RoomMemberView(
                name=m.name,
                me=m.player_id == player,
                maker=m.player_id == state.maker_id,
                score=m.score,
                done=m.done,
                game_id=m.game_id if state.phase == "over" else None,
                coached=m.coached,
            )
            for m in state.members
        ],
        member=mine is not None,
        maker=player == state.maker_id,
        game_id=mine.game_id if mine is not None else None,
        next=state.next_code,
        coach=state.par,
    )


_REFUSED: dict[type[Exception], tuple[int, str, str]] = {
    RoomFull: (409, "room_full", f"The room has its {ROOM_SIZE} players."),
    RoomStarted: (409, "room_started", "The room has started without you: you may watch it."),
    NotRoomMember: (403, "not_room_member", "Only the room's players play it again."),
    RoomNotOver: (409, "room_not_over", "The room is still being played."),
    NotRoomGame: (404, "game_not_found", "No such game in this room."),
}
"""The store's refusals of joining a room (or its next: PLAY AGAIN), and of comparing two of
its games, as the API's errors."""


async def _joining(request: Request, store: Store, code: str, work: Callable[[], T]) -> T:
    """The store's answer to ``work`` on room ``code`` (joining it or its next, comparing two
    of its games), its refusals as the API's errors."""
    try:
        return await run_store(store, work)
    except RoomNotFound:
        raise await _not_found(request, code) from None
    except tuple(_REFUSED) as exc:
        status_code, error, message = _REFUSED[type(exc)]
        raise ApiError(status_code, error, message) from None


async def _state(request: Request, store: Store, code: str, now: datetime) -> RoomState:
    """The room as it stands now, an overdue turn closed first."""

    def work() -> RoomState:
        store.after_room_action(code, now=now)
        return store.room(code)

    try:
        return await run_store(store, work)
    except RoomNotFound:
        raise await _not_found(request, code) from None


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    response_model=RoomLink,
    responses={429: {"model": ErrorResponse, "description": "Too many rooms: see Retry-After."}},
)
async def create_room(
    body: RoomCreate,
    request: Request,
    player: CurrentPlayer,
    store: StoreDep,
    settings: SettingsDep,
    moment: Now,
) -> RoomLink:
    """Make a room (you are its first member): its code and link. Counted against the
    player's and the address's rooms an hour."""
    refuse_chosen_seed(body.seed, settings)
    await _limit_rooms(request, player)
    code = await run_store(
        store,
        lambda: store.create_room(player, body.difficulty, body.clock, now=moment, seed=body.seed),
    )
    return _link(request, settings, code)


@router.get("/{code}", response_model=RoomView, responses=_ROOM_ERRORS)
async def read_room(
    code: str,
    request: Request,
    player: KnownPlayer,
    store: StoreDep,
    settings: SettingsDep,
    moment: Now,
) -> RoomView:
    """A room's public state: its members (names, scores after the last closed turn, who has
    ended the open turn), phase, turn and clock; your own game once it started; once it is
    over, the coach's score on its dice (computed in the background when first asked)."""
    state = await _state(request, store, await _code(request, code), moment)
    if state.phase == "over" and state.par is None:
        found = state.code
        start_coach_score(
            request.app,
            ("room", found),
            lambda: store.room_seed(found),
            lambda par: store.save_room_par(found, par),
            background_owners(request, player),
        )
    return room_view(request, settings, state, player, moment)


@router.post(
    "/{code}/members",
    status_code=status.HTTP_201_CREATED,
    response_model=RoomView,
    responses={
        **_ROOM_ERRORS,
        200: {"model": RoomView, "description": "A member already."},
        409: {
            "model": ErrorResponse,
            "description": f"room_full ({ROOM_SIZE} players), room_started (you may watch).",
        },
    },
)
async def join_room(
    code: str,
    request: Request,
    player: CurrentPlayer,
    store: StoreDep,
    settings: SettingsDep,
    moment: Now,
) -> Response:
    """Join a room before it starts (201; 200 for a member already)."""
    code = await _code(request, code)
    new = await _joining(request, store, code, lambda: store.join_room(code, player, now=moment))
    room_news(request.app, code)
    view = room_view(request, settings, await _state(request, store, code, moment), player, moment)
    return _answer(view, new)


@router.post(
    "/{code}/start",
    response_model=RoomView,
    responses={
        **_ROOM_ERRORS,
        403: {"model": ErrorResponse, "description": "not_room_maker"},
        409: {"model": ErrorResponse, "description": "room_started"},
    },
)
async def start_room(
    code: str,
    request: Request,
    player: CurrentPlayer,
    store: StoreDep,
    settings: SettingsDep,
    moment: Now,
) -> RoomView:
    """The maker starts the room: every member gets a game on the room's dice, and the first
    turn opens (the room rolls every member's dice at once)."""
    code = await _code(request, code)
    try:
        await run_store(store, lambda: store.start_room(code, player, now=moment))
    except RoomNotFound:
        raise await _not_found(request, code) from None
    except NotRoomMaker:
        raise ApiError(403, "not_room_maker", "Only the room's maker starts it.") from None
    except RoomStarted:
        raise ApiError(409, "room_started", "The room has started already.") from None
    room_news(request.app, code)
    state = await _state(request, store, code, moment)
    return room_view(request, settings, state, player, moment)


@router.post(
    "/{code}/again",
    status_code=status.HTTP_201_CREATED,
    response_model=RoomLink,
    responses={
        **_ROOM_ERRORS,
        200: {"model": RoomLink, "description": "Joined the room another member made."},
        403: {"model": ErrorResponse, "description": "not_room_member"},
        409: {
            "model": ErrorResponse,
            "description": "room_not_over; from the next room: room_started, room_full.",
        },
    },
)
async def play_again(
    code: str,
    request: Request,
    player: CurrentPlayer,
    store: StoreDep,
    settings: SettingsDep,
    moment: Now,
) -> Response:
    """PLAY AGAIN once the room is over: new dice, the same difficulty and clock, the same
    friends. The first member to ask makes the next room (201; a ``room_again`` event tells
    the others its code); the others join it (200). Counted against the rooms made an
    hour."""
    code = await _code(request, code)
    await _limit_rooms(request, player)
    again, made = await _joining(
        request, store, code, lambda: store.play_again(code, player, now=moment)
    )
    room_news(request.app, code)
    room_news(request.app, again)
    return _answer(_link(request, settings, again), made)


_GAME_ID = Query(
    min_length=1,
    max_length=64,
    pattern=r"^[^\x00]*$",  # (a NUL in a query: refused, NulPathMiddleware)
    description="The game of a member (its game_id).",
)


@router.get(
    "/{code}/compare",
    response_model=RoomCompareView,
    dependencies=[Depends(limit_replays)],  # two games replayed, as a replay's
    responses={
        404: {"model": ErrorResponse, "description": "room_not_found; game_not_found."},
        409: {"model": ErrorResponse, "description": "room_not_over"},
        429: {"model": ErrorResponse, "description": "Too many looks: see Retry-After."},
    },
)
async def compare(
    code: str,
    request: Request,
    store: StoreDep,
    a: Annotated[str, _GAME_ID],
    b: Annotated[str, _GAME_ID],
) -> RoomCompareView:
    """SAME DICE, DIFFERENT CHOICES for any two players of a finished room: where their games
    parted (challenges' rule). Anyone with the room's code may look, once it is over."""
    code = await _code(request, code)
    parted, turns = await _joining(request, store, code, lambda: store.room_parting(code, a, b))
    return RoomCompareView(a=a, b=b, parted_at=parted, turns=turns)


@router.get(
    "/{code}/events",
    response_model=list[RoomEventView],
    responses=_ROOM_ERRORS,
)
async def room_events(
    code: str,
    request: Request,
    player: KnownPlayer,
    store: StoreDep,
    moment: Now,
    since: Annotated[
        int, Query(ge=0, le=2**31 - 1, description="The last event seen (0: from the first).")
    ] = 0,
) -> list[RoomEventView]:
    """The room's events after ``since``, in order (at most 200 an answer: ask again from the
    last)."""
    code = await _code(request, code)
    state = await _state(request, store, code, moment)
    events = await run_store(store, lambda: store.room_events(code, since))
    return _names({m.player_id: m.name for m in state.members}, player, events)


@router.websocket("/{code}/live")
async def live(websocket: WebSocket, code: str) -> None:
    """The room's events as they happen, as JSON (``RoomEventView``): from the first, or after
    event ``n`` with ``?since=n`` (a reconnection); ``{"since": n}`` sent on the connection goes
    back to after event ``n``. The connection also closes an overdue turn (the clock)."""
    # a room not found counts as a guessed code (limit_links)
    await follow_room(websocket, _room_code(code), _names, partial(limit_links, websocket))
