"""Persistence: players, games and high scores through SQLAlchemy 2 Core; all SQL lives here.

One module per resource (:mod:`.players`, :mod:`.games`, :mod:`.highscores`, :mod:`.daily`,
:mod:`.pastdaily`, :mod:`.stats`; the daily's day in :mod:`.dailyday`), the tables in
:mod:`.models`, the engine and migrations in :mod:`.db`; :class:`Store` offers them all.
"""

from .daily import EPOCH, BoardRow, DailyEntry, Leaderboard, Standing, daily_number
from .dailyday import (
    DAILY_GRACE,
    daily_ends_at,
    daily_finish_by,
    daily_over,
    first_open_day,
)
from .db import Database, DatabaseTimeout
from .errors import (
    DailyEnded,
    DailyPlayed,
    GameInProgress,
    GameNotFound,
    GameUnreadable,
    NameTaken,
    StaleVersion,
)
from .highscores import HighScoreEntry, Scope
from .models import GameStatus
from .pastdaily import FriendScore, PastDay
from .players import PlayerRow
from .repository import Store
from .rows import GameRow
from .stats import PlayerStats

__all__ = [
    "DAILY_GRACE",
    "EPOCH",
    "BoardRow",
    "DailyEnded",
    "DailyEntry",
    "DailyPlayed",
    "Database",
    "DatabaseTimeout",
    "FriendScore",
    "GameInProgress",
    "GameNotFound",
    "GameRow",
    "GameStatus",
    "GameUnreadable",
    "HighScoreEntry",
    "Leaderboard",
    "NameTaken",
    "PastDay",
    "PlayerRow",
    "PlayerStats",
    "Scope",
    "StaleVersion",
    "Standing",
    "Store",
    "daily_ends_at",
    "daily_finish_by",
    "daily_number",
    "daily_over",
    "first_open_day",
]
