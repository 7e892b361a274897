"""Private leagues: friends' daily scores in one table, week by week.

A league has a name (the rules of players' names), one difficulty, a creator and an invite
code (:func:`~.challenges.new_code`); whoever has the invite and an account (a player who
saved their games: a league's table names its members) may join. The creator renews the
invite (the old link dies at once) and removes members; anybody may leave, and a creator
who leaves hands the league to the member who joined first (the last to leave ends it).

The table of an ISO week (Monday to Sunday, UTC days): each member's score on each day's
daily of the league's difficulty, and the week's standing, the sum of each member's best
:data:`COUNTED_DAYS` days (a missed day scores nothing, and each member may miss two without
losing anything: nobody is behind for a day of rest); ties share a rank. Each member's
streak is the days in a row with that daily finished, up to today (or yesterday, before
today's is played). Joining takes the league's row first (``FOR UPDATE`` on PostgreSQL,
SQLite has one writer), as renewing the invite does, so a join racing a renewal either joins
with the old invite or is refused, and the member limit holds.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select, update

from ..engine import Difficulty
from .challenges import new_code, shared_ranks
from .db import Database
from .highscores import aware
from .models import daily_results, league_members, leagues, players, utcnow
from .stats import streak_end

LEAGUES_PER_PLAYER = 20
"""Leagues a player may be in (made or joined)."""
MEMBERS_PER_LEAGUE = 50
"""Members a league may have."""
COUNTED_DAYS = 5
"""A week's standing is the sum of each member's best this many days."""
STREAK_DAYS = 400
"""How far back a streak is counted."""
HANDED_OVER_SAID = timedelta(days=7)
"""How long a new creator's table says whose part passed to them."""


class LeagueNotFound(LookupError):
    """No such league (or invite)."""


class NotAMember(Exception):
    """The league's table asked by somebody not in it."""


class NotTheCreator(Exception):
    """Only the league's creator may do this."""


class AccountNeeded(Exception):
    """A league's members are accounts: save your games first."""


class LeagueLimit(Exception):
    """Too many leagues for the player, or members for the league."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


@dataclass(frozen=True)
class League:
    """A league as its members see it."""

    id: str
    name: str
    difficulty: Difficulty
    invite: str
    created_at: datetime
    members: int
    creator: bool
    """Whether the asking player made it (and may renew the invite, remove members)."""


@dataclass(frozen=True)
class Invite:
    """What an invite's link shows before joining."""

    name: str
    difficulty: Difficulty
    members: int
    by: str | None


@dataclass(frozen=True)
class Member:
    """A member's line in a week's table."""

    member: str
    """An id of the member in this league (not the player's id)."""
    name: str | None
    creator: bool
    mine: bool
    scores: list[int | None]
    """The week's seven days, Monday first (None: not played)."""
    total: int
    days: int
    rank: int
    streak: int


@dataclass(frozen=True)
class Table:
    """A league's week."""

    league: League
    week: str
    days: list[date]
    members: list[Member]
    last_week: str
    last_week_winners: list[str | None]
    heir: str | None = None
    """The member (their id in the table) who takes the creator's part if the creator leaves:
    the one who joined first after them."""
    handed_from: str | None = None
    """For the creator, within a week of becoming it: the name of the creator who left ("" for
    one without a name); else None."""


def week_of(day: date) -> str:
    """The ISO week of a day, ``YYYY-Www``."""
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def week_days(week: str) -> list[date]:
    """The seven days of an ISO week ``YYYY-Www``, Monday first; ValueError if it is not one,
    or if the week before or after it is not a date (years 1 and 9999: a table names both)."""
    year = int(week[:4])
    if not 1 < year < 9999:
        raise ValueError(week)
    monday = date.fromisocalendar(year, int(week[6:]), 1)
    if len(week) != 8 or week[4:6] != "-W" or week_of(monday) != week:
        raise ValueError(week)
    return [monday + timedelta(days=n) for n in range(7)]


def member_id(league_id: str, player_id: int) -> str:
    """A member's id in one league: the same player is another id in another league."""
    return hashlib.sha256(f"{league_id}:{player_id}".encode()).hexdigest()[:12]


def standing(scores: list[int | None]) -> int:
    """A week's total: the best :data:`COUNTED_DAYS` days' scores."""
    played = sorted((s for s in scores if s is not None), reverse=True)
    return sum(played[:COUNTED_DAYS])


class Leagues:
    """The store's operations on leagues (part of :class:`~magdagdon.store.Store`)."""

    db: Database

    def create_league(self, player_id: int, name: str, difficulty: Difficulty) -> League:
        """A new league made by the player (an account), who is its first member."""
        league_id = new_code()
        with self.db.transaction(write=True) as c:
            self._may_join(c, player_id)
            c.execute(
                insert(leagues).values(
                    id=league_id,
                    name=name,
                    difficulty=difficulty.value,
                    invite=new_code(),
                    player_id=player_id,
                    created_at=utcnow(),
                )
            )
            c.execute(
                insert(league_members).values(
                    league_id=league_id, player_id=player_id, joined_at=utcnow()
                )
            )
            return self._league(c, league_id, player_id)

    @staticmethod
    def _may_join(c: Connection, player_id: int) -> None:
        # the player's row decides: locked (PostgreSQL; SQLite has one writer), so that two
        # creates or joins racing on two workers count each other's league (the limit holds)
        _lock(c, players, players.c.id == player_id)
        if c.scalar(select(players.c.account_since).where(players.c.id == player_id)) is None:
            raise AccountNeeded
        mine = c.scalar(
            select(func.count())
            .select_from(league_members)
            .where(league_members.c.player_id == player_id)
        )
        if int(mine or 0) >= LEAGUES_PER_PLAYER:
            raise LeagueLimit("leagues_per_player")

    @staticmethod
    def _league(c: Connection, league_id: str, player_id: int | None) -> League:
        record = c.execute(select(leagues).where(leagues.c.id == league_id)).first()
        if record is None:
            raise LeagueNotFound(league_id)
        count = c.scalar(
            select(func.count())
            .select_from(league_members)
            .where(league_members.c.league_id == league_id)
        )
        return League(
            id=record.id,
            name=record.name,
            difficulty=Difficulty(record.difficulty),
            invite=record.invite,
            created_at=aware(record.created_at),
            members=int(count or 0),
            creator=record.player_id == player_id,
        )

    def invite(self, invite: str) -> Invite:
        """What an invite's link shows; :class:`LeagueNotFound` for a wrong or renewed one."""
        with self.db.transaction() as c:
            record = c.execute(
                select(leagues, players.c.name.label("by"))
                .join(players, players.c.id == leagues.c.player_id)
                .where(leagues.c.invite == invite)
            ).first()
            if record is None:
                raise LeagueNotFound(invite)
            count = c.scalar(
                select(func.count())
                .select_from(league_members)
                .where(league_members.c.league_id == record.id)
            )
        return Invite(record.name, Difficulty(record.difficulty), int(count or 0), record.by)

    def join_league(self, player_id: int, invite: str) -> League:
        """Join the league of this invite (a member already: the league as it is)."""
        with self.db.transaction(write=True) as c:
            # locks in one order everywhere: the player's row, then the league's
            _lock(c, players, players.c.id == player_id)
            query = select(leagues.c.id).where(leagues.c.invite == invite)
            if c.dialect.name == "postgresql":
                query = query.with_for_update()
            league_id = c.scalar(query)
            if league_id is None:
                raise LeagueNotFound(invite)
            already = c.scalar(
                select(league_members.c.player_id).where(
                    league_members.c.league_id == league_id,
                    league_members.c.player_id == player_id,
                )
            )
            if already is None:
                self._may_join(c, player_id)
                count = c.scalar(
                    select(func.count())
                    .select_from(league_members)
                    .where(league_members.c.league_id == league_id)
                )
                if int(count or 0) >= MEMBERS_PER_LEAGUE:
                    raise LeagueLimit("members_per_league")
                c.execute(
                    insert(league_members).values(
                        league_id=league_id, player_id=player_id, joined_at=utcnow()
                    )
                )
            return self._league(c, league_id, player_id)

    def my_leagues(self, player_id: int) -> list[League]:
        """The leagues the player is in, the newest joined first."""
        with self.db.transaction() as c:
            ids = (
                c.execute(
                    select(league_members.c.league_id)
                    .where(league_members.c.player_id == player_id)
                    .order_by(league_members.c.joined_at.desc(), league_members.c.league_id)
                )
                .scalars()
                .all()
            )
            return [self._league(c, league_id, player_id) for league_id in ids]

    def _member_league(self, c: Connection, league_id: str, player_id: int) -> League:
        league = self._league(c, league_id, player_id)
        if not c.scalar(
            select(func.count())
            .select_from(league_members)
            .where(league_members.c.league_id == league_id, league_members.c.player_id == player_id)
        ):
            raise NotAMember(league_id)
        return league

    def renew_invite(self, player_id: int, league_id: str) -> League:
        """A new invite for the league (its creator only): the old one no longer joins."""
        with self.db.transaction(write=True) as c:
            league = self._member_league(c, league_id, player_id)
            if not league.creator:
                raise NotTheCreator(league_id)
            c.execute(update(leagues).where(leagues.c.id == league_id).values(invite=new_code()))
            return self._league(c, league_id, player_id)

    def leave_league(self, player_id: int, league_id: str) -> None:
        """The player leaves (their creator's part goes to the member who joined first; the
        last member to leave ends the league). Leaving a league one is not in does nothing."""
        with self.db.transaction(write=True) as c:
            _leave(c, league_id, player_id)

    def remove_member(self, player_id: int, league_id: str, member: str) -> bool:
        """The creator removes a member (by the id in the table); whether one went."""
        with self.db.transaction(write=True) as c:
            league = self._member_league(c, league_id, player_id)
            if not league.creator:
                raise NotTheCreator(league_id)
            ids = c.execute(
                select(league_members.c.player_id).where(league_members.c.league_id == league_id)
            ).scalars()
            for other in ids:
                if member_id(league_id, other) == member and other != player_id:
                    _leave(c, league_id, other)
                    return True
        return False

    def league_table(
        self, player_id: int, league_id: str, week: str, today: date, open_day: date | None = None
    ) -> Table:
        """The league's table of an ISO week, for a member (:class:`NotAMember`); a streak
        ends today or before the days still to play (``open_day``: :func:`.stats.streak_end`)."""
        days = week_days(week)
        with self.db.transaction() as c:
            league = self._member_league(c, league_id, player_id)
            creator, handed_from, handed_at = c.execute(
                select(leagues.c.player_id, leagues.c.handed_from, leagues.c.handed_at).where(
                    leagues.c.id == league_id
                )
            ).one()
            rows = c.execute(
                select(players.c.id, players.c.name, league_members.c.joined_at)
                .join(league_members, league_members.c.player_id == players.c.id)
                .where(league_members.c.league_id == league_id)
                .order_by(league_members.c.joined_at, players.c.id)
            ).all()
            ids = [r.id for r in rows]
            first = min(days[0] - timedelta(days=7), today - timedelta(days=STREAK_DAYS))
            results = c.execute(
                select(daily_results.c.player_id, daily_results.c.day, daily_results.c.score).where(
                    daily_results.c.player_id.in_(ids),
                    daily_results.c.difficulty == league.difficulty.value,
                    daily_results.c.day >= first.isoformat(),
                    daily_results.c.day <= max(days[-1], today).isoformat(),
                )
            ).all()
        scored: dict[tuple[int, date], int] = {}
        for r in results:
            key = (r.player_id, date.fromisoformat(r.day))
            scored[key] = max(scored.get(key, r.score), r.score)
        previous = [d - timedelta(days=7) for d in days]
        last = [(standing([scored.get((p, d)) for d in previous]), p) for p in ids]
        best = max((total for total, _ in last), default=0)
        names = {r.id: r.name for r in rows}
        winners = [names[p] for total, p in last if best > 0 and total == best]
        members: list[Member] = []
        for r in rows:
            scores = [scored.get((r.id, d)) for d in days]
            played = {d for p, d in scored if p == r.id}
            streak, day = 0, streak_end(played, today, open_day)
            while (r.id, day) in scored:
                streak, day = streak + 1, day - timedelta(days=1)
            members.append(
                Member(
                    member=member_id(league_id, r.id),
                    name=r.name,
                    creator=r.id == creator,
                    mine=r.id == player_id,
                    scores=scores,
                    total=standing(scores),
                    days=sum(1 for s in scores if s is not None),
                    rank=0,
                    streak=streak,
                )
            )
        members.sort(key=lambda m: (-m.total, -m.days))
        ranks = shared_ranks([m.total for m in members])
        ranked = [replace(m, rank=rank) for m, rank in zip(members, ranks, strict=True)]
        heir = next((member_id(league_id, r.id) for r in rows if r.id != creator), None)
        told = (
            handed_from
            if creator == player_id
            and handed_at is not None
            and utcnow() - aware(handed_at) < HANDED_OVER_SAID
            else None
        )
        return Table(league, week, days, ranked, week_of(previous[0]), winners, heir, told)


def _lock(c: Connection, table: Any, where: Any) -> None:
    """Lock the rows ``where`` of ``table`` until the transaction ends (PostgreSQL's ``FOR NO
    KEY UPDATE``: two such locks wait for each other, but a foreign key's check, ``FOR KEY
    SHARE``, does not wait for it, so a league handed to a member who is joining another at
    that moment does not deadlock; SQLite's write transactions hold the whole database)."""
    if c.dialect.name == "postgresql":
        key = table.c[next(iter(table.primary_key)).name]
        c.execute(select(key).where(where).with_for_update(key_share=True))


def _leave(c: Connection, league_id: str, player_id: int) -> None:
    """One member leaves (the caller's transaction): the creator's part passes on, the
    league ends with its last member. The league's row is locked first, so two members
    leaving at once (the creator and the heir, the last two) hand it over one after the
    other: its creator is always a member, and the last to leave ends it."""
    _lock(c, leagues, leagues.c.id == league_id)
    gone = c.execute(
        delete(league_members).where(
            league_members.c.league_id == league_id, league_members.c.player_id == player_id
        )
    ).rowcount
    if not gone:
        return
    creator = c.scalar(select(leagues.c.player_id).where(leagues.c.id == league_id))
    if creator != player_id:
        return
    heir = c.scalar(
        select(league_members.c.player_id)
        .where(league_members.c.league_id == league_id)
        .order_by(league_members.c.joined_at, league_members.c.player_id)
        .limit(1)
    )
    if heir is None:
        c.execute(delete(leagues).where(leagues.c.id == league_id))
    else:
        name = c.scalar(select(players.c.name).where(players.c.id == player_id))
        c.execute(
            update(leagues)
            .where(leagues.c.id == league_id)
            .values(player_id=heir, handed_from=name or "", handed_at=utcnow())
        )


def leave_every_league(c: Connection, player_id: int) -> None:
    """The player leaves all their leagues (their data is deleted: the caller's transaction)."""
    ids = (
        c.execute(select(league_members.c.league_id).where(league_members.c.player_id == player_id))
        .scalars()
        .all()
    )
    for league_id in ids:
        _leave(c, league_id, player_id)
    # a league whose creator is gone but is not a member (cannot happen, but never orphaned)
    for league_id in (
        c.execute(select(leagues.c.id).where(leagues.c.player_id == player_id)).scalars().all()
    ):
        c.execute(delete(league_members).where(league_members.c.league_id == league_id))
        c.execute(delete(leagues).where(leagues.c.id == league_id))
