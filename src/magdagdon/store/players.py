"""Players: made on a first visit, recognised by their session's cookie token, named for the
tables. A device's cookie is a session (``sessions``): an anonymous player has one, an account
one per device it is signed in on (:mod:`.accounts`)."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import IntegrityError, OperationalError

from .. import names
from .db import Database, DatabaseTimeout
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
TOUCH_PATIENCE: Final = 0.05
"""Seconds a session's last use waits for SQLite's write lock before it is left for later."""
SESSION_TOUCH: Final = timedelta(hours=1)
"""A session's ``last_used_at`` is written at most this often (a read, not a write, per request)."""


@dataclass(frozen=True)
class SessionRef:
    """The session a cookie names: its player, its public id, how and when it began."""

    player_id: int
    session_id: str
    method: str = "visit"
    created_at: datetime | None = None


def new_token() -> tuple[str, str]:
    """A new session token and its stored hash."""
    token = secrets.token_urlsafe(32)
    return token, hash_token(token)


def insert_session(
    c: Connection,
    player_id: int,
    digest: str,
    method: str,
    label: str,
    now: datetime,
    passkey_id: str | None = None,
) -> str:
    """Add a session of ``player_id`` (token hash ``digest``; ``passkey_id``: the passkey it
    signed in with); its public id."""
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
            passkey_id=passkey_id,
        )
    )
    return session_id


class Players:
    """The store's operations on players and their sessions (part of
    :class:`~magdagdon.store.Store`)."""

    db: Database

    def player_id(self, token: str) -> int | None:
        """The id of the player whose session this cookie token is, if it has not ended."""
        ref = self.session(token)
        return ref.player_id if ref is not None else None

    def session(self, token: str) -> SessionRef | None:
        """The session this cookie token names, if it has not ended (unused too long, signed
        out, revoked, its player deleted); its last use is recorded. Read from the database
        every time: no process keeps a session it read, so a session ended through any
        process or host is a stranger's everywhere at once."""
        digest = hash_token(token)
        now = utcnow()
        with self.db.transaction() as c:
            found = c.execute(
                select(
                    sessions.c.id,
                    sessions.c.player_id,
                    sessions.c.method,
                    sessions.c.created_at,
                    sessions.c.last_used_at,
                    players.c.account_since,
                )
                .join(players, players.c.id == sessions.c.player_id)
                .where(sessions.c.token_hash == digest)
            ).first()
        if found is None:
            return None
        last = aware(found.last_used_at)
        idle = SESSION_IDLE_ANONYMOUS if found.account_since is None else SESSION_IDLE_ACCOUNT
        if now - last > idle:
            with self.db.transaction(write=True) as c:
                c.execute(delete(sessions).where(sessions.c.id == found.id))
            return None
        if now - last > SESSION_TOUCH:
            # the last use is worth no wait: with another writer holding SQLite's lock the
            # read goes on (WAL lets it) and the next request records it instead
            try:
                with self.db.transaction(write=True, patience=TOUCH_PATIENCE) as c:
                    c.execute(
                        update(sessions).where(sessions.c.id == found.id).values(last_used_at=now)
                    )
            except (DatabaseTimeout, OperationalError):
                if not self.db.is_sqlite:
                    raise
        return SessionRef(found.player_id, found.id, found.method, aware(found.created_at))

    def create_player(self, label: str = "") -> tuple[SessionRef, str]:
        """A new (anonymous) player's first session and the token to put in their cookie
        (only its hash is stored)."""
        token, digest = new_token()
        now = utcnow()
        with self.db.transaction(write=True) as c:
            player_id = c.execute(
                insert(players).values(created_at=now).returning(players.c.id)
            ).scalar_one()
            session_id = insert_session(c, player_id, digest, "visit", label, now)
        return SessionRef(player_id, session_id, "visit", now), token

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
