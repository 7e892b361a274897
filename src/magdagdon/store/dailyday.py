"""The daily's day: when its games may be started, finished, and when the day is over.

The one place of the rule (docs/design.md, "The daily's day"). A daily of day D (UTC) can be
*started* only during D. A game started during D can be *played and finished* until D+1
00:00 UTC + :data:`DAILY_GRACE`: nothing a player started is lost at midnight, and it counts
for D (its leaderboard, its streak, its league day). Day D is *over* only from that bound on:
until then its seed stays secret, its players' games are not watchable by others, its
leaderboard is open and no challenge is made of it, exactly as during the day. From then on
an unfinished game of D can no longer be played (``DailyEnded``) and D's dice are public.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

DAILY_GRACE = timedelta(hours=2)
"""How long after its day's end (midnight UTC) a daily started during the day can still be
finished; the day is over (its dice public) only then."""


def day_start(day: date) -> datetime:
    """The first moment of a UTC day."""
    return datetime.combine(day, time(0), UTC)


def daily_ends_at(day: date) -> datetime:
    """When the dailies of ``day`` can no longer be started: the next midnight UTC."""
    return day_start(day + timedelta(days=1))


def daily_finish_by(day: date) -> datetime:
    """When a daily of ``day`` can no longer be played, and the day is over (its dice public):
    the next midnight UTC and :data:`DAILY_GRACE`."""
    return daily_ends_at(day) + DAILY_GRACE


def first_open_day(now: datetime) -> date:
    """The oldest day that is not over at ``now``: the days before it are over (their dice
    public, their unfinished games ended), it and the days after are not."""
    return (now.astimezone(UTC) - DAILY_GRACE).date()


def daily_over(day: date, now: datetime) -> bool:
    """Whether the dailies of ``day`` are over at ``now`` (see the module docstring)."""
    return day < first_open_day(now)
