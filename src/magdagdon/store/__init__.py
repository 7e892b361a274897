"""Persistence: players, games and high scores through SQLAlchemy 2 Core; all SQL lives here.

One module per resource (:mod:`.players`, :mod:`.games`, :mod:`.highscores`), the tables in
:mod:`.models`, the engine and migrations in :mod:`.db`; :class:`Store` offers them all.
"""

from .db import Database, DatabaseTimeout
from .errors import GameInProgress, GameNotFound, GameUnreadable, StaleVersion
from .highscores import HighScoreEntry, Scope
from .models import GameStatus
from .players import PlayerRow
from .repository import Store
from .rows import GameRow

__all__ = [
    "Database",
    "DatabaseTimeout",
    "GameInProgress",
    "GameNotFound",
    "GameRow",
    "GameStatus",
    "GameUnreadable",
    "HighScoreEntry",
    "PlayerRow",
    "Scope",
    "StaleVersion",
    "Store",
]
