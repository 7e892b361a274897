"""A stored game as the store hands it out (the errors name one too)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from ..engine import Difficulty, Game
from .dailyday import daily_over
from .models import GameStatus


@dataclass(frozen=True)
class GameRow:
    """A stored game with its engine state (restored from its snapshot, or replayed)."""

    id: str
    player_id: int
    difficulty: Difficulty
    version: int
    status: GameStatus
    hints_used: int
    created_at: datetime
    finished_at: datetime | None
    game: Game
    daily: date | None = None
    """The UTC day of a daily game (None: a regular game)."""
    challenge: str | None = None
    """The code of the challenge the game plays (None: not a challenge's game)."""
    rematch_of: str | None = None
    """A REMATCH: the code of the challenge it answers (None: not a REMATCH)."""
    past_daily: date | None = None
    """A past daily: the UTC day whose daily's dice it plays again (None: not one)."""
    room: str | None = None
    """A live room's game: the room's code (None: not one)."""

    def daily_over(self, now: datetime) -> bool:
        """Whether this is a daily whose day is over at ``now`` (:mod:`.dailyday`: it can no
        longer be played; its seed and its players' games are public)."""
        return self.daily is not None and daily_over(self.daily, now)

    @property
    def seed(self) -> bytes:
        """The secret seed (only for a finished game's replay)."""
        return self.game.seed
