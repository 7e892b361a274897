"""What the store raises besides the database's own errors."""

from __future__ import annotations

from .rows import GameRow


class GameNotFound(LookupError):
    """No such game, or not this player's."""


class StaleVersion(Exception):
    """The action was based on an older version of the game."""

    def __init__(self, current: GameRow) -> None:
        super().__init__(f"game {current.id} is at version {current.version}")
        self.current = current


class GameInProgress(Exception):
    """The player has an unfinished game and did not ask to abandon it."""

    def __init__(self, current: GameRow) -> None:
        super().__init__(f"game {current.id} is not finished")
        self.current = current


class GameUnreadable(Exception):
    """A stored game that the engine cannot replay (corrupt or from an unknown format)."""

    def __init__(self, game_id: str, reason: str) -> None:
        super().__init__(f"game {game_id} cannot be replayed: {reason}")
        self.game_id = game_id


class DailyPlayed(Exception):
    """The player has finished this daily already: one attempt per daily."""

    def __init__(self, finished: GameRow) -> None:
        super().__init__(f"daily game {finished.id} is over")
        self.finished = finished


class DailyEnded(Exception):
    """An action on a daily game whose day is over (its seed is public now)."""

    def __init__(self, current: GameRow) -> None:
        super().__init__(f"the day of daily game {current.id} is over")
        self.current = current


class NameTaken(Exception):
    """Another player's name is this one, or looks like it (the same confusable skeleton)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"the name {name!r} looks like another player's")
        self.name = name


class InvalidCode(Exception):
    """A transfer code that is wrong, used or expired."""


class LastPasskey(Exception):
    """Removing the account's last passkey, not confirmed."""


class SessionEnded(Exception):
    """The request's session ended while it was being answered (signed out elsewhere)."""


class ClonedPasskey(Exception):
    """A passkey's signature counter did not advance: another assertion with the same count
    was accepted first (a cloned authenticator, or the same answer sent twice)."""


class TurnNotOpen(Exception):
    """An action on a live room's game whose turn is not open: the room rolls every member's
    dice at once when it opens the next turn (store.rooms)."""

    def __init__(self, current: GameRow) -> None:
        super().__init__(f"game {current.id}: the room's turn is not open")
        self.current = current
