"""Players: made on a first visit, recognised by their cookie's token, named for the tables."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError

from .. import names
from .db import Database
from .errors import NameTaken
from .models import players


@dataclass(frozen=True)
class PlayerRow:
    """A player as the web layer sees it."""

    id: int
    name: str | None


def hash_token(token: str) -> str:
    """The stored form of a player token."""
    return hashlib.sha256(token.encode()).hexdigest()


class Players:
    """The store's operations on players (part of :class:`~magdagdon.store.Store`)."""

    db: Database
    _players: dict[str, int]

    def cached_player_id(self, token: str) -> int | None:
        """The player id of a token seen before by this process (no database access)."""
        return self._players.get(hash_token(token))

    def player_id(self, token: str) -> int | None:
        """The id of the player whose cookie token this is, if any."""
        digest = hash_token(token)
        known = self._players.get(digest)
        if known is not None:
            return known
        with self.db.transaction() as c:
            player_id: int | None = c.scalar(
                select(players.c.id).where(players.c.token_hash == digest)
            )
        if player_id is not None:
            self._remember(digest, player_id)
        return player_id

    def create_player(self) -> tuple[int, str]:
        """A new player's id and the token to put in their cookie (only its hash is stored)."""
        token = secrets.token_urlsafe(32)
        digest = hash_token(token)
        with self.db.transaction(write=True) as c:
            player_id = c.execute(
                insert(players).values(token_hash=digest).returning(players.c.id)
            ).scalar_one()
        self._remember(digest, player_id)
        return player_id, token

    def player(self, player_id: int) -> PlayerRow:
        """A player's public details."""
        with self.db.transaction() as c:
            name = c.scalar(select(players.c.name).where(players.c.id == player_id))
        return PlayerRow(player_id, name)

    def set_name(self, player_id: int, name: str) -> PlayerRow:
        """Set the display name shown in the high-score tables (``name`` as the API keeps
        it: NFKC, see :func:`magdagdon.names.normalise`).

        Raises :class:`NameTaken` when another player's name has the same confusable
        skeleton (looks the same); a player may rename themselves to a look-alike of their
        own name. The database's unique index on the skeleton settles two requests racing
        for look-alike names: one wins, the other raises :class:`NameTaken` too.
        """
        key = names.skeleton(name)
        try:
            with self.db.transaction(write=True) as c:
                holder = c.scalar(
                    select(players.c.id)
                    .where(players.c.name_skeleton == key, players.c.id != player_id)
                    .limit(1)
                )
                if holder is not None:
                    raise NameTaken(name)
                c.execute(
                    update(players)
                    .where(players.c.id == player_id)
                    .values(name=name, name_skeleton=key)
                )
        except IntegrityError as exc:  # the only unique value this changes is the skeleton
            raise NameTaken(name) from exc
        return PlayerRow(player_id, name)

    def _remember(self, digest: str, player_id: int) -> None:
        # A token's player never changes, so this cache is right in every process.
        if len(self._players) >= 100_000:
            self._players.clear()
        self._players[digest] = player_id
