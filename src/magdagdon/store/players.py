"""Players: made on a first visit, recognised by their session's cookie token, named for the
tables. A device's cookie is a session (``sessions``): an anonymous player has one, an account
one per device it is signed in on (:mod:`.accounts`)."""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from .. import names
from .db import Database
from .errors import NameTaken
from .highscores import aware
from .models import players, sessions, utcnow


@dataclass(frozen=True)
class PlayerRow:
    """A player as the web layer sees it."""

    id: int
    name: str | None
    account: bool = False


def hash_token(token: str) -> str:
    """The stored form of a player token."""
    return hashlib.sha256(token.encode()).hexdigest()


SESSION_IDLE_ACCOUNT: Final = timedelta(days=60)
"""An account's session unused this long has ended: the device signs in again (a passkey, a
transfer code); the account loses nothing."""
SESSION_IDLE_ANONYMOUS: Final = timedelta(days=400)
"""An anonymous player's session unused this long has ended (a browser keeps a cookie 400
days at most): it is the player's only way back, so it lasts as long as the cookie can."""
SESSION_TOUCH: Final = timedelta(hours=1)
"""A session's ``last_used_at`` is written at most this often (a read, not a write, per request)."""
SESSION_RECHECK: Final = 10.0
"""Seconds a process trusts what it read of a session before it reads it again: a session
revoked or a player deleted through another process is a stranger's here within this long
(at once through this one)."""


@dataclass(frozen=True)
class SessionRef:
    """The session a cookie names: its player, its public id and how it began."""

    player_id: int
    session_id: str
    method: str = "visit"


@dataclass
class _Seen:
    ref: SessionRef
    checked: float


def new_token() -> tuple[str, str]:
    """A new session token and its stored hash."""
    token = secrets.token_urlsafe(32)
    return token, hash_token(token)


def insert_session(
    c: Connection, player_id: int, digest: str, method: str, label: str, now: datetime
) -> str:
    """Add a session of ``player_id`` (token hash ``digest``); its public id."""
    session_id = secrets.token_hex(16)
    c.execute(
        insert(sessions).values(
            id=session_id,
            token_hash=digest,
            player_id=player_id,
            method=method,
            label=label[:64],
            created_at=now,
            last_used_at=now,
        )
    )
    return session_id


class Players:
    """The store's operations on players and their sessions (part of
    :class:`~magdagdon.store.Store`)."""

    db: Database
    _players: dict[str, _Seen]

    def cached_session(self, token: str) -> SessionRef | None:
        """The session of a token this process read lately (no database access)."""
        seen = self._players.get(hash_token(token))
        if seen is None or time.monotonic() - seen.checked > SESSION_RECHECK:
            return None
        return seen.ref

    def player_id(self, token: str) -> int | None:
        """The id of the player whose session this cookie token is, if it has not ended."""
        ref = self.session(token)
        return ref.player_id if ref is not None else None

    def session(self, token: str) -> SessionRef | None:
        """The session this cookie token names, if it has not ended (unused too long, signed
        out, revoked, its player deleted); its last use is recorded."""
        digest = hash_token(token)
        seen = self._players.get(digest)
        if seen is not None and time.monotonic() - seen.checked <= SESSION_RECHECK:
            return seen.ref
        now = utcnow()
        with self.db.transaction() as c:
            found = c.execute(
                select(
                    sessions.c.id,
                    sessions.c.player_id,
                    sessions.c.method,
                    sessions.c.last_used_at,
                    players.c.account_since,
                )
                .join(players, players.c.id == sessions.c.player_id)
                .where(sessions.c.token_hash == digest)
            ).first()
        if found is None:
            self._players.pop(digest, None)
            return None
        last = aware(found.last_used_at)
        idle = SESSION_IDLE_ANONYMOUS if found.account_since is None else SESSION_IDLE_ACCOUNT
        if now - last > idle:
            with self.db.transaction(write=True) as c:
                c.execute(delete(sessions).where(sessions.c.id == found.id))
            self._players.pop(digest, None)
            return None
        if now - last > SESSION_TOUCH:
            with self.db.transaction(write=True) as c:
                c.execute(
                    update(sessions).where(sessions.c.id == found.id).values(last_used_at=now)
                )
        ref = SessionRef(found.player_id, found.id, found.method)
        self._remember(digest, ref)
        return ref

    def create_player(self, label: str = "") -> tuple[int, str]:
        """A new (anonymous) player's id and the token to put in their cookie: their first
        session (only its hash is stored)."""
        token, digest = new_token()
        now = utcnow()
        with self.db.transaction(write=True) as c:
            player_id = c.execute(
                insert(players).values(created_at=now).returning(players.c.id)
            ).scalar_one()
            session_id = insert_session(c, player_id, digest, "visit", label, now)
        self._remember(digest, SessionRef(player_id, session_id))
        return player_id, token

    def forget_sessions(self, *session_ids: str) -> None:
        """Drop sessions from this process's memory (ended here: a stranger's at once)."""
        gone = set(session_ids)
        for digest in [d for d, s in self._players.items() if s.ref.session_id in gone]:
            del self._players[digest]

    def forget_player(self, player_id: int) -> None:
        """Drop a player's sessions from this process's memory."""
        for digest in [d for d, s in self._players.items() if s.ref.player_id == player_id]:
            del self._players[digest]

    def player(self, player_id: int) -> PlayerRow:
        """A player's public details."""
        with self.db.transaction() as c:
            row = c.execute(
                select(players.c.name, players.c.account_since).where(players.c.id == player_id)
            ).first()
        if row is None:
            return PlayerRow(player_id, None)
        return PlayerRow(player_id, row.name, row.account_since is not None)

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
                since = c.scalar(select(players.c.account_since).where(players.c.id == player_id))
        except IntegrityError as exc:  # the only unique value this changes is the skeleton
            raise NameTaken(name) from exc
        return PlayerRow(player_id, name, since is not None)

    def _remember(self, digest: str, ref: SessionRef) -> None:
        if len(self._players) >= 100_000:
            self._players.clear()
        self._players[digest] = _Seen(ref, time.monotonic())
