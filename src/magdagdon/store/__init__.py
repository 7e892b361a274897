"""Persistence: players, games and high scores through SQLAlchemy 2; all SQL lives here."""

from .db import Database
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
    "GameNotFound",
    "GameRow",
    "HighScoreEntry",
    "PlayerRow",
    "StaleVersion",
    "Store",
]
