"""Private leagues: friends' daily scores week by week (store/leagues.py).

An invite's link is ``/#league=INVITE``; like a challenge's code, every request naming an
invite counts against the address and its network. Members are accounts: a player who has
not saved their games is asked to (403 ``account_needed``), as the daily's ranking does.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Query, Request, Response, status
from pydantic import Field

from ...engine import Difficulty
from ...store import Store
from ...store.challenges import normal_code
from ...store.leagues import (
    COUNTED_DAYS,
    LEAGUES_PER_PLAYER,
    MEMBERS_PER_LEAGUE,
    AccountNeeded,
    League,
    LeagueLimit,
    LeagueNotFound,
    NotAMember,
    NotTheCreator,
    week_days,
    week_of,
)
from ..deps import (
    CurrentPlayer,
    OpenDay,
    SettingsDep,
    StoreDep,
    Today,
    link_origin,
    qr_modules,
    run_store,
)
from ..errors import ApiError
from ..schemas import ErrorResponse, NameUpdate, Strict
from .challenges import limit_links

router = APIRouter(prefix="/api/leagues", tags=["leagues"])


class LeagueCreate(NameUpdate):
    """A new league: its name (the rules of players' names) and the daily it plays."""

    difficulty: Difficulty


class LeagueJoin(Strict):
    """The invite's code (from its link)."""

    invite: str = Field(
        min_length=1,
        max_length=32,
        pattern=r"^[A-Za-z0-9 -]+$",
        description="The invite's code as typed (any case; spaces and dashes are ignored).",
    )


class LeagueView(Strict):
    """A league of mine."""

    id: str
    name: str
    difficulty: Difficulty
    invite: str
    url: str = Field(description="The invite's link (anybody with it and an account may join).")
    members: int
    creator: bool = Field(description="You made it (or it passed to you).")
    created_at: datetime


class InviteView(Strict):
    """What an invite shows before joining."""

    name: str
    difficulty: Difficulty
    members: int
    by: str | None


class MemberView(Strict):
    """A member's line in the week's table."""

    member: str = Field(description="The member's id in this league.")
    name: str | None
    creator: bool
    mine: bool
    scores: list[int | None] = Field(description="Monday to Sunday: the daily's score, or null.")
    total: int = Field(description=f"The sum of the best {COUNTED_DAYS} days.")
    days: int
    rank: int
    streak: int = Field(description="Days in a row with this daily finished, up to today.")


class TableView(Strict):
    """A league's week."""

    league: LeagueView
    week: str
    days: list[date]
    previous_week: str
    next_week: str | None
    members: list[MemberView]
    last_week_winners: list[str | None]
    counted_days: int
    today: date = Field(description="Today (UTC): the day a phone's compact table shows.")
    heir: str | None = Field(
        default=None,
        description="The member who takes the creator's part if the creator leaves (the one "
        "who joined first after them).",
    )
    handed_from: str | None = Field(
        default=None,
        description="For the creator, within a week of the hand-over: the name of the creator "
        'who left ("" for one without a name); else null.',
    )
    invite_qr: list[str] = Field(description="The invite link's QR code (rows of modules).")


_LIMITS: dict[int | str, dict[str, Any]] = {
    403: {"model": ErrorResponse, "description": "account_needed: save your games first."},
    409: {
        "model": ErrorResponse,
        "description": f"too_many_leagues ({LEAGUES_PER_PLAYER} a player), league_full "
        f"({MEMBERS_PER_LEAGUE} members).",
    },
}


def _view(request: Request, settings: Any, league: League) -> LeagueView:
    origin = link_origin(request, settings)
    return LeagueView(
        id=league.id,
        name=league.name,
        difficulty=league.difficulty,
        invite=league.invite,
        url=f"{origin}/#league={league.invite}",
        members=league.members,
        creator=league.creator,
        created_at=league.created_at,
    )


def _refusal(exc: Exception) -> ApiError:
    if isinstance(exc, AccountNeeded):
        return ApiError(
            403,
            "account_needed",
            "Leagues are for saved games: save your games with a passkey or a transfer code "
            "first (a league's table names its members).",
        )
    if isinstance(exc, LeagueLimit):
        if exc.what == "members_per_league":
            return ApiError(
                409, "league_full", f"A league has {MEMBERS_PER_LEAGUE} members at most."
            )
        return ApiError(
            409, "too_many_leagues", f"A player is in {LEAGUES_PER_PLAYER} leagues at most."
        )
    # a league that is not the player's is answered as one that does not exist: the answer
    # does not tell a real id from a guessed one
    if isinstance(exc, NotTheCreator):
        return ApiError(403, "not_the_creator", "Only the league's creator may do this.")
    return ApiError(404, "league_not_found", "There is no such league (or the invite was renewed).")


_REFUSED = (AccountNeeded, LeagueLimit, NotAMember, NotTheCreator, LeagueNotFound)
T = TypeVar("T")


async def _asked(store: Store, work: Callable[[], T], request: Request | None = None) -> T:
    """The store's answer to ``work``, its refusals as the API's errors. With ``request``, a
    league id that names no league of the player's counts against the address's and the
    network's codes looked up (``limit_links``: 429 past them), as a guessed code does."""
    try:
        return await run_store(store, work)
    except _REFUSED as exc:
        refusal = _refusal(exc)
        if request is not None and refusal.code == "league_not_found":
            await limit_links(request)
        raise refusal from None


@router.post("", status_code=status.HTTP_201_CREATED, response_model=LeagueView, responses=_LIMITS)
async def create_league(
    body: LeagueCreate,
    request: Request,
    player: CurrentPlayer,
    store: StoreDep,
    settings: SettingsDep,
) -> LeagueView:
    """A new league: you are its first member; send its invite link to friends."""
    league = await _asked(store, lambda: store.create_league(player, body.name, body.difficulty))
    return _view(request, settings, league)


@router.get("", response_model=list[LeagueView])
async def my_leagues(
    request: Request, player: CurrentPlayer, store: StoreDep, settings: SettingsDep
) -> list[LeagueView]:
    """The leagues I am in, the newest joined first."""
    found = await run_store(store, lambda: store.my_leagues(player))
    return [_view(request, settings, league) for league in found]


@router.get(
    "/invites/{invite:code}",
    response_model=InviteView,
    dependencies=[Depends(limit_links)],
    responses={404: {"model": ErrorResponse, "description": "league_not_found"}},
)
async def read_invite(invite: str, store: StoreDep) -> InviteView:
    """What an invite's link shows before joining: the league's name, daily and members."""
    found = await _asked(store, lambda: store.invite(normal_code(invite)))
    return InviteView(
        name=found.name, difficulty=found.difficulty, members=found.members, by=found.by
    )


@router.post(
    "/join",
    response_model=LeagueView,
    dependencies=[Depends(limit_links)],
    responses={**_LIMITS, 404: {"model": ErrorResponse, "description": "league_not_found"}},
)
async def join_league(
    body: LeagueJoin,
    request: Request,
    player: CurrentPlayer,
    store: StoreDep,
    settings: SettingsDep,
) -> LeagueView:
    """Join the invite's league (a member already: the league as it is)."""
    league = await _asked(store, lambda: store.join_league(player, normal_code(body.invite)))
    return _view(request, settings, league)


WEEK = Query(pattern=r"^\d{4}-W\d{2}$", description="The ISO week, YYYY-Www.")


@router.get(
    "/{league_id:code}",
    response_model=TableView,
    responses={
        404: {
            "model": ErrorResponse,
            "description": "league_not_found (no such league, or not yours: alike), week_not_found",
        },
        429: {"model": ErrorResponse, "description": "Too many leagues not found."},
    },
)
async def league_table(
    league_id: str,
    request: Request,
    player: CurrentPlayer,
    store: StoreDep,
    settings: SettingsDep,
    today: Today,
    open_from: OpenDay,
    week: Annotated[str | None, WEEK] = None,
) -> TableView:
    """The league's table of a week (this week by default): each member's daily scores day
    by day, the week's standing (the best five days count), streaks and last week's winner."""
    chosen = week or week_of(today)
    try:
        days = week_days(chosen)
    except ValueError:
        raise ApiError(404, "week_not_found", f"There is no week {chosen!r}.") from None
    if days[0] > today:
        raise ApiError(404, "week_not_found", "That week has not begun.")
    table = await _asked(
        store, lambda: store.league_table(player, league_id, chosen, today, open_from), request
    )
    following = week_of(days[-1] + timedelta(days=1))
    league = _view(request, settings, table.league)
    return TableView(
        league=league,
        invite_qr=qr_modules(league.url),
        week=table.week,
        days=table.days,
        previous_week=table.last_week,
        next_week=following if days[-1] < today else None,
        members=[
            MemberView(
                member=m.member,
                name=m.name,
                creator=m.creator,
                mine=m.mine,
                scores=m.scores,
                total=m.total,
                days=m.days,
                rank=m.rank,
                streak=m.streak,
            )
            for m in table.members
        ],
        last_week_winners=table.last_week_winners,
        counted_days=COUNTED_DAYS,
        today=today,
        heir=table.heir,
        handed_from=table.handed_from,
    )


@router.post(
    "/{league_id:code}/invite",
    response_model=LeagueView,
    responses={
        403: {"model": ErrorResponse, "description": "not_the_creator"},
        404: {"model": ErrorResponse, "description": "league_not_found"},
    },
)
async def renew_invite(
    league_id: str,
    request: Request,
    player: CurrentPlayer,
    store: StoreDep,
    settings: SettingsDep,
) -> LeagueView:
    """A new invite link (the creator's): the old one joins nobody from now on."""
    league = await _asked(store, lambda: store.renew_invite(player, league_id), request)
    return _view(request, settings, league)


@router.delete(
    "/{league_id:code}/members/me",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={404: {"model": ErrorResponse, "description": "Not a league's id."}},
)
async def leave_league(league_id: str, player: CurrentPlayer, store: StoreDep) -> Response:
    """Leave the league (its creator's part passes to the member who joined first; the last
    to leave ends it)."""
    await run_store(store, lambda: store.leave_league(player, league_id))
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.delete(
    "/{league_id:code}/members/{member}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={
        403: {"model": ErrorResponse, "description": "not_the_creator"},
        404: {"model": ErrorResponse, "description": "league_not_found, member_not_found"},
    },
)
async def remove_member(
    league_id: str, member: str, request: Request, player: CurrentPlayer, store: StoreDep
) -> Response:
    """The creator removes a member (by the id the table gives)."""
    gone = await _asked(store, lambda: store.remove_member(player, league_id, member), request)
    if not gone:
        raise ApiError(404, "member_not_found", "No such member of this league.")
    return Response(status_code=status.HTTP_204_NO_CONTENT)
