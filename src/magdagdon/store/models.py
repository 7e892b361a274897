"""The tables (SQLAlchemy Core): players, games with their snapshots, their actions, high
scores, the daily games' results and pars, and the server's secrets. The migrations make the
same schema; every query of the store is written against these.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.types import DateTime, TypeDecorator


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on every backend (SQLite stores them naive)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("naive datetime")
        return value.astimezone(UTC) if value is not None else None

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


def utcnow() -> datetime:
    """Now, in UTC."""
    return datetime.now(UTC)


class GameStatus(StrEnum):
    """Where a stored game stands: being played, finished (scored), or abandoned (R16)."""

    ACTIVE = "active"
    OVER = "over"
    ABANDONED = "abandoned"


metadata = MetaData()

_NAMED = text("name_skeleton IS NOT NULL")

players = Table(
    "players",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(64), nullable=True),
    # the confusable skeleton of the name (magdagdon.names): look-alike names have the same
    Column("name_skeleton", String(255), nullable=True),
    Column("created_at", UTCDateTime(), nullable=False, default=utcnow),
    # when the player became an account (a passkey or a transfer code); None: anonymous
    Column("account_since", UTCDateTime(), nullable=True),
    # the account's WebAuthn user handle (random, base64url): what a passkey names it by
    Column("handle", String(64), nullable=True, unique=True),
    # a player whose device signed in to an account: what stayed behind (daily games played
    # on both devices, the later one), kept under the account it went to
    Column("merged_into", ForeignKey("players.id"), nullable=True, index=True),
    # no two players with look-alike names, whatever races between requests
    Index(
        "uq_players_name_skeleton",
        "name_skeleton",
        unique=True,
        sqlite_where=_NAMED,
        postgresql_where=_NAMED,
    ),
    # SQLite: an id is never given again once deleted (an ended cookie stays a stranger's)
    sqlite_autoincrement=True,
)
"""Players: anonymous ones (a device's) and accounts (signed in with a passkey or a code)."""

sessions = Table(
    "sessions",
    metadata,
    # the public id, to list and revoke a session
    Column("id", String(32), primary_key=True),
    # a device is recognised by a random token in its cookie, whose SHA-256 is stored
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("player_id", ForeignKey("players.id"), nullable=False, index=True),
    # how it began: "visit" (a first visit), "passkey" or "transfer" (a sign-in), "earlier"
    # (a cookie of a release before sessions: migration 0006)
    Column("method", String(16), nullable=False),
    # what the device said it is (browser and system, from its User-Agent), to tell them apart
    Column("label", String(64), nullable=False, default=""),
    Column("created_at", UTCDateTime(), nullable=False, default=utcnow),
    Column("last_used_at", UTCDateTime(), nullable=False, default=utcnow),
    # the passkey it signed in with (a sign-in with a passkey): a first passkey on probation
    # does not make its sessions a way back into the account (store/accounts.py)
    Column("passkey_id", String(32), nullable=True),
)
"""Sessions: a device's cookie, each of one player; ended by signing out, revoked, or unused."""

passkeys = Table(
    "passkeys",
    metadata,
    Column("id", String(32), primary_key=True),
    # the credential's id (base64url) as the authenticator made it
    Column("credential_id", String(1400), nullable=False, unique=True),
    Column("player_id", ForeignKey("players.id"), nullable=False, index=True),
    Column("public_key", String(2048), nullable=False),
    Column("sign_count", Integer, nullable=False, default=0),
    Column("transports", JSON, nullable=False),
    Column("label", String(64), nullable=False, default=""),
    Column("created_at", UTCDateTime(), nullable=False, default=utcnow),
    Column("last_used_at", UTCDateTime(), nullable=True),
    # the session that added it, and for the account's first passkey (added with no passkey's
    # proof: a stolen cookie could have) the end of its probation (store/accounts.py)
    Column("added_by", String(32), nullable=True),
    Column("probation_until", UTCDateTime(), nullable=True),
)
"""An account's passkeys (WebAuthn credentials): only their public parts."""

challenges = Table(
    "webauthn_challenges",
    metadata,
    # the challenge itself (base64url): the browser's answer names it in its client data
    Column("challenge", String(128), primary_key=True),
    # "register" (a passkey for this player) or "sign-in" (anybody's passkey)
    Column("purpose", String(16), nullable=False),
    Column("player_id", ForeignKey("players.id"), nullable=True),
    # the session that asked (a passkey's registration is answered from it alone): ended
    # with it (migration 0007)
    Column("session_id", ForeignKey("sessions.id", ondelete="CASCADE"), nullable=True, index=True),
    Column("expires_at", UTCDateTime(), nullable=False, index=True),
)
"""WebAuthn challenges handed out and not yet answered: each is used once, whichever worker
the answer reaches."""

transfer_codes = Table(
    "transfer_codes",
    metadata,
    Column("code_hash", String(64), primary_key=True),
    Column("player_id", ForeignKey("players.id"), nullable=False, index=True),
    # the session that made it: a code ends with it (signing out, revoked, sign out
    # everywhere), so a stolen cookie's codes do not outlive it (migration 0007)
    Column("session_id", ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("created_at", UTCDateTime(), nullable=False, default=utcnow),
    Column("expires_at", UTCDateTime(), nullable=False),
)
"""Transfer codes: one-time, short-lived sign-ins to an account (only their hash is kept)."""

_ACTIVE_REGULAR = text(
    "status = 'active' AND daily IS NULL AND challenge IS NULL AND past_daily IS NULL "
    "AND room IS NULL"
)
_DAILY = text("daily IS NOT NULL")
_CHALLENGE = text("challenge IS NOT NULL")

games = Table(
    "games",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("player_id", ForeignKey("players.id"), nullable=False, index=True),
    Column("difficulty", String(16), nullable=False),
    Column("seed", String(128), nullable=False),
    # the seed was chosen when the game was made (test servers): no high score
    Column("chosen_seed", Boolean, nullable=False, default=False, server_default=false()),
    # Game.snapshot() at `version` (None until the first action after migration 0003)
    Column("state", JSON, nullable=True),
    Column("action_count", Integer, nullable=False, default=0, server_default="0"),
    Column("version", Integer, nullable=False, default=0),
    Column("status", String(16), nullable=False, default=GameStatus.ACTIVE.value),
    Column("phase", String(16), nullable=False, default="roll"),
    Column("score", Integer, nullable=True),
    Column("turns", Integer, nullable=False, default=0),
    Column("powers_used", Integer, nullable=False, default=0),
    Column("hints_used", Integer, nullable=False, default=0),
    Column("hinted_version", Integer, nullable=True),
    Column("created_at", UTCDateTime(), nullable=False, default=utcnow),
    Column("updated_at", UTCDateTime(), nullable=False, default=utcnow),
    Column("finished_at", UTCDateTime(), nullable=True),
    # a daily game: its UTC day "YYYY-MM-DD" (its seed is the day's, see store.daily)
    Column("daily", String(10), nullable=True),
    # started by an account (a daily's result is then ranked)
    Column("by_account", Boolean, nullable=False, default=False, server_default=false()),
    # a challenge's game: the challenge's code (its seed is the challenger's game's; it stays
    # out of the high scores: see store.challenges)
    Column("challenge", String(16), nullable=True),
    # a game started as a REMATCH of a challenge: when it ends, it is a challenge back
    Column("rematch_of", String(16), nullable=True),
    # a past daily: the UTC day "YYYY-MM-DD" whose daily it plays again once the day is over
    # (its dice are public then): out of that day's leaderboard, the streak, the leagues and
    # the high scores (store.daily, migration 0013)
    Column("past_daily", String(10), nullable=True),
    # a live room's game: the room's code (its seed is the room's; the room rolls its dice;
    # it stays out of the high scores: store.rooms, migration 0014)
    Column("room", String(16), nullable=True),
    # a finished game whose turns were searched for puzzles (store.puzzles)
    Column("puzzles_mined", Boolean, nullable=False, default=False, server_default=false()),
    Index("ix_games_player_status", "player_id", "status"),
    Index("ix_games_past_daily", "player_id", "past_daily"),
    # one unfinished regular game per player, whatever races between requests
    Index(
        "uq_games_active_player",
        "player_id",
        unique=True,
        sqlite_where=_ACTIVE_REGULAR,
        postgresql_where=_ACTIVE_REGULAR,
    ),
    # one attempt per player at each daily
    Index(
        "uq_games_daily_player",
        "daily",
        "difficulty",
        "player_id",
        unique=True,
        sqlite_where=_DAILY,
        postgresql_where=_DAILY,
    ),
    # one game per player of each challenge, whatever races between requests
    Index(
        "uq_games_challenge_player",
        "challenge",
        "player_id",
        unique=True,
        sqlite_where=_CHALLENGE,
        postgresql_where=_CHALLENGE,
    ),
)
"""Games: the secret seed, a snapshot of the state, and what the engine said of it."""

game_actions = Table(
    "game_actions",
    metadata,
    Column("game_id", ForeignKey("games.id"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("action", JSON, nullable=False),
    PrimaryKeyConstraint("game_id", "seq", name="pk_game_actions"),
)
"""Each game's action log, one row an action in order: appending costs the same at any length."""

highscores = Table(
    "highscores",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("game_id", ForeignKey("games.id"), nullable=False),
    Column("player_id", ForeignKey("players.id"), nullable=False),
    Column("difficulty", String(16), nullable=False),
    Column("score", Integer, nullable=False),
    Column("turns", Integer, nullable=False),
    Column("powers_used", Integer, nullable=False),
    Column("hints_used", Integer, nullable=False, default=0),
    Column("finished_at", UTCDateTime(), nullable=False),
    UniqueConstraint("game_id", name="uq_highscores_game"),
    Index("ix_highscores_table", "difficulty", "score", "finished_at"),
    Index("ix_highscores_player", "player_id", "difficulty"),
)
"""A finished game's entry in its difficulty's table, written by the server alone."""

daily_results = Table(
    "daily_results",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("game_id", ForeignKey("games.id"), nullable=False),
    Column("player_id", ForeignKey("players.id"), nullable=False),
    Column("day", String(10), nullable=False),
    Column("difficulty", String(16), nullable=False),
    Column("score", Integer, nullable=False),
    Column("turns", Integer, nullable=False),
    Column("powers_used", Integer, nullable=False),
    Column("hints_used", Integer, nullable=False),
    Column("finished_at", UTCDateTime(), nullable=False),
    # played by an account from its start: ranked on the leaderboard (anonymous games are
    # shown apart, unless the server's owner ranks everyone)
    Column("ranked", Boolean, nullable=False, default=False, server_default=false()),
    UniqueConstraint("game_id", name="uq_daily_results_game"),
    # the leaderboard: its top rows and the count of better scores are ranges of this index
    Index("ix_daily_results_board", "day", "difficulty", "score", "finished_at"),
    Index("ix_daily_results_player", "player_id", "day"),
)
"""A finished daily game's row in its day's leaderboard (daily games stay out of the high
scores: everybody knows the day's dice once somebody has seen them)."""

daily_scores = Table(
    "daily_scores",
    metadata,
    Column("day", String(10), nullable=False),
    Column("difficulty", String(16), nullable=False),
    Column("score", Integer, nullable=False),
    Column("ranked", Boolean, nullable=False, default=False, server_default=false()),
    Column("players", Integer, nullable=False),
    PrimaryKeyConstraint("day", "difficulty", "score", "ranked", name="pk_daily_scores"),
)
"""How many finished each daily with each score, kept with ``daily_results``: a player's rank
and the number of players are sums over a few hundred scores, not counts of every game."""

dailies = Table(
    "dailies",
    metadata,
    Column("day", String(10), nullable=False),
    Column("difficulty", String(16), nullable=False),
    # the strong player's score on the day's dice; claimed by one worker, which computes it
    Column("par", Integer, nullable=True),
    Column("par_claimed_at", UTCDateTime(), nullable=False),
    Column("par_claimed_by", String(64), nullable=False),
    PrimaryKeyConstraint("day", "difficulty", name="pk_dailies"),
)
"""Each daily that someone has started: the coach's score on its dice (the par)."""

secrets_table = Table(
    "server_secrets",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("value", String(128), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False, default=utcnow),
)
"""Secrets the server makes once and every worker and host shares (the daily games' key)."""

game_challenges = Table(
    "game_challenges",
    metadata,
    # the link's code: short and unguessable (store.challenges.CODE_LETTERS)
    Column("code", String(16), primary_key=True),
    # the challenger's finished game, whose dice every game of the challenge plays
    Column("game_id", ForeignKey("games.id"), nullable=False, unique=True),
    Column("player_id", ForeignKey("players.id"), nullable=False, index=True),
    Column("difficulty", String(16), nullable=False),
    # a REMATCH: the challenge this one answers (its challenger is this one's friend)
    Column("reply_to", String(16), nullable=True, index=True),
    # a REMATCH: the challenger it answers has seen it in their news
    Column("reply_seen", Boolean, nullable=False, default=False, server_default=false()),
    # the coach's score on the challenge's dice, once computed
    Column("par", Integer, nullable=True),
    # how many had finished it when its challenger last looked (the rest are news)
    Column("seen", Integer, nullable=False, default=0, server_default="0"),
    Column("created_at", UTCDateTime(), nullable=False, default=utcnow),
)
"""Challenges: a finished game's dice offered to friends through a link."""

leagues = Table(
    "leagues",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("difficulty", String(16), nullable=False),
    # the invite link's code; renewing it makes a new one (the old link dies)
    Column("invite", String(16), nullable=False, unique=True),
    # the creator: renews the invite, removes members
    Column("player_id", ForeignKey("players.id"), nullable=False, index=True),
    Column("created_at", UTCDateTime(), nullable=False, default=utcnow),
    # the last hand-over of the creator's part: the leaver's name then ("" for none), and when
    Column("handed_from", String(64), nullable=True),
    Column("handed_at", UTCDateTime(), nullable=True),
)
"""Private leagues: a table of the members' daily scores, week by week."""

league_members = Table(
    "league_members",
    metadata,
    Column("league_id", ForeignKey("leagues.id", ondelete="CASCADE"), nullable=False),
    Column("player_id", ForeignKey("players.id"), nullable=False, index=True),
    Column("joined_at", UTCDateTime(), nullable=False, default=utcnow),
    PrimaryKeyConstraint("league_id", "player_id", name="pk_league_members"),
)
"""Who is in which league (the creator too)."""

client_files = Table(
    "client_files",
    metadata,
    Column("release", String(16), nullable=False),
    Column("path", String(255), nullable=False),
    Column("media_type", String(64), nullable=False),
    Column("body", LargeBinary, nullable=False),
    Column("created_at", UTCDateTime(), nullable=False, default=utcnow),
    PrimaryKeyConstraint("release", "path", name="pk_client_files"),
)
"""The browser client's files of the last few releases (store.releases): a page of one release
still open after an upgrade loads what it had not loaded yet from here, on any host."""

_FIRST = text("first_try")
_PUBLIC = text("owner IS NULL")
_OWN = text("owner IS NOT NULL")

puzzles = Table(
    "puzzles",
    metadata,
    Column("id", Integer, primary_key=True),
    # the position's SHA-256 with its owner's id: the same puzzle is loaded once
    Column("key", String(64), nullable=False, unique=True),
    Column("difficulty", String(16), nullable=False),
    # None: a public puzzle; else one of the player's own games' ("your puzzles")
    Column("owner", ForeignKey("players.id"), nullable=True, index=True),
    # where it was found ("starter", "self-play:…", "game"), and whose game (anonymised
    # when that player is deleted)
    Column("source", String(64), nullable=False, default=""),
    Column("source_player", Integer, nullable=True, index=True),
    Column("source_game", String(32), nullable=True),
    # the position in the engine's own form (Game.from_position's keyword arguments)
    Column("position", JSON, nullable=False),
    Column("best", JSON, nullable=False),
    Column("best_value", Float, nullable=False),
    Column("second_value", Float, nullable=False),
    Column("plans", Integer, nullable=False),
    Column("themes", JSON, nullable=False),
    # the puzzle check's figures (ai.puzzles.Puzzle.check), None for one not checked
    Column("check_figures", JSON(none_as_null=True), nullable=True),
    # a starter puzzle a later starter set dropped: never given again, kept with its attempts
    Column("retired", Boolean, nullable=False, default=False, server_default=false()),
    # the position up to the board's symmetries and the dice's order, hashed
    # (store.puzzles.puzzle_shape): one puzzle a position in each pool
    Column("shape", String(64), nullable=True, index=True),
    # the themes as bits of ai.puzzles.THEMES (to filter by one in the index's order)
    Column("theme_mask", Integer, nullable=False, default=0),
    Column("rating", Float, nullable=False, default=1500.0),
    Column("deviation", Float, nullable=False, default=350.0),
    Column("volatility", Float, nullable=False, default=0.06),
    Column("plays", Integer, nullable=False, default=0),
    Column("solves", Integer, nullable=False, default=0),
    Column("created_at", UTCDateTime(), nullable=False, default=utcnow),
    # the next puzzle walks these in rating order from a target (store.puzzles): partial, so
    # that the public ones' is an index of (difficulty, rating, id) with no NULL to match
    Index(
        "ix_puzzles_public",
        "difficulty",
        "rating",
        "id",
        sqlite_where=_PUBLIC,
        postgresql_where=_PUBLIC,
    ),
    Index(
        "ix_puzzles_own",
        "owner",
        "difficulty",
        "rating",
        "id",
        sqlite_where=_OWN,
        postgresql_where=_OWN,
    ),
    sqlite_autoincrement=True,
)
"""Puzzles: a decision of a real game where one plan stands out (ai.puzzles), rated."""

puzzle_ratings = Table(
    "puzzle_ratings",
    metadata,
    Column("player_id", ForeignKey("players.id"), nullable=False),
    # "public" (the puzzles everybody plays) or "own" (the player's own games'): rated apart
    Column("pool", String(8), nullable=False),
    Column("rating", Float, nullable=False, default=1500.0),
    Column("deviation", Float, nullable=False, default=350.0),
    Column("volatility", Float, nullable=False, default=0.06),
    Column("attempts", Integer, nullable=False, default=0),
    Column("solved", Integer, nullable=False, default=0),
    # STREAK: puzzles solved in a row, and the most
    Column("streak", Integer, nullable=False, default=0),
    Column("best_streak", Integer, nullable=False, default=0),
    Column("updated_at", UTCDateTime(), nullable=False, default=utcnow),
    PrimaryKeyConstraint("player_id", "pool", name="pk_puzzle_ratings"),
)
"""A player's puzzle ratings (Glicko-2), one per pool."""

puzzle_served = Table(
    "puzzle_served",
    metadata,
    Column("player_id", ForeignKey("players.id"), nullable=False),
    Column("puzzle_id", ForeignKey("puzzles.id"), nullable=False, index=True),
    # how it was asked: "rated", "streak", "daily", "own"
    Column("mode", String(8), nullable=False),
    Column("served_at", UTCDateTime(), nullable=False, default=utcnow),
    PrimaryKeyConstraint("player_id", "puzzle_id", name="pk_puzzle_served"),
)
"""Which puzzles each player was given (never given again)."""

puzzle_attempts = Table(
    "puzzle_attempts",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("puzzle_id", ForeignKey("puzzles.id"), nullable=False, index=True),
    Column("player_id", ForeignKey("players.id"), nullable=False, index=True),
    Column("mode", String(8), nullable=False),
    Column("actions", JSON, nullable=False),
    Column("solved", Boolean, nullable=False),
    Column("yours", Float, nullable=False),
    # the player's first attempt at the puzzle (only it may be rated)
    Column("first_try", Boolean, nullable=False),
    Column("rated", Boolean, nullable=False),
    # a puzzle given and never tried, counted as missed (store/puzzles.py: SKIPPED_AFTER)
    Column("skipped", Boolean, nullable=False, default=False, server_default=false()),
    Column("rating_before", Float, nullable=True),
    Column("rating_after", Float, nullable=True),
    Column("created_at", UTCDateTime(), nullable=False, default=utcnow),
    # one first attempt per player and puzzle, whatever races between workers
    Index(
        "uq_puzzle_attempts_first",
        "player_id",
        "puzzle_id",
        unique=True,
        sqlite_where=_FIRST,
        postgresql_where=_FIRST,
    ),
    sqlite_autoincrement=True,
)
"""Every attempt at a puzzle, with what it did to the player's rating."""

rooms = Table(
    "rooms",
    metadata,
    # the link's code: as hard to guess as a challenge's (store.challenges.CODE_LETTERS)
    Column("code", String(16), primary_key=True),
    # the maker: starts the room
    Column("player_id", ForeignKey("players.id"), nullable=False, index=True),
    Column("difficulty", String(16), nullable=False),
    # the turn clock in seconds (None: wait for everyone)
    Column("clock", Integer, nullable=True),
    # the members' games' seed (hex)
    Column("seed", String(128), nullable=False),
    # "waiting" (for the start), "playing", "over"
    Column("phase", String(16), nullable=False),
    # the open (or last) turn, 1-based; 0 before the start
    Column("turn", Integer, nullable=False, default=0),
    Column("turn_open", Boolean, nullable=False, default=False),
    # when the open turn closes whoever has not ended it (None: no clock)
    Column("deadline", UTCDateTime(), nullable=True),
    # the number of the room's last event (room_events.seq)
    Column("seq", Integer, nullable=False, default=0),
    Column("created_at", UTCDateTime(), nullable=False, default=utcnow),
    Column("started_at", UTCDateTime(), nullable=True),
    Column("finished_at", UTCDateTime(), nullable=True),
    # PLAY AGAIN: the room its members made to play again once this one was over
    Column("next_code", String(16), nullable=True),
    # the coach's score on the room's dice (computed once the room is over)
    Column("par", Integer, nullable=True),
    Index("ix_rooms_due", "phase", "deadline"),
)
"""Live rooms: friends playing the same dice turn by turn (store.rooms)."""

room_members = Table(
    "room_members",
    metadata,
    Column("code", ForeignKey("rooms.code", ondelete="CASCADE"), nullable=False),
    Column("player_id", ForeignKey("players.id"), nullable=False, index=True),
    Column("joined_at", UTCDateTime(), nullable=False, default=utcnow),
    # the member's game, once the room started
    Column("game_id", String(32), nullable=True),
    # the turns the coach ended for them (their clock ran out)
    Column("coached", JSON, nullable=True),
    PrimaryKeyConstraint("code", "player_id", name="pk_room_members"),
)
"""Who plays in which room, with their game."""

room_events = Table(
    "room_events",
    metadata,
    Column("code", ForeignKey("rooms.code", ondelete="CASCADE"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("type", String(32), nullable=False),
    Column("body", JSON, nullable=False),
    Column("created_at", UTCDateTime(), nullable=False, default=utcnow),
    PrimaryKeyConstraint("code", "seq", name="pk_room_events"),
)
"""What happened in each room, numbered in order: a client resumes after the last it saw."""
