"""The store: everything the server asks of the database, one transaction per public method.

It is made of one part per resource (:mod:`.players`, :mod:`.games`, :mod:`.highscores`,
:mod:`.daily`, :mod:`.pastdaily`, :mod:`.stats`, :mod:`.challenges`, :mod:`.leagues`,
:mod:`.puzzles`, :mod:`.rooms`); an action is load → engine → conditional update (see
:meth:`~magdagdon.store.games.Games.act`), so of two requests on the same version exactly one
applies, on SQLite and PostgreSQL alike, and a rejected action rolls back with nothing written.
"""

from __future__ import annotations

from datetime import date, datetime

from ..engine import Game
from ..lru import LruCache
from .accounts import Accounts
from .challenges import Challenges
from .daily import Dailies
from .db import Database
from .games import Games
from .highscores import HighScores
from .leagues import Leagues
from .pastdaily import PastDailies
from .puzzles import Puzzles
from .releases import Releases
from .rooms import Rooms
from .rows import GameRow
from .stats import Stats


class Store(
    Accounts,
    Games,
    HighScores,
    Dailies,
    PastDailies,
    Stats,
    Challenges,
    Leagues,
    Releases,
    Puzzles,
    Rooms,
):
    """The database operations of the game server."""

    def __init__(self, database: Database, *, score_chosen_seeds: bool = False) -> None:
        """Operations on ``database``; ``score_chosen_seeds``: games whose seed was chosen
        (test servers only) enter the high scores too."""
        self.db = database
        self.score_chosen_seeds = score_chosen_seeds
        # Games by (id, version): a load is skipped when the version is unchanged. Entries
        # are snapshots (callers get copies), keyed by version, so a stale entry is never
        # used even with several server processes.
        self._cache: LruCache[tuple[str, int], Game] = LruCache(512, copy=Game.copy)
        # Live rooms' turns' deadlines by (code, turn), as read (a turn's never changes; no
        # clock: the end of time), so that a die staged need not read its room (store.rooms).
        self._deadlines: LruCache[tuple[str, int], datetime] = LruCache(4096)
        # Finished games with their whole log (they never change), for replays and reviews.
        self._finished: LruCache[str, GameRow] = LruCache(64)
        # The daily games' key (read from the database once).
        self._secrets: dict[date, bytes] = {}
