"""Persistence: players, games and high scores through SQLAlchemy 2; all SQL lives here."""

from .db import Database, DatabaseTimeout
from .repository import (
    GameNotFound,
    GameRow,
    HighScoreEntry,
    PlayerRow,
    StaleVersion,
    Store,
)

__all__ = [
    "Database",
    "DatabaseTimeout",
    "GameNotFound",
    "GameRow",
    "HighScoreEntry",
    "PlayerRow",
    "StaleVersion",
    "Store",
]
