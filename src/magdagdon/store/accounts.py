"""Accounts: a player who can sign in on another device, sessions, their data, their deletion.

An anonymous player becomes an *account* when they first save their games with a passkey or
ask for a transfer code (``players.account_since``). Signing in on a device makes a new
session there (a new cookie: never the one the device had) and **merges** the device's
anonymous player into the account, in one transaction (``Accounts._sign_in``):

- every game, high score and daily result of the device's player becomes the account's;
- a daily played on both (the same day and difficulty) keeps the first finished one (or, if
  neither finished, the account's): the other leaves its leaderboard and stays behind under
  a player of its own, ``merged_into`` the account (its replay still works; the export and the
  deletion of the account include it). The sign-in's answer names each such daily;
- of two unfinished regular games, one with moves goes on before one without (a game the
  page made and nobody played is deleted: nothing of the player's is lost); of two with
  moves, the one played last stays in progress and the other is abandoned (R16, as starting
  a new game would: one game in progress at a time), which the answer names;
- the account keeps its name; without one it takes the device's;
- the device's player and its session are gone: its cookie is a stranger's.

On PostgreSQL the two players' rows are locked (in id order) for the merge, so two sign-ins
racing on two workers merge once; SQLite has one writer at a time.

**A first passkey's probation.** An account with no passkey (saved with a transfer code) adds
its first passkey from any of its sessions: the cookie is the only proof there is, and a
stolen cookie is the owner's own session. Before, a thief with the cookie added a passkey,
which made the owner's "sign out everywhere" succeed: it ended the owner's session and left
the thief the passkey. Now such a passkey is on probation for :data:`PROBATION` (a day):

- it is shown to every session of the account (the account screen, and ``new_passkey`` in
  ``GET /api/players/me``: the page that made it does not say it again);
- a passkey added while another is on probation is on probation as long (a session signed
  in with one proves nothing the cookie did not);
- ending sessions so that it is the only way back needs the player to say it is theirs (the
  route's 409 ``confirm_new_passkey`` names it): nobody is signed out for good unknowingly;
- a session begun after it was added (signed in with it, or by a code) may not end a session
  begun before it (403 ``passkey_on_probation``);
- a session begun before it was added removes it (undo), which also ends the sessions signed
  in with it.

After its probation it is an ordinary passkey. A further passkey needs a passkey's proof
(:data:`PASSKEY_PROOF`), so it never is on probation. What this cannot stop, and the reasoning,
are in docs/design.md.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Final

from sqlalchemy import Connection, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from ..lru import LruCache
from .daily import uncount_daily_score
from .db import Database
from .errors import ClonedPasskey, InvalidCode, LastPasskey, SessionEnded
from .highscores import aware
from .leagues import leave_every_league
from .models import (
    GameStatus,
    challenges,
    daily_results,
    game_actions,
    game_challenges,
    games,
    highscores,
    league_members,
    leagues,
    passkeys,
    players,
    sessions,
    transfer_codes,
    utcnow,
)
from .players import (
    SESSION_IDLE_ACCOUNT,
    SESSION_IDLE_ANONYMOUS,
    Players,
    SessionRef,
    insert_session,
    new_token,
)
from .puzzles import delete_puzzles, export_puzzles, merge_puzzles
from .rooms import forget_player_in_rooms, merge_rooms, rooms_of
from .rows import GameRow

TRANSFER_CODE_LIFETIME: Final = timedelta(minutes=10)
"""How long a transfer code can be used (once)."""
CODE_ALPHABET: Final = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
"""A transfer code's letters: no 0/O, 1/I to mistake for each other."""
CODE_LENGTH: Final = 12
"""Letters of a transfer code: 32¹² ≈ 1.2·10¹⁸ codes (60 bits), so guessing stays hopeless
from however many addresses (the arithmetic is in docs/design.md, "Transfer codes")."""
PASSKEY_PROOF: Final = timedelta(minutes=5)
"""An account that has a passkey adds another only from a session signed in with a passkey
this recently ("sudo mode"): a stolen cookie, or a sign-in made with a code it minted, cannot."""
PROBATION: Final = timedelta(days=1)
"""How long an account's first passkey (added with no passkey's proof) is on probation."""
CHALLENGE_LIFETIME: Final = timedelta(minutes=5)
"""How long a WebAuthn challenge can be answered (once)."""


def normalise_code(code: str) -> str:
    """A transfer code as typed (any case, spaces, dashes) in the form it was made."""
    return "".join(ch for ch in code.upper() if ch.isalnum())


def format_code(code: str) -> str:
    """A transfer code to show: groups of four letters."""
    return "-".join(code[i : i + 4] for i in range(0, len(code), 4))


def _code_hash(code: str) -> str:
    return hashlib.sha256(f"magdagdon transfer {normalise_code(code)}".encode()).hexdigest()


@dataclass(frozen=True)
class DailyClash:
    """A daily played both on the device and by the account: the one kept, the one dropped."""

    day: str
    difficulty: str
    kept_game_id: str
    kept_score: int | None
    dropped_game_id: str
    dropped_score: int | None


@dataclass(frozen=True)
class Merge:
    """What a sign-in brought over from the device's player."""

    games: int = 0
    dailies: list[DailyClash] = field(default_factory=list)
    abandoned_game_id: str | None = None


@dataclass(frozen=True)
class SignIn:
    """A sign-in: the account, the new session's token and id, and what was merged."""

    player_id: int
    token: str
    session_id: str
    merge: Merge
    method: str
    created_at: datetime


@dataclass(frozen=True)
class PasskeyRow:
    """A passkey as the account sees it (its public parts)."""

    id: str
    credential_id: str
    player_id: int
    public_key: str
    sign_count: int
    transports: list[str]
    label: str
    created_at: datetime
    last_used_at: datetime | None
    handle: str | None = None
    """The account's WebAuthn user handle (base64url), which its passkeys name it by."""
    added_by: str | None = None
    """The session that added it."""
    probation_until: datetime | None = None
    """The end of a first passkey's probation (module docstring); None: trusted."""

    def on_probation(self, now: datetime) -> bool:
        """Whether the passkey is still on probation at ``now``."""
        return self.probation_until is not None and now < self.probation_until


@dataclass(frozen=True)
class SessionRow:
    """A session of an account, as its list shows it."""

    id: str
    method: str
    label: str
    created_at: datetime
    last_used_at: datetime


def _passkey(r: Any, handle: str | None = None) -> PasskeyRow:
    return PasskeyRow(
        id=r.id,
        credential_id=r.credential_id,
        player_id=r.player_id,
        public_key=r.public_key,
        sign_count=r.sign_count,
        transports=list(r.transports or []),
        label=r.label,
        created_at=aware(r.created_at),
        last_used_at=aware(r.last_used_at) if r.last_used_at is not None else None,
        handle=handle,
        added_by=r.added_by,
        probation_until=aware(r.probation_until) if r.probation_until is not None else None,
    )


class Accounts(Players):
    """The store's operations on accounts and sessions (part of :class:`~magdagdon.store.Store`)."""

    db: Database
    _finished: LruCache[str, GameRow]

    # --- becoming an account ------------------------------------------------------------

    def is_account(self, player_id: int) -> bool:
        """Whether the player is an account (has signed up with a passkey or a code)."""
        with self.db.transaction() as c:
            since = c.scalar(select(players.c.account_since).where(players.c.id == player_id))
        return since is not None

    @staticmethod
    def _make_account(c: Connection, player_id: int, now: datetime) -> None:
        c.execute(
            update(players)
            .where(players.c.id == player_id, players.c.account_since.is_(None))
            .values(account_since=now)
        )

    def account_handle(self, player_id: int) -> str:
        """The account's WebAuthn user handle (made on first use): what its passkeys name it by."""
        with self.db.transaction(write=True) as c:
            handle = c.scalar(select(players.c.handle).where(players.c.id == player_id))
            if handle is None:
                handle = secrets.token_urlsafe(32)
                c.execute(update(players).where(players.c.id == player_id).values(handle=handle))
        return str(handle)

    # --- transfer codes -------------------------------------------------------------------

    def create_transfer_code(self, session: SessionRef) -> tuple[str, datetime]:
        """A new one-time transfer code for the session's player (made an account if it was
        not one), valid :data:`TRANSFER_CODE_LIFETIME`; the code (as shown) and when it
        expires. It belongs to the session: it ends when the session ends (signed out,
        revoked, everywhere), so a stolen cookie's codes do not outlive it.
        :class:`SessionEnded` when the session has ended meanwhile (nothing is made)."""
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        now = utcnow()
        expires = now + TRANSFER_CODE_LIFETIME
        try:
            with self.db.transaction(write=True) as c:
                c.execute(delete(transfer_codes).where(transfer_codes.c.expires_at < now))
                self._make_account(c, session.player_id, now)
                c.execute(
                    insert(transfer_codes).values(
                        code_hash=_code_hash(code),
                        player_id=session.player_id,
                        session_id=session.session_id,
                        created_at=now,
                        expires_at=expires,
                    )
                )
        except IntegrityError as exc:  # its session is gone (the foreign key): signed out
            raise SessionEnded() from exc
        return format_code(code), expires

    def redeem_transfer_code(self, code: str, device: SessionRef | None, label: str) -> SignIn:
        """Sign in with a transfer code: it is used up, a new session is made and the device's
        player merged in (see the module docstring). :class:`InvalidCode` for a code that is wrong,
        used or expired (nothing changes)."""
        now = utcnow()
        digest = _code_hash(code)
        with self.db.transaction(write=True) as c:
            account = c.scalar(
                delete(transfer_codes)
                .where(transfer_codes.c.code_hash == digest, transfer_codes.c.expires_at >= now)
                .returning(transfer_codes.c.player_id)
            )
            if account is None:
                raise InvalidCode()
            return self._sign_in(c, account, device, "transfer", label, now)

    # --- passkeys (the WebAuthn ceremonies are web/accounts.py's) -------------------------

    def save_challenge(self, challenge: str, purpose: str, session: SessionRef | None) -> None:
        """Keep a challenge handed to a browser until it is answered (once) or expires. A
        registration's belongs to the session that asked (it ends with it)."""
        now = utcnow()
        try:
            with self.db.transaction(write=True) as c:
                c.execute(delete(challenges).where(challenges.c.expires_at < now))
                c.execute(
                    insert(challenges).values(
                        challenge=challenge,
                        purpose=purpose,
                        player_id=session.player_id if session is not None else None,
                        session_id=session.session_id if session is not None else None,
                        expires_at=now + CHALLENGE_LIFETIME,
                    )
                )
        except IntegrityError as exc:  # its session is gone (the foreign key): signed out
            raise SessionEnded() from exc

    def take_challenge(self, challenge: str, purpose: str) -> tuple[bool, str | None]:
        """Use up a challenge: whether it was handed out for ``purpose`` and is unexpired (and
        its session, if it had one, has not ended), and the session it was handed to (None
        for a sign-in's)."""
        with self.db.transaction(write=True) as c:
            found = c.execute(
                delete(challenges)
                .where(
                    challenges.c.challenge == challenge,
                    challenges.c.purpose == purpose,
                    challenges.c.expires_at >= utcnow(),
                )
                .returning(challenges.c.session_id)
            ).first()
        return (found is not None, found.session_id if found is not None else None)

    def add_passkey(
        self,
        player_id: int,
        credential_id: str,
        public_key: str,
        sign_count: int,
        transports: list[str],
        label: str,
        session: SessionRef | None = None,
    ) -> PasskeyRow:
        """Add a verified passkey to the player (made an account if it was not one), from
        ``session``: the account's first one is on probation (module docstring)."""
        now = utcnow()
        passkey_id = secrets.token_hex(8)
        with self.db.transaction(write=True) as c:
            self._make_account(c, player_id, now)
            held = [
                _passkey(r)
                for r in c.execute(select(passkeys).where(passkeys.c.player_id == player_id))
            ]
            # the first passkey is on probation; so is one added while another is (a session
            # signed in with a passkey on probation proves nothing the cookie did not)
            probation = [
                k.probation_until for k in held if k.probation_until and k.on_probation(now)
            ]
            until = now + PROBATION if not held else max(probation) if probation else None
            c.execute(
                insert(passkeys).values(
                    id=passkey_id,
                    credential_id=credential_id,
                    player_id=player_id,
                    public_key=public_key,
                    sign_count=sign_count,
                    transports=transports,
                    label=label[:64],
                    created_at=now,
                    added_by=session.session_id if session is not None else None,
                    probation_until=until,
                )
            )
            row = c.execute(select(passkeys).where(passkeys.c.id == passkey_id)).one()
        return _passkey(row)

    def passkey_by_credential(self, credential_id: str) -> PasskeyRow | None:
        """The passkey with this credential id, if any (with its account's handle)."""
        with self.db.transaction() as c:
            row = c.execute(
                select(passkeys, players.c.handle)
                .join(players, players.c.id == passkeys.c.player_id)
                .where(passkeys.c.credential_id == credential_id)
            ).first()
        return _passkey(row, row.handle) if row is not None else None

    def passkeys_of(self, player_id: int) -> list[PasskeyRow]:
        """The account's passkeys, oldest first."""
        with self.db.transaction() as c:
            rows = c.execute(
                select(passkeys)
                .where(passkeys.c.player_id == player_id)
                .order_by(passkeys.c.created_at, passkeys.c.id)
            ).all()
        return [_passkey(r) for r in rows]

    def remove_passkey(
        self, player_id: int, passkey_id: str, *, last: bool, by: SessionRef | None = None
    ) -> list[str]:
        """Remove one of the account's passkeys; the sessions ended with it. The last one only
        with ``last`` (else :class:`LastPasskey`: the account could then sign in only with a
        transfer code from a device still signed in). A passkey on probation removed by a
        session begun before it was added (``by``) is undone: the sessions signed in with it
        end too (module docstring). LookupError if the account has no such passkey."""
        now = utcnow()
        with self.db.transaction(write=True) as c:
            owned = {
                r.id: r
                for r in c.execute(select(passkeys).where(passkeys.c.player_id == player_id))
            }
            if passkey_id not in owned:
                raise LookupError(passkey_id)
            passkey = _passkey(owned[passkey_id])
            undo = (
                passkey.on_probation(now)
                and by is not None
                and by.created_at is not None
                and by.created_at < passkey.created_at
            )
            if len(owned) == 1 and not last:
                raise LastPasskey()
            c.execute(delete(passkeys).where(passkeys.c.id == passkey_id))
            if not undo:
                return []
            ended = delete(sessions).where(
                sessions.c.player_id == player_id, sessions.c.passkey_id == passkey_id
            )
            return list(c.execute(ended.returning(sessions.c.id)).scalars().all())

    def sign_in_with_passkey(
        self, passkey: PasskeyRow, sign_count: int, device: SessionRef | None, label: str
    ) -> SignIn:
        """Sign in with a verified passkey: its use is recorded, a new session is made and the
        device's player merged in (see the module docstring).

        The signature counter advances atomically: the update applies only while the stored
        count is below the new one (or both are 0: an authenticator that keeps no count), so
        of two assertions with the same count sent at once (a cloned authenticator) one
        signs in and the other raises :class:`ClonedPasskey`, with nothing changed."""
        now = utcnow()
        with self.db.transaction(write=True) as c:
            counted = (
                passkeys.c.sign_count < sign_count if sign_count > 0 else passkeys.c.sign_count == 0
            )
            advanced = c.execute(
                update(passkeys)
                .where(passkeys.c.id == passkey.id, counted)
                .values(sign_count=sign_count, last_used_at=now)
            ).rowcount
            if not advanced:
                raise ClonedPasskey()
            return self._sign_in(
                c, passkey.player_id, device, "passkey", label, now, passkey_id=passkey.id
            )

    def passkey_proven(self, session: SessionRef) -> bool:
        """Whether the session may add a passkey: its account has none yet, or the session
        was signed in with one in the last :data:`PASSKEY_PROOF` (as the session was read
        for this request)."""
        with self.db.transaction() as c:
            has = c.scalar(
                select(passkeys.c.id).where(passkeys.c.player_id == session.player_id).limit(1)
            )
        if has is None:
            return True
        return (
            session.method == "passkey"
            and session.created_at is not None
            and utcnow() - session.created_at <= PASSKEY_PROOF
        )

    # --- signing in: a new session, the device's player merged in -------------------------

    def _sign_in(
        self,
        c: Connection,
        account_id: int,
        device: SessionRef | None,
        method: str,
        label: str,
        now: datetime,
        passkey_id: str | None = None,
    ) -> SignIn:
        merge = Merge()
        if device is not None:
            c.execute(delete(sessions).where(sessions.c.id == device.session_id))
            if device.player_id != account_id:
                merge = self._merge(c, device.player_id, account_id, now)
        token, digest = new_token()
        session_id = insert_session(
            c, account_id, digest, method, label, now, passkey_id=passkey_id
        )
        return SignIn(account_id, token, session_id, merge, method, now)

    def _merge(self, c: Connection, source: int, target: int, now: datetime) -> Merge:
        """Move the anonymous player ``source`` into the account ``target`` (module docstring).
        Nothing happens when ``source`` is gone (merged by a racing sign-in) or is an account
        itself (a device signed in to another account: only its session ends there)."""
        locked = {
            r.id: r
            for r in c.execute(
                select(
                    players.c.id, players.c.account_since, players.c.name, players.c.name_skeleton
                )
                .where(players.c.id.in_([source, target]))
                .order_by(players.c.id)
                .with_for_update()
            ).all()
        }
        if source not in locked or target not in locked or locked[source].account_since:
            return Merge()
        left_behind: int | None = None

        def leave(game_id: str, finished: bool) -> None:
            nonlocal left_behind
            if left_behind is None:
                left_behind = c.execute(
                    insert(players)
                    .values(created_at=now, merged_into=target)
                    .returning(players.c.id)
                ).scalar_one()
            values: dict[str, Any] = {"player_id": left_behind}
            if not finished:
                values |= {"status": GameStatus.ABANDONED, "version": games.c.version + 1}
            c.execute(update(games).where(games.c.id == game_id).values(**values))
            dropped = c.execute(
                delete(daily_results)
                .where(daily_results.c.game_id == game_id)
                .returning(
                    daily_results.c.day,
                    daily_results.c.difficulty,
                    daily_results.c.score,
                    daily_results.c.ranked,
                )
            ).first()
            if dropped is not None:
                uncount_daily_score(
                    c, dropped.day, dropped.difficulty, dropped.score, dropped.ranked
                )

        # dailies played on both
        def dailies(player: int) -> Any:
            return c.execute(
                select(
                    games.c.id,
                    games.c.daily,
                    games.c.difficulty,
                    games.c.status,
                    games.c.score,
                    games.c.finished_at,
                ).where(games.c.player_id == player, games.c.daily.is_not(None))
            ).all()

        theirs = {(r.daily, r.difficulty): r for r in dailies(target)}
        clashes: list[DailyClash] = []
        for mine in dailies(source):
            other = theirs.get((mine.daily, mine.difficulty))
            if other is None:
                continue
            keep, drop = first_finished(mine, other)
            leave(drop.id, drop.status != GameStatus.ACTIVE)
            clashes.append(
                DailyClash(mine.daily, mine.difficulty, keep.id, keep.score, drop.id, drop.score)
            )

        # challenges played on both: the first finished stays (as for a daily)
        def challenged(player: int) -> Any:
            return c.execute(
                select(games.c.id, games.c.challenge, games.c.status, games.c.finished_at).where(
                    games.c.player_id == player, games.c.challenge.is_not(None)
                )
            ).all()

        taken = {r.challenge: r for r in challenged(target)}
        for mine in challenged(source):
            other = taken.get(mine.challenge)
            if other is None:
                continue
            drop = first_finished(mine, other)[1]
            leave(drop.id, drop.status != GameStatus.ACTIVE)
        # two regular games in progress: a game with moves goes on before one with none (a
        # game the page made and nobody played is nothing of the player's: it is deleted);
        # of two with moves, the one played last goes on and the other is abandoned (R16)
        active = c.execute(
            select(games.c.id, games.c.player_id, games.c.action_count)
            .where(
                games.c.player_id.in_([source, target]),
                games.c.status == GameStatus.ACTIVE,
                games.c.daily.is_(None),
                games.c.challenge.is_(None),
                games.c.past_daily.is_(None),
            )
            .order_by((games.c.action_count > 0).desc(), games.c.updated_at.desc(), games.c.id)
        ).all()
        abandoned = None
        for record in active[1:]:
            if not record.action_count:
                c.execute(delete(game_actions).where(game_actions.c.game_id == record.id))
                c.execute(delete(games).where(games.c.id == record.id))
                continue
            abandoned = record.id
            c.execute(
                update(games)
                .where(games.c.id == record.id)
                .values(status=GameStatus.ABANDONED, version=games.c.version + 1, updated_at=now)
            )
        # the games that join (one never played is not worth a word)
        moved = c.scalar(
            select(func.count())
            .select_from(games)
            .where(games.c.player_id == source, games.c.action_count > 0)
        )
        c.execute(update(games).where(games.c.player_id == source).values(player_id=target))
        c.execute(
            update(highscores).where(highscores.c.player_id == source).values(player_id=target)
        )
        c.execute(
            update(daily_results)
            .where(daily_results.c.player_id == source)
            .values(player_id=target)
        )
        c.execute(
            update(game_challenges)
            .where(game_challenges.c.player_id == source)
            .values(player_id=target)
        )
        # (leagues are accounts' only, and only an anonymous player is merged: none to move)
        merge_puzzles(c, source, target)
        merge_rooms(c, source, target)
        c.execute(update(players).where(players.c.merged_into == source).values(merged_into=target))
        c.execute(delete(sessions).where(sessions.c.player_id == source))
        c.execute(delete(transfer_codes).where(transfer_codes.c.player_id == source))
        c.execute(delete(challenges).where(challenges.c.player_id == source))
        name, key = locked[source].name, locked[source].name_skeleton
        c.execute(delete(players).where(players.c.id == source))
        if locked[target].name is None and name is not None:
            c.execute(
                update(players).where(players.c.id == target).values(name=name, name_skeleton=key)
            )
        return Merge(games=int(moved or 0), dailies=clashes, abandoned_game_id=abandoned)

    # --- sessions -------------------------------------------------------------------------

    def sessions_of(self, player_id: int) -> list[SessionRow]:
        """The player's sessions that have not ended, the one used last first."""
        with self.db.transaction() as c:
            since = c.scalar(select(players.c.account_since).where(players.c.id == player_id))
            idle = SESSION_IDLE_ANONYMOUS if since is None else SESSION_IDLE_ACCOUNT
            rows = c.execute(
                select(sessions)
                .where(
                    sessions.c.player_id == player_id,
                    sessions.c.last_used_at >= utcnow() - idle,
                )
                .order_by(sessions.c.last_used_at.desc(), sessions.c.id)
            ).all()
        return [
            SessionRow(r.id, r.method, r.label, aware(r.created_at), aware(r.last_used_at))
            for r in rows
        ]

    def a_way_back(self, player_id: int, ending: list[str] | None) -> bool:
        """Whether the account could still sign in with the sessions ``ending`` ended (None:
        all of them): it has a passkey, or another of its sessions stays signed in (which can
        make a transfer code)."""
        return self.way_back(player_id, ending) is not None

    def way_back(self, player_id: int, ending: list[str] | None) -> str | None:
        """How the account could still sign in with the sessions ``ending`` ended (None: all
        of them): ``"trusted"`` (a passkey past its probation, or another session staying),
        ``"probation"`` (only a first passkey on probation: module docstring), or None."""
        now = utcnow()
        with self.db.transaction() as c:
            keys = [
                _passkey(r)
                for r in c.execute(select(passkeys).where(passkeys.c.player_id == player_id))
            ]
            if any(not k.on_probation(now) for k in keys):
                return "trusted"
            if ending is not None:
                staying = c.scalar(
                    select(sessions.c.id)
                    .where(sessions.c.player_id == player_id, sessions.c.id.not_in(ending))
                    .limit(1)
                )
                if staying is not None:
                    return "trusted"
        return "probation" if keys else None

    def on_probation(self, player_id: int) -> list[PasskeyRow]:
        """The account's passkeys on probation (its first, for a day)."""
        now = utcnow()
        return [k for k in self.passkeys_of(player_id) if k.on_probation(now)]

    def older_than(self, player_id: int, moment: datetime, session_ids: list[str] | None) -> bool:
        """Whether any of these sessions of the player (None: all of them) began before
        ``moment``."""
        with self.db.transaction() as c:
            query = select(sessions.c.id).where(
                sessions.c.player_id == player_id, sessions.c.created_at < moment
            )
            if session_ids is not None:
                query = query.where(sessions.c.id.in_(session_ids))
            return c.scalar(query.limit(1)) is not None

    def new_passkey(self, session: SessionRef) -> PasskeyRow | None:
        """A passkey on probation, to announce to every session of the account: the one that
        added it too, since a stolen cookie is the owner's own session (the page of the
        browser that made it does not say it again)."""
        found = self.on_probation(session.player_id)
        return found[-1] if found else None

    def end_sessions(self, player_id: int, session_ids: list[str] | None) -> list[str]:
        """End some of the player's sessions (None: all of them); the ids ended. An id that is
        not the player's ends nothing."""
        with self.db.transaction(write=True) as c:
            chosen = delete(sessions).where(sessions.c.player_id == player_id)
            if session_ids is not None:
                chosen = chosen.where(sessions.c.id.in_(session_ids))
            ended = list(c.execute(chosen.returning(sessions.c.id)).scalars().all())
        return ended

    # --- the player's data ----------------------------------------------------------------

    def _own_players(self, c: Connection, player_id: int) -> list[int]:
        """The player and what their devices' sign-ins left behind."""
        left = c.execute(select(players.c.id).where(players.c.merged_into == player_id)).scalars()
        return [player_id, *left]

    def export_player(self, player_id: int, open_day: date) -> dict[str, Any]:
        """Everything stored of the player, as JSON-ready data: the player, their sessions,
        passkeys (public parts), games (each with its actions; its seed once it is over, and
        for a daily once its day is over too: a day before ``open_day``,
        :func:`.dailyday.first_open_day`) and daily results. Statistics are the web
        layer's (from the same games)."""
        with self.db.transaction() as c:
            ids = self._own_players(c, player_id)
            me = c.execute(select(players).where(players.c.id == player_id)).first()
            session_rows = c.execute(
                select(sessions)
                .where(sessions.c.player_id == player_id)
                .order_by(sessions.c.created_at)
            ).all()
            passkey_rows = c.execute(
                select(passkeys)
                .where(passkeys.c.player_id == player_id)
                .order_by(passkeys.c.created_at)
            ).all()
            game_rows = c.execute(
                select(games)
                .where(games.c.player_id.in_(ids))
                .order_by(games.c.created_at, games.c.id)
            ).all()
            logs: dict[str, list[Any]] = {r.id: [] for r in game_rows}
            for game_id, action in c.execute(
                select(game_actions.c.game_id, game_actions.c.action)
                .join(games, games.c.id == game_actions.c.game_id)
                .where(games.c.player_id.in_(ids))
                .order_by(game_actions.c.game_id, game_actions.c.seq)
            ).all():
                logs[game_id].append(action)
            result_rows = c.execute(
                select(daily_results)
                .where(daily_results.c.player_id == player_id)
                .order_by(daily_results.c.day, daily_results.c.difficulty)
            ).all()
            score_rows = c.execute(
                select(highscores)
                .where(highscores.c.player_id == player_id)
                .order_by(highscores.c.finished_at)
            ).all()
            challenge_rows = c.execute(
                select(game_challenges)
                .where(game_challenges.c.player_id.in_(ids))
                .order_by(game_challenges.c.created_at)
            ).all()
            puzzle_data = export_puzzles(c, ids)
            room_data = rooms_of(c, player_id)
            league_rows = c.execute(
                select(leagues, league_members.c.joined_at)
                .join(league_members, league_members.c.league_id == leagues.c.id)
                .where(league_members.c.player_id == player_id)
                .order_by(league_members.c.joined_at)
            ).all()

        def when(moment: datetime | None) -> str | None:
            return aware(moment).isoformat() if moment is not None else None

        def seed(r: Any) -> str | None:
            if r.status != GameStatus.OVER:
                return None
            if r.daily is not None and date.fromisoformat(r.daily) >= open_day:
                return None  # the day's dice are everybody's until the day is over
            return str(r.seed)

        return {
            "player": {
                "name": me.name,
                "created_at": when(me.created_at),
                "account_since": when(me.account_since),
            }
            if me is not None
            else None,
            "sessions": [
                {
                    "id": s.id,
                    "method": s.method,
                    "label": s.label,
                    "created_at": when(s.created_at),
                    "last_used_at": when(s.last_used_at),
                }
                for s in session_rows
            ],
            "passkeys": [
                {
                    "id": p.id,
                    "credential_id": p.credential_id,
                    "public_key": p.public_key,
                    "sign_count": p.sign_count,
                    "transports": list(p.transports or []),
                    "label": p.label,
                    "created_at": when(p.created_at),
                    "last_used_at": when(p.last_used_at),
                    "probation_until": when(p.probation_until),
                }
                for p in passkey_rows
            ],
            "games": [
                {
                    "id": r.id,
                    "difficulty": r.difficulty,
                    "daily": r.daily,
                    "past_daily": r.past_daily,
                    "room": r.room,
                    "challenge": r.challenge,
                    "status": r.status,
                    "score": r.score,
                    "turns": r.turns,
                    "powers_used": r.powers_used,
                    "hints_used": r.hints_used,
                    "created_at": when(r.created_at),
                    "finished_at": when(r.finished_at),
                    "left_on_sign_in": r.player_id != player_id,
                    "seed": seed(r),
                    "actions": logs[r.id],
                }
                for r in game_rows
            ],
            "high_scores": [
                {
                    "game_id": h.game_id,
                    "difficulty": h.difficulty,
                    "score": h.score,
                    "finished_at": when(h.finished_at),
                }
                for h in score_rows
            ],
            "challenges": [
                {
                    "code": ch.code,
                    "game_id": ch.game_id,
                    "difficulty": ch.difficulty,
                    "reply_to": ch.reply_to,
                    "created_at": when(ch.created_at),
                }
                for ch in challenge_rows
            ],
            "leagues": [
                {
                    "id": lg.id,
                    "name": lg.name,
                    "difficulty": lg.difficulty,
                    "creator": lg.player_id == player_id,
                    "invite": lg.invite,
                    "joined_at": when(lg.joined_at),
                }
                for lg in league_rows
            ],
            "puzzles": puzzle_data,
            "rooms": room_data,
            "daily_results": [
                {
                    "game_id": d.game_id,
                    "day": d.day,
                    "difficulty": d.difficulty,
                    "score": d.score,
                    "ranked": d.ranked,
                    "finished_at": when(d.finished_at),
                }
                for d in result_rows
            ],
        }

    def delete_player(self, player_id: int) -> list[str]:
        """Delete the player and everything stored of them: games and their logs, high scores
        and daily results (they leave the tables: docs/design.md says why), the challenges
        they made (friends keep their games of them), their places in leagues (a league they
        made passes to its next member), sessions, passkeys, codes, passkey ceremonies, and
        what their sign-ins left behind. The ids of the games
        deleted (for what caches keep of them)."""
        with self.db.transaction(write=True) as c:
            ids = self._own_players(c, player_id)
            # the rows first: a request writing a row that names them (a puzzle given, an
            # attempt, a game's puzzles) waits, or has finished (store.puzzles._hold_player)
            c.execute(select(players.c.id).where(players.c.id.in_(ids)).with_for_update())
            deleted = list(
                c.execute(select(games.c.id).where(games.c.player_id.in_(ids))).scalars().all()
            )
            for row in c.execute(
                select(
                    daily_results.c.day,
                    daily_results.c.difficulty,
                    daily_results.c.score,
                    daily_results.c.ranked,
                ).where(daily_results.c.player_id.in_(ids))
            ).all():
                uncount_daily_score(c, row.day, row.difficulty, row.score, row.ranked)
            own_games = select(games.c.id).where(games.c.player_id.in_(ids))
            c.execute(
                delete(daily_results).where(
                    or_(daily_results.c.player_id.in_(ids), daily_results.c.game_id.in_(own_games))
                )
            )
            c.execute(
                delete(highscores).where(
                    or_(highscores.c.player_id.in_(ids), highscores.c.game_id.in_(own_games))
                )
            )
            c.execute(
                delete(game_challenges).where(
                    or_(
                        game_challenges.c.player_id.in_(ids),
                        game_challenges.c.game_id.in_(own_games),
                    )
                )
            )
            for one in ids:
                leave_every_league(c, one)
            delete_puzzles(c, ids)
            forget_player_in_rooms(c, ids)
            c.execute(delete(game_actions).where(game_actions.c.game_id.in_(own_games)))
            c.execute(delete(games).where(games.c.player_id.in_(ids)))
            for table in (sessions, passkeys, transfer_codes, challenges):
                c.execute(delete(table).where(table.c.player_id.in_(ids)))
            c.execute(update(players).where(players.c.id == player_id).values(handle=None))
            c.execute(delete(players).where(players.c.id.in_(ids[1:])))
            c.execute(delete(players).where(players.c.id == player_id))
        for game_id in deleted:
            self._finished.discard(game_id)
        return deleted


def first_finished(mine: Any, theirs: Any) -> tuple[Any, Any]:
    """Of two games of the same dice played on two devices (a daily, a challenge), the one
    kept and the one left behind: the first finished is kept; of two unfinished, theirs (the
    account's)."""
    if mine.finished_at is not None and (
        theirs.finished_at is None or aware(mine.finished_at) < aware(theirs.finished_at)
    ):
        return mine, theirs
    return theirs, mine
