"""Live rooms: friends play the same dice at the same moment, turn by turn.

A room is made by its *maker* (a difficulty, and a turn clock of 30, 60 or 120 seconds, or none:
wait for everyone); its code is a challenge's kind (ten letters of
:data:`~.challenges.CODE_LETTERS`). Up to :data:`ROOM_SIZE` players join before the maker
starts it; anyone else may watch. Starting gives every member an ordinary game
(``games.room``) with the room's seed, so every member meets the same roll on every turn and
the same outcome of the same REROLL (the dice stream is keyed by turn and slot), and *opens*
turn 1: the room rolls every member's game. A member plays the open turn on their own board;
the player never rolls a room's game (an action on a game whose turn is not open answers
:class:`~.errors.TurnNotOpen`). When every member has ended the turn (CONFIRM, or ACCEPT
MAGDAGDON), or its deadline passes (a member still playing has the rest of the turn played
by the coach's fast player, :class:`~magdagdon.ai.heuristic.HeuristicPlayer`, and the turn is
marked so),
the turn *closes* exactly once (a conditional update on the room's row), its boards and scores
become an event, and the next turn opens; when every game is over, the room is over.

The room's state lives in the database: ``rooms`` (phase, the open turn, its deadline, the
last event's number), ``room_members``, and ``room_events``, each numbered by the room's
``seq`` in the transaction that changes the room, so a client that lost its connection asks
for the events after the last one it saw. Nobody's staged dice, and no roll, are in any event
before the turn closes: ``turn_opened`` says only the turn's number (and its deadline),
``member_done`` only who has ended the turn.

A room's games count in the members' statistics and stay out of the high scores (the dice are
shared: as for a challenge). What a player owns here (memberships, the games) joins the
export, the deletion (their boards leave every room's events) and the merge on sign-in.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..engine import Difficulty, Game, Phase
from ..engine.dice import seed_bytes
from ..lru import LruCache
from .challenges import new_code, parted_at, turn_ends
from .db import Database
from .errors import GameNotFound, StaleVersion
from .highscores import aware
from .models import games, players, room_events, room_members, rooms
from .rows import GameRow

ROOM_SIZE = 8
"""The most players a room has (anyone else watches)."""
CLOCKS = (30, 60, 120)
"""The turn clocks a room may have, in seconds (or none: wait for everyone)."""
EVENTS_PAGE = 200
"""The most events one read answers (a client asks again from the last)."""

RoomPhase = Literal["waiting", "playing", "over"]


class RoomNotFound(LookupError):
    """No room with that code."""


class RoomFull(Exception):
    """The room has :data:`ROOM_SIZE` players already."""


class RoomStarted(Exception):
    """The room has started (or is over): a latecomer may watch it."""


class NotRoomMaker(Exception):
    """Only the room's maker may do this."""


class NotRoomMember(Exception):
    """Only the room's members may do this."""


class RoomNotOver(Exception):
    """The room is still being played."""


class NotRoomGame(LookupError):
    """The game is not one of the room's."""


@dataclass(frozen=True)
class RoomMember:
    """A member of a room as everyone sees them."""

    player_id: int
    name: str | None
    joined_at: datetime
    game_id: str | None
    score: int | None
    """The total after the last closed turn (None before the first closes)."""
    done: bool
    """Has ended the open turn (or the game)."""
    coached: list[int] = field(default_factory=list)
    """The turns the coach's fast player ended for them (their clock ran out)."""


@dataclass(frozen=True)
class RoomState:
    """A room's public state."""

    code: str
    maker_id: int
    difficulty: Difficulty
    clock: int | None
    phase: RoomPhase
    turn: int
    """The open (or last) turn, 1-based; 0 before the start."""
    turn_open: bool
    deadline: datetime | None
    seq: int
    """The number of the room's last event."""
    members: list[RoomMember]
    created_at: datetime
    next_code: str | None = None
    """The room its members made to play again (PLAY AGAIN), once this one is over."""
    par: int | None = None
    """The coach's score on the room's dice (once the room is over and it is computed)."""


@dataclass(frozen=True)
class RoomFeedRead:
    """One read for a room's live connections (:meth:`Rooms.room_feed`)."""

    names: dict[int, str | None]
    """The members' names by player id (None: not named)."""
    events: list[RoomEvent]
    due: bool
    """The room wants :meth:`Rooms.after_room_action` (its turn overdue, not every member's
    dice of it rolled, or every member done with it)."""


@dataclass(frozen=True)
class RoomEvent:
    """One event of a room, in order."""

    seq: int
    type: str
    body: dict[str, Any]
    at: datetime


def _event(c: Connection, code: str, kind: str, body: dict[str, Any], now: datetime) -> int:
    """Append an event to the room (the caller's transaction); its number."""
    seq: int = c.execute(
        update(rooms).where(rooms.c.code == code).values(seq=rooms.c.seq + 1).returning(rooms.c.seq)
    ).scalar_one()
    c.execute(insert(room_events).values(code=code, seq=seq, type=kind, body=body, created_at=now))
    return seq


def _locked(c: Connection, code: str, player_id: int) -> tuple[Any, int | None]:
    """The room's row, locked for the transaction (PostgreSQL; SQLite has one writer), and
    whether ``player_id`` is a member (their id, or None); :class:`RoomNotFound`."""
    room = c.execute(select(rooms).where(rooms.c.code == code).with_for_update()).first()
    if room is None:
        raise RoomNotFound(code)
    member = c.scalar(
        select(room_members.c.player_id).where(
            room_members.c.code == code, room_members.c.player_id == player_id
        )
    )
    return room, member


END = datetime.max.replace(tzinfo=UTC)
"""The deadline of a turn with no clock (kept as read: see ``Rooms.after_room_action``)."""


def _deadline(clock: int | None, now: datetime) -> datetime | None:
    """When a turn opened at ``now`` closes: its clock's seconds later (None: no clock)."""
    return now + timedelta(seconds=clock) if clock else None


def _opened(turn: int, deadline: datetime | None) -> dict[str, Any]:
    """A ``turn_opened`` event's body: the turn's number and when it closes (its clock's
    deadline, or None: it waits for everyone); nothing of its roll."""
    return {"turn": turn, "deadline": deadline.isoformat() if deadline else None}


def _done(game: Game, turn: int) -> bool:
    """Whether a member's game has ended turn ``turn`` (or is over)."""
    return _stored_done(game.phase.value, game.turns, turn)


def _stored_done(phase: str, turns: int, turn: int) -> bool:
    """:func:`_done` from a game's stored ``phase`` and ``turns``."""
    return phase == Phase.OVER.value or (phase == Phase.ROLL.value and turns >= turn)


class Rooms:
    """The store's operations on live rooms (part of :class:`~magdagdon.store.Store`)."""

    db: Database
    _row: Callable[..., GameRow]
    _insert_game: Callable[..., GameRow]
    get_game: Callable[[str, int], GameRow]
    finished_game: Callable[[str], GameRow]
    act: Callable[..., GameRow]
    _deadlines: LruCache[tuple[str, int], datetime]
    _roll_within: Callable[[Connection, Any], Game | None]
    _cache: LruCache[tuple[str, int], Game]

    # --- making, joining, starting --------------------------------------------------------

    def create_room(
        self,
        player_id: int,
        difficulty: Difficulty,
        clock: int | None,
        *,
        now: datetime,
        seed: int | None = None,
    ) -> str:
        """A new room made by ``player_id``, who is its first member; its code. ``seed``: the
        room's dice (a test's choice; a secret random seed otherwise)."""
        if clock is not None and clock not in CLOCKS:
            raise ValueError(f"a room's clock is one of {CLOCKS} seconds, or none")
        for _ in range(5):
            code = new_code()
            try:
                with self.db.transaction(write=True) as c:
                    c.execute(
                        insert(rooms).values(
                            code=code,
                            player_id=player_id,
                            difficulty=difficulty.value,
                            clock=clock,
                            seed=(
                                secrets.token_bytes(32) if seed is None else seed_bytes(seed)
                            ).hex(),
                            phase="waiting",
                            turn=0,
                            turn_open=False,
                            seq=0,
                            created_at=now,
                        )
                    )
                    c.execute(
                        insert(room_members).values(code=code, player_id=player_id, joined_at=now)
                    )
                    _event(c, code, "member_joined", {"player": player_id}, now)
                return code
            except IntegrityError:  # the code was taken (one in 8 * 10**14): another
                continue
        raise RuntimeError("no free room code")

    def join_room(self, code: str, player_id: int, *, now: datetime) -> bool:
        """``player_id`` joins the room: True, or False when already a member;
        :class:`RoomStarted` once it has started, :class:`RoomFull` at :data:`ROOM_SIZE`."""
        with self.db.transaction(write=True) as c:
            # the room's row locked (PostgreSQL; SQLite has one writer): two joining a room
            # of seven at once make it eight, not nine
            room, member = _locked(c, code, player_id)
            if member is not None:
                return False
            if room.phase != "waiting":
                raise RoomStarted(code)
            count = len(
                c.execute(select(room_members.c.player_id).where(room_members.c.code == code)).all()
            )
            if count >= ROOM_SIZE:
                raise RoomFull(code)
            try:
                c.execute(
                    insert(room_members).values(code=code, player_id=player_id, joined_at=now)
                )
            except IntegrityError:  # the same player joining twice at once
                return False
            _event(c, code, "member_joined", {"player": player_id}, now)
        return True

    def start_room(self, code: str, player_id: int, *, now: datetime) -> None:
        """The maker starts the room: every member gets a game on the room's seed and turn 1
        opens. :class:`NotRoomMaker` for anyone else; :class:`RoomStarted` once started."""
        with self.db.transaction(write=True) as c:
            # locked: a member joining while the maker starts is in, or told it started
            room = c.execute(select(rooms).where(rooms.c.code == code).with_for_update()).first()
            if room is None:
                raise RoomNotFound(code)
            if room.player_id != player_id:
                raise NotRoomMaker(code)
            deadline = _deadline(room.clock, now)
            started = c.execute(
                update(rooms)
                .where(rooms.c.code == code, rooms.c.phase == "waiting")
                .values(
                    phase="playing",
                    turn=1,
                    turn_open=True,
                    started_at=now,
                    deadline=deadline,
                )
            )
            if started.rowcount != 1:
                raise RoomStarted(code)
            members = c.execute(
                select(room_members.c.player_id)
                .where(room_members.c.code == code)
                .order_by(room_members.c.joined_at, room_members.c.player_id)
            ).all()
            seed = bytes.fromhex(room.seed)
            for m in members:
                game_id = secrets.token_hex(12)
                self._insert_game(
                    c,
                    game_id,
                    m.player_id,
                    Game.new(Difficulty(room.difficulty), seed=seed),
                    now,
                    chosen=True,
                    room=code,
                )
                c.execute(
                    update(room_members)
                    .where(room_members.c.code == code, room_members.c.player_id == m.player_id)
                    .values(game_id=game_id)
                )
            _event(c, code, "room_started", {"players": [m.player_id for m in members]}, now)
            _event(c, code, "turn_opened", _opened(1, deadline), now)
        self._roll_open_turn(code)

    def play_again(self, code: str, player_id: int, *, now: datetime) -> tuple[str, bool]:
        """PLAY AGAIN in a room that is over: the first member to ask makes the next room (new
        dice, the same difficulty and clock; a ``room_again`` event in this one says which),
        the others join it. Its code, and whether it was made now.
        :class:`NotRoomMember`, :class:`RoomNotOver`; :class:`RoomStarted` or :class:`RoomFull`
        from the next room."""
        with self.db.transaction(write=True) as c:
            room, member = _locked(c, code, player_id)
            if member is None:
                raise NotRoomMember(code)
            if room.phase != "over":
                raise RoomNotOver(code)
            following = room.next_code
        if following is not None:
            self.join_room(following, player_id, now=now)
            return following, False
        made = self.create_room(player_id, Difficulty(room.difficulty), room.clock, now=now)
        with self.db.transaction(write=True) as c:
            linked = c.execute(
                update(rooms)
                .where(rooms.c.code == code, rooms.c.next_code.is_(None))
                .values(next_code=made)
            )
            if linked.rowcount == 1:
                _event(c, code, "room_again", {"code": made, "player": player_id}, now)
        if linked.rowcount != 1:  # another member made it first: that one is joined
            self._forget_room(made)
            return self.play_again(code, player_id, now=now)
        return made, True

    def _forget_room(self, code: str) -> None:
        """A room made and never used (lost a race): gone."""
        with self.db.transaction(write=True) as c:
            c.execute(delete(room_events).where(room_events.c.code == code))
            c.execute(delete(room_members).where(room_members.c.code == code))
            c.execute(delete(rooms).where(rooms.c.code == code))

    # --- turns ------------------------------------------------------------------------------

    def _member_games(self, code: str) -> tuple[Any, list[tuple[Any, GameRow]]]:
        """The room's row, and each member's row with their game (members with none left
        out), in the order they joined."""
        room, records = self._member_records(code)
        return room, [(m, self._row(record)) for m, record in records]

    def _member_records(self, code: str) -> tuple[Any, list[tuple[Any, Any]]]:
        """:meth:`_member_games` with each game's stored row (in one read, not one a
        member)."""
        with self.db.transaction() as c:
            room = c.execute(select(rooms).where(rooms.c.code == code)).first()
            if room is None:
                raise RoomNotFound(code)
            members = c.execute(
                select(room_members)
                .where(room_members.c.code == code, room_members.c.game_id.is_not(None))
                .order_by(room_members.c.joined_at, room_members.c.player_id)
            ).all()
            ids = [m.game_id for m in members]
            records = {r.id: r for r in c.execute(select(games).where(games.c.id.in_(ids)))}
        found = []
        for m in members:
            record = records.get(m.game_id)
            if record is None or record.player_id != m.player_id:
                raise GameNotFound(m.game_id)  # (as reading it alone would)
            found.append((m, record))
        return room, found

    def room_parting(self, code: str, first: str, second: str) -> tuple[int | None, int]:
        """SAME DICE, DIFFERENT CHOICES of a finished room: the first turn where two of its
        games parted (:func:`~.challenges.parted_at`; None: never) and the longer game's
        turns. Raises :class:`RoomNotFound`, :class:`RoomNotOver`, :class:`NotRoomGame`."""
        with self.db.transaction() as c:
            phase = c.scalar(select(rooms.c.phase).where(rooms.c.code == code))
            if phase is None:
                raise RoomNotFound(code)
            theirs = set(
                c.scalars(
                    select(room_members.c.game_id).where(
                        room_members.c.code == code, room_members.c.game_id.in_((first, second))
                    )
                )
            )
        if phase != "over":
            raise RoomNotOver(code)
        for game_id in (first, second):
            if game_id not in theirs:
                raise NotRoomGame(game_id)
        # the two games only, with their logs (and cached), as a challenge's results read them
        a, b = (self.finished_game(game_id).game for game_id in (first, second))
        return parted_at(turn_ends(a), turn_ends(b)), max(a.turns, b.turns)

    def _roll_open_turn(self, code: str) -> None:
        """Roll the open turn's dice in every member's game that has not rolled them yet (a
        crash between opening a turn and its rolls is mended by whoever looks next)."""
        room, records = self._member_records(code)
        if room.phase != "playing" or not room.turn_open:
            return
        # (in the order of their ids, as a closing takes them: two at once never deadlock)
        waiting = sorted(
            (r for _, r in records if _unrolled(r.phase, r.turns, room.turn)), key=lambda r: r.id
        )
        if waiting:  # (one that another request rolled meanwhile is left as it is)
            with self.db.transaction(write=True) as c:
                rolled = [(record, self._roll_within(c, record)) for record in waiting]
            self._keep_rolled(rolled)

    def _keep_rolled(self, rolled: list[tuple[Any, Game | None]]) -> None:
        """Keep the games :meth:`_roll_within` rolled in this process's cache, once their
        transaction is committed (None: not rolled)."""
        for record, game in rolled:
            if game is not None:
                self._cache.put((record.id, record.version + 1), game)

    def after_room_action(
        self,
        code: str,
        *,
        now: datetime,
        ended_by: int | None = None,
        playing: int | None = None,
    ) -> bool:
        """After a member's action (or when a room is looked at): close the open turn if every
        member has ended it, or its deadline has passed (the coach ends it for whoever has
        not); then open the next turn or end the room. Whether a game of the room may have
        changed (rolled, or its turn ended by the coach): False when nothing was done.

        ``ended_by``: the member whose action (CONFIRM, ACCEPT MAGDAGDON) may have ended their
        turn: if it did, a ``member_done`` event says so (who, not what they played) before the
        turn closes.

        ``playing``: the open turn, when the action did not end the member's turn (a die
        staged, a power used): then only the turn's deadline can close it, and a deadline
        this process has read that has not passed needs no read of the room."""
        if playing is not None:
            deadline = self._deadlines.get((code, playing))
            if deadline is not None and now < deadline:
                return False
        if ended_by is not None:
            self._member_done(code, ended_by, now)
        # first what the rows say (two reads: this runs on every look at the room)
        with self.db.transaction() as c:
            room = c.execute(select(rooms).where(rooms.c.code == code)).first()
            if room is None:
                raise RoomNotFound(code)
            if room.phase != "playing" or not room.turn_open:
                return False
            self._keep_deadline(code, room.turn, room.deadline)
            states = _member_states(c, code)
        overdue = _overdue(room, now)
        mended = any(_unrolled(s.phase, s.turns, room.turn) for s in states)
        if mended:
            self._roll_open_turn(code)  # an opening interrupted before its rolls: mended
        elif not overdue and not all(_stored_done(s.phase, s.turns, room.turn) for s in states):
            return False
        room, members = self._member_games(code)
        if room.phase != "playing" or not room.turn_open:
            return mended
        overdue = _overdue(room, now)
        waiting = [(m, row) for m, row in members if not _done(row.game, room.turn)]
        if waiting and not overdue:
            return mended
        coached = []
        for m, row in waiting:
            if self._coach_ends_turn(m.player_id, row, room.turn):
                coached.append(m.player_id)
        self._close_turn(code, room.turn, coached, now)
        return True

    def _keep_deadline(self, code: str, turn: int, deadline: datetime | None) -> None:
        """Keep turn ``turn``'s deadline as read or set (see ``playing`` of
        :meth:`after_room_action`)."""
        self._deadlines.put((code, turn), aware(deadline) if deadline else END)

    def _member_done(self, code: str, player_id: int, now: datetime) -> None:
        """``member_done`` for ``player_id`` if their game has ended the room's open turn
        (their CONFIRM is taken once a turn: one event a member and turn)."""
        with self.db.transaction(write=True) as c:
            room = c.execute(select(rooms).where(rooms.c.code == code).with_for_update()).first()
            if room is None or room.phase != "playing" or not room.turn_open:
                return
            state = c.execute(
                select(games.c.phase, games.c.turns)
                .join(room_members, room_members.c.game_id == games.c.id)
                .where(room_members.c.code == code, room_members.c.player_id == player_id)
            ).first()
            if state is not None and _stored_done(state.phase, state.turns, room.turn):
                body = {"player": player_id, "turn": room.turn}
                _event(c, code, "member_done", body, now)

    def _coach_ends_turn(self, player_id: int, row: GameRow, turn: int) -> bool:
        """The coach's fast player ends the member's turn from where it stands (what they
        staged is taken back first); True once the turn is ended."""
        from ..ai.heuristic import HeuristicPlayer

        player = HeuristicPlayer()
        for _ in range(40):  # a turn is a few actions; a bound all the same
            game = row.game
            if _done(game, turn):
                return True
            if game.phase is Phase.ROLL:  # (not rolled yet: the room's roll first)
                plan: list[Any] = [{"type": "roll"}]
            elif game.staged:
                plan = [{"type": "unstage_all"}]
            else:
                plan = player.turn(game)

            def change(g: Game, plan: list[Any] = plan) -> None:
                for action in plan:
                    g.apply(action)
                    if _done(g, turn):
                        break

            try:
                row = self.act(row.id, player_id, row.version, change, by_room=True)
            except StaleVersion as exc:  # the member (or another request) acted: look again
                row = exc.current
        return _done(row.game, turn)

    def _close_turn(self, code: str, turn: int, coached: list[int], now: datetime) -> None:
        """Close turn ``turn`` once (whichever request gets here first), with every board in
        its event; then open the next turn, or end the room."""
        room, records = self._member_records(code)
        members = [(m, self._row(record)) for m, record in records]
        boards = [
            {
                "player": m.player_id,
                "board": str(row.game.board),
                "score": row.game.score().total,
                "over": row.game.phase is Phase.OVER,
                "coached": m.player_id in coached,
            }
            for m, row in members
        ]
        over = all(row.game.phase is Phase.OVER for _, row in members)
        # the games the next turn rolls (their players ended this one; none once all are over)
        rolling = [
            record
            for _, record in records
            if not over and _unrolled(record.phase, record.turns, turn + 1)
        ]
        with self.db.transaction(write=True) as c:
            if rolling and c.dialect.name == "postgresql":
                # their rows first, as a sign-in's merge takes a guest's games before the room
                # (store/accounts.py): the other order could deadlock with it
                c.execute(
                    select(games.c.id)
                    .where(games.c.id.in_(sorted(r.id for r in rolling)))
                    .order_by(games.c.id)
                    .with_for_update()
                )
            closed = c.execute(
                update(rooms)
                .where(rooms.c.code == code, rooms.c.turn == turn, rooms.c.turn_open.is_(True))
                .values(turn_open=False)
            )
            if closed.rowcount != 1:
                return  # closed by another request
            for player_id in coached:
                member = c.execute(
                    select(room_members.c.coached).where(
                        room_members.c.code == code, room_members.c.player_id == player_id
                    )
                ).scalar_one_or_none()
                c.execute(
                    update(room_members)
                    .where(room_members.c.code == code, room_members.c.player_id == player_id)
                    .values(coached=[*(member or []), turn])
                )
            _event(c, code, "turn_closed", {"turn": turn, "boards": boards}, now)
            if over:
                c.execute(
                    update(rooms).where(rooms.c.code == code).values(phase="over", finished_at=now)
                )
                standings = sorted(boards, key=lambda b: -int(b["score"]))
                _event(c, code, "room_over", {"standings": standings}, now)
                return
            deadline = _deadline(room.clock, now)
            c.execute(
                update(rooms)
                .where(rooms.c.code == code)
                .values(turn=turn + 1, turn_open=True, deadline=deadline)
            )
            _event(c, code, "turn_opened", _opened(turn + 1, deadline), now)
            # every member's dice of the new turn, in the transaction that opens it (a game
            # another request changed meanwhile is rolled by the next look: _roll_open_turn)
            rolled = [(record, self._roll_within(c, record)) for record in rolling]
        # kept once written (a transaction that failed leaves nothing in this process either)
        self._keep_deadline(code, turn + 1, deadline)
        self._keep_rolled(rolled)
        if not all(game is not None for _, game in rolled):
            self._roll_open_turn(code)

    # --- reading ----------------------------------------------------------------------------

    def room(self, code: str) -> RoomState:
        """A room's public state (:class:`RoomNotFound` if there is none)."""
        with self.db.transaction() as c:
            room = c.execute(select(rooms).where(rooms.c.code == code)).first()
            if room is None:
                raise RoomNotFound(code)
            records = c.execute(
                select(room_members, players.c.name, games.c.phase, games.c.turns)
                .join(players, players.c.id == room_members.c.player_id)
                .outerjoin(games, games.c.id == room_members.c.game_id)
                .where(room_members.c.code == code)
                .order_by(room_members.c.joined_at, room_members.c.player_id)
            ).all()
            last = c.execute(
                select(room_events.c.body)
                .where(room_events.c.code == code, room_events.c.type == "turn_closed")
                .order_by(room_events.c.seq.desc())
                .limit(1)
            ).scalar_one_or_none()
        scores = {b["player"]: b["score"] for b in (last or {}).get("boards", [])}
        members = [
            RoomMember(
                player_id=r.player_id,
                name=r.name,
                joined_at=aware(r.joined_at),
                game_id=r.game_id,
                score=scores.get(r.player_id),
                done=r.phase is not None and _stored_done(r.phase, r.turns, room.turn),
                coached=list(r.coached or []),
            )
            for r in records
        ]
        return RoomState(
            code=room.code,
            maker_id=room.player_id,
            difficulty=Difficulty(room.difficulty),
            clock=room.clock,
            phase=room.phase,
            turn=room.turn,
            turn_open=bool(room.turn_open),
            deadline=aware(room.deadline) if room.deadline else None,
            seq=room.seq,
            members=members,
            created_at=aware(room.created_at),
            next_code=room.next_code,
            par=room.par,
        )

    def room_seed(self, code: str) -> tuple[Difficulty, bytes]:
        """The room's difficulty and dice (for the coach's score, computed on the server)."""
        with self.db.transaction() as c:
            room = c.execute(select(rooms.c.difficulty, rooms.c.seed).where(rooms.c.code == code))
            record = room.first()
        if record is None:
            raise RoomNotFound(code)
        return Difficulty(record.difficulty), bytes.fromhex(record.seed)

    def save_room_par(self, code: str, par: int) -> None:
        """Keep the coach's score on the room's dice (the first computed stays)."""
        with self.db.transaction(write=True) as c:
            c.execute(
                update(rooms).where(rooms.c.code == code, rooms.c.par.is_(None)).values(par=par)
            )

    def room_events(self, code: str, since: int = 0) -> list[RoomEvent]:
        """The room's events after number ``since``, in order (at most :data:`EVENTS_PAGE`)."""
        with self.db.transaction() as c:
            return _events_after(c, code, since)

    def room_feed(self, code: str, since: int, now: datetime) -> RoomFeedRead:
        """What a room's live connections need, in one read: the members' names and the
        events after ``since`` (as :meth:`room_events`), and whether the room wants
        :meth:`after_room_action`: its open turn overdue at ``now``, a member's dice of it not
        rolled (an opening interrupted) or every member done with it (a closing interrupted).
        :class:`RoomNotFound` if there is none."""
        with self.db.transaction() as c:
            room = c.execute(
                select(rooms.c.phase, rooms.c.turn, rooms.c.turn_open, rooms.c.deadline).where(
                    rooms.c.code == code
                )
            ).first()
            if room is None:
                raise RoomNotFound(code)
            names: dict[int, str | None] = dict(
                c.execute(
                    select(room_members.c.player_id, players.c.name)
                    .join(players, players.c.id == room_members.c.player_id)
                    .where(room_members.c.code == code)
                ).all()
            )
            events = _events_after(c, code, since)
            due = False
            if room.phase == "playing" and room.turn_open:
                self._keep_deadline(code, room.turn, room.deadline)
                states = _member_states(c, code)
                due = (
                    _overdue(room, now)
                    or any(_unrolled(s.phase, s.turns, room.turn) for s in states)
                    or all(_stored_done(s.phase, s.turns, room.turn) for s in states)
                )
        return RoomFeedRead(names, events, due)

    def open_rooms_due(self, now: datetime) -> list[str]:
        """The rooms whose open turn's deadline has passed (for the clock's watcher)."""
        with self.db.transaction() as c:
            return list(
                c.scalars(
                    select(rooms.c.code).where(
                        rooms.c.phase == "playing",
                        rooms.c.turn_open.is_(True),
                        rooms.c.deadline <= now,
                    )
                )
            )


def _overdue(room: Any, now: datetime) -> bool:
    """Whether the room's (stored row's) open turn's deadline has passed at ``now``."""
    return room.deadline is not None and now >= aware(room.deadline)


def _unrolled(phase: str, turns: int, turn: int) -> bool:
    """Whether a member's game (its stored ``phase`` and ``turns``) waits for the room's roll
    of turn ``turn``."""
    return phase == Phase.ROLL.value and turns == turn - 1


def _member_states(c: Connection, code: str) -> list[Any]:
    """The stored ``phase`` and ``turns`` of each member's game in room ``code``."""
    return list(
        c.execute(
            select(games.c.phase, games.c.turns)
            .join(room_members, room_members.c.game_id == games.c.id)
            .where(room_members.c.code == code)
        ).all()
    )


def _events_after(c: Connection, code: str, since: int) -> list[RoomEvent]:
    """Room ``code``'s events after number ``since``, in order (at most :data:`EVENTS_PAGE`)."""
    records = c.execute(
        select(room_events)
        .where(room_events.c.code == code, room_events.c.seq > since)
        .order_by(room_events.c.seq)
        .limit(EVENTS_PAGE)
    ).all()
    return [RoomEvent(r.seq, r.type, dict(r.body), aware(r.created_at)) for r in records]


def _rewrite_events(c: Connection, codes: list[str], swap: Callable[[Any], Any]) -> None:
    """Rewrite the player ids in the rooms' events: ``swap(id)`` is the new id, or None to
    leave the player's entries out."""
    for r in c.execute(select(room_events).where(room_events.c.code.in_(codes))).all():
        body = dict(r.body)
        for key in ("boards", "standings"):
            if key in body:
                body[key] = [
                    {**b, "player": swap(b["player"])}
                    for b in body[key]
                    if swap(b.get("player")) is not None
                ]
        if "player" in body:
            body["player"] = swap(body["player"])
        if "players" in body:
            body["players"] = [swap(p) for p in body["players"] if swap(p) is not None]
        if body != r.body:
            c.execute(
                update(room_events)
                .where(room_events.c.code == r.code, room_events.c.seq == r.seq)
                .values(body=body)
            )


def forget_player_in_rooms(c: Connection, ids: list[int]) -> None:
    """A deleted player's boards leave every room they were in (the caller's transaction):
    their memberships go, their entries leave the rooms' events, and a room they made passes
    to its member who joined first (or goes, with nobody left)."""
    codes = list(
        c.scalars(select(room_members.c.code).where(room_members.c.player_id.in_(ids)).distinct())
    )
    c.execute(delete(room_members).where(room_members.c.player_id.in_(ids)))
    gone = set(ids)
    _rewrite_events(c, codes, lambda p: None if p in gone else p)
    for code in c.scalars(select(rooms.c.code).where(rooms.c.player_id.in_(ids))).all():
        heir = c.scalar(
            select(room_members.c.player_id)
            .where(room_members.c.code == code)
            .order_by(room_members.c.joined_at, room_members.c.player_id)
            .limit(1)
        )
        if heir is not None:
            c.execute(update(rooms).where(rooms.c.code == code).values(player_id=heir))
        else:
            c.execute(delete(room_events).where(room_events.c.code == code))
            c.execute(delete(rooms).where(rooms.c.code == code))


def merge_rooms(c: Connection, source: int, target: int) -> None:
    """A device's player signs in to an account (the caller's transaction): its rooms become
    the account's; in a room where both are members, the account's membership stays and the
    device's game stays a game of the account's."""
    codes = list(c.scalars(select(room_members.c.code).where(room_members.c.player_id == source)))
    both = set(
        c.scalars(
            select(room_members.c.code).where(
                room_members.c.player_id == target, room_members.c.code.in_(codes)
            )
        )
    )
    if both:
        c.execute(
            delete(room_members).where(
                room_members.c.player_id == source, room_members.c.code.in_(both)
            )
        )
    c.execute(
        update(room_members).where(room_members.c.player_id == source).values(player_id=target)
    )
    c.execute(update(rooms).where(rooms.c.player_id == source).values(player_id=target))
    _rewrite_events(c, codes, lambda p: target if p == source else p)


def rooms_of(c: Connection, player_id: int) -> list[dict[str, Any]]:
    """The player's rooms for the export: each membership with its room."""
    records = c.execute(
        select(room_members, rooms.c.difficulty, rooms.c.phase, rooms.c.player_id.label("maker"))
        .join(rooms, rooms.c.code == room_members.c.code)
        .where(room_members.c.player_id == player_id)
        .order_by(room_members.c.joined_at)
    ).all()
    return [
        {
            "code": r.code,
            "difficulty": r.difficulty,
            "phase": r.phase,
            "maker": r.maker == player_id,
            "joined_at": aware(r.joined_at).isoformat(),
            "game_id": r.game_id,
            "coached": list(r.coached or []),
        }
        for r in records
    ]
