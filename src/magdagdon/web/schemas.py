"""The JSON shapes of the HTTP API (they are also its OpenAPI documentation)."""

from __future__ import annotations

import re
import unicodedata
from datetime import date, datetime
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal, Union, cast

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    create_model,
    field_validator,
    model_validator,
)

from .. import names
from ..engine import Difficulty, Phase, actions
from ..store import GameStatus

NAME_MAX = 24
NAME_PATTERN = r"^ *[\w.'\-][\w .'\-]*$"
r"""A name: letters, digits and . ' - _ with spaces between (Python's Unicode ``\w``)."""
_NAME_PATTERN = re.compile(NAME_PATTERN)
_ASCII_REFUSED = r"\x00-\x1f!-&(-,/:-@\[-^`{-\x7f"
PUBLISHED_NAME_PATTERN = rf"^ *[^{_ASCII_REFUSED} ][^{_ASCII_REFUSED}]*$"
r"""The name's pattern as the published schema states it, the same in JSON Schema's regular
expressions (ECMA-262, where ``\w`` is ASCII only) and Python's: of ASCII, exactly the
server's (letters, digits, . ' - _ and spaces between); any other character is left to the
description (the server takes letters and digits of every language, no symbols)."""


class Strict(BaseModel):
    """Request bodies: unknown fields are errors, numbers are not read from strings, and no
    string holds a NUL character (no id, code or name has one, and PostgreSQL refuses it)."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        if isinstance(value, str) and "\x00" in value:
            raise ValueError("a string may not hold a NUL character")
        return value


# --- actions (docs/design.md's vocabulary) ---------------------------------------------------


def _whole_number(value: object) -> object:
    """JSON's integers as JSON Schema reads them (``2`` and ``2.0``); never a string or a
    boolean. Anything else is left for the int validation to refuse."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("Input should be a whole number")
    return value


WholeNumber = Annotated[int, BeforeValidator(_whole_number)]
"""A whole number as JSON Schema's ``integer``: ``3`` or ``3.0``, not ``"3"`` nor ``true``."""
# (the constraints come before the validator: after it they would not reach the schema)
Die = Annotated[int, Field(ge=0, le=3, description="A die, 0-3."), BeforeValidator(_whole_number)]
"""A die of the turn, 0-3."""
Square = Annotated[
    int,
    Field(ge=0, le=15, description="A square, 0-15 (4 * row + column)."),
    BeforeValidator(_whole_number),
]
"""A square, 0-15 (4 * row + column)."""
Seed = Annotated[int, Field(ge=0, le=2**53 - 1), BeforeValidator(_whole_number)]
"""A chosen seed: at most the largest whole number every JSON reader holds exactly."""


_FIELDS: dict[str, Any] = {
    "die": (Die, ...),
    "cell": (Square, ...),
    "delta": (Literal[-1, 1], Field(description="-1 or 1.")),
    "dice": (
        list[Die],
        Field(min_length=1, max_length=4, description="The dice, each 0-3, at least one."),
    ),
}
"""The schema of each field an action may have, with the limits the server enforces."""


def _action_model(kind: str) -> type[BaseModel]:
    """The request model of an action type, made from the engine's definition of it."""
    typed = actions.ACTION_TYPES[kind]
    fields = {name: _FIELDS[name] for name, _ in actions.fields(kind)}
    return create_model(
        typed.__name__,
        __base__=Strict,
        __doc__=typed.__doc__,
        type=(cast(Any, Literal)[kind], ...),
        **fields,
    )


ACTION_MODELS: Final = {kind: _action_model(kind) for kind in actions.ACTION_TYPES}
"""The request models of the engine's actions (:mod:`magdagdon.engine.actions`), by type."""

if TYPE_CHECKING:
    ActionModel = BaseModel
else:
    # a Union made at run time (the union of the models above)
    ActionModel = Annotated[Union[tuple(ACTION_MODELS.values())], Field(discriminator="type")]  # noqa: UP007


class ActionRequest(Strict):
    """One action, based on the game version the client saw."""

    version: WholeNumber = Field(
        description="The `version` of the game view the action is based on."
    )
    action: ActionModel


class GameCreate(Strict):
    """Start a game."""

    # the schema says what _resume_or_abandon enforces: not both
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "not": {
                "required": ["resume", "abandon"],
                "properties": {"resume": {"const": True}, "abandon": {"const": True}},
            }
        },
    )

    difficulty: Difficulty
    abandon: StrictBool = Field(
        default=False,
        description="Abandon the unfinished game, if there is one (it never scores). "
        "Without it, an unfinished game makes this request fail with 409 game_in_progress.",
    )
    seed: Seed | None = Field(
        default=None,
        description="Test servers only (MAGDAGDON_ALLOW_TEST_SEEDS): fix the dice seed. "
        "A game with a chosen seed never enters the high scores.",
    )
    resume: StrictBool = Field(
        default=False,
        description="Continue the unfinished regular game if there is one, of any difficulty "
        "(200 with it), else start this one (201): the page's start in one request.",
    )

    @model_validator(mode="after")
    def _resume_or_abandon(self) -> GameCreate:
        if self.resume and self.abandon:
            raise ValueError("resume and abandon exclude each other")
        return self


class NameUpdate(Strict):
    """The display name for the high-score tables."""

    name: str = Field(
        min_length=1,
        max_length=NAME_MAX,
        pattern=PUBLISHED_NAME_PATTERN,
        description=f"1-{NAME_MAX} letters (of any language), digits, spaces, . ' - _ (kept "
        "in Unicode's NFKC form: full-width letters become ASCII; spaces at the ends are "
        "trimmed, runs of spaces made one). No invisible or formatting characters "
        "(zero-width, direction marks, Hangul fillers, variation selectors). A name that "
        "looks like another player's (the same Unicode confusable skeleton) is refused "
        "with 409 name_taken.",
    )

    @field_validator("name", mode="before")
    @classmethod
    def _valid_name(cls, value: object) -> object:
        # Before the field's own checks, which then see the name as it is kept: the rules
        # hold for what was sent and for its normal form alike.
        if not isinstance(value, str):
            return value  # the field's type check refuses it
        name = names.normalise(value)
        if any(names.is_invisible(ch) for ch in value + name):
            raise ValueError(
                "a name may not contain invisible or formatting characters (zero-width "
                "characters, direction marks, fillers, variation selectors)"
            )
        if any(unicodedata.category(ch).startswith("C") for ch in value):
            raise ValueError("a name may not contain control characters")
        if not 1 <= len(name) <= NAME_MAX or len(value) > NAME_MAX:
            raise ValueError(f"a name has 1 to {NAME_MAX} characters")
        if not (_NAME_PATTERN.match(value) and _NAME_PATTERN.match(name)):
            raise ValueError("a name may use letters, digits, spaces and . ' - _ only")
        return name


# --- responses ---------------------------------------------------------------------------------


class ErrorBody(BaseModel):
    """What went wrong: a stable code and a message for people."""

    code: str = Field(description="Stable, e.g. not_adjacent, stale_version, game_not_found.")
    message: str


class ErrorResponse(BaseModel):
    """Every error answer."""

    error: ErrorBody


class DieView(BaseModel):
    """One of the turn's dice."""

    index: int
    value: int
    cell: int | None = Field(description="The square it is staged on; null in the tray.")
    legal_cells: list[int] = Field(description="Where it may be staged now.")
    can_increase: bool = Field(description="INCREASE +1 is allowed on it now.")
    can_decrease: bool = Field(description="DECREASE −1 is allowed on it now.")
    can_reroll: bool = Field(description="It may be chosen for REROLL now.")
    blocked: list[Blocked] = Field(
        default_factory=list,
        description="While placing, for a tray die: each square it may not go on, and why.",
    )


class Blocked(BaseModel):
    """Why a die may not be staged on a square (the engine's reason)."""

    cell: int
    code: Literal["cell_occupied", "ruin", "not_adjacent", "value_too_far"] = Field(
        description="taken by a number or a staged die; a RUIN; touches no number; differs "
        "by more than 1 from a number next to it (``values``)."
    )
    values: list[int] = Field(default_factory=list, description="The numbers too far away.")


class Prospect(BaseModel):
    """The best bonus an open row or column can still make."""

    bonus: Literal["straight", "four", "two_pairs"]
    points: int


class LineView(BaseModel):
    """A row or column: the sum of its numbers and its bonus."""

    sum: int
    bonus: Literal["straight", "four", "two_pairs"] | None
    bonus_points: int


class ScoreView(BaseModel):
    """A score breakdown: total = base + bonuses - ruin_penalty - power_penalty."""

    rows: list[LineView]
    columns: list[LineView]
    base: int
    bonuses: int
    ruins: int
    ruin_penalty: int
    power_penalty: int
    total: int


class Places(BaseModel):
    """A finished game's place in its difficulty's high-score tables."""

    me: int = Field(description="Among this player's games.")
    all: int = Field(description="Among everybody's games on this server.")


class Rescue(BaseModel):
    """A power use that would certainly rescue a MAGDAGDON roll."""

    type: Literal["adjust"] = "adjust"
    die: int
    delta: int


class DailyRef(BaseModel):
    """Which daily a game is: its UTC day and its number (2026-12-01 is #1)."""

    date: date
    number: int
    finish_by: datetime = Field(
        description="Until when it can be played (the next midnight UTC and two hours): then "
        "its day is over and its dice public."
    )


class PastDailyRef(BaseModel):
    """Which day's daily a past daily plays again: the day and its number. A past daily is
    played after its day is over, on its dice: outside that day's leaderboard, the daily
    streak, the leagues and the high scores."""

    date: date
    number: int


class GameView(BaseModel):
    """Everything the client draws: it holds no rules of its own."""

    id: str
    version: int = Field(description="Send it back with the next action.")
    difficulty: Difficulty
    phase: Phase
    status: GameStatus
    board: str = Field(description="The permanent squares in board notation.")
    staged_board: str = Field(description="The board with the staged dice on it.")
    dice: list[DieView]
    staged: list[int] = Field(description="Staged dice in staging order.")
    required: int = Field(description="Dice to place this turn (0 before ROLL).")
    can_roll: bool
    can_confirm: bool
    can_unstage_all: bool
    dead_end: bool = Field(description="The staged dice block the minimum: take some back (R7).")
    powers_left: int
    powers_used: int
    powers_total: int = Field(description="The difficulty's Majda Powers (0 in NIGHTMARE).")
    power_penalty: int
    next_power_cost: int | None
    can_use_power: bool
    ruin_penalty: int = Field(description="The points each RUIN costs.")
    prospects: list[Prospect | None] = Field(
        default_factory=list,
        description="While playing, per line (rows 1-4, then columns 1-4) of the board with "
        "the staged dice: the best bonus it can still make, or null (complete, a RUIN, none "
        "possible). Empty once the game is over.",
    )
    rescues: list[Rescue] = Field(description="In MAGDAGDON: adjustments that rescue the roll.")
    ruin_choices: list[int] = Field(description="In MAGDAGDON: squares that may become the RUIN.")
    turns: int
    score: ScoreView = Field(description="Live score, staged dice included.")
    final_score: ScoreView | None = Field(description="The final score once the game is over.")
    places: Places | None
    hints_used: int
    created_at: datetime
    finished_at: datetime | None
    daily: DailyRef | None = Field(default=None, description="A daily game's day and number.")
    past_daily: PastDailyRef | None = Field(
        default=None,
        description="A past daily's day and number (GET /api/daily/{date}/{difficulty}/"
        "leaderboard sets it beside the day's games).",
    )
    room: str | None = Field(
        default=None,
        description="A live room's game: the room's code (GET /api/rooms/{code}); the room "
        "rolls its dice (can_roll stays false).",
    )
    par: int | None = Field(
        default=None,
        description="A finished daily or past daily: the coach's score on the same dice (null "
        "until known).",
    )
    challenge: str | None = Field(
        default=None,
        description="A challenge's game: the challenge's code (GET /api/challenges/{code}).",
    )
    rematch_of: str | None = Field(
        default=None,
        description="A REMATCH: the code of the challenge it answers.",
    )
    sent_back: str | None = Field(
        default=None,
        description="A finished REMATCH: the code of the challenge it became, sent back to "
        "the first challenger (its table: GET /api/challenges/{code}/results).",
    )


class GameConflict(ErrorResponse):
    """409: the game moved on (or another game is in progress); here is its current view."""

    game: GameView


class PlanView(BaseModel):
    """A way to play the turn: actions to send in order, its expected final score and what it
    is expected to cost against the best plan."""

    plan: list[dict[str, object]] = Field(
        description="Actions in the POST /actions vocabulary, to send one after another."
    )
    expected_score: float = Field(description="The expected final score if played so.")
    cost: float = Field(description="Expected points given away against the best plan.")
    board: str | None = Field(
        description="The board the plan leaves (null when it ends at a ROLL or a REROLL)."
    )


class HintView(PlanView):
    """The strong player's advice for the turn in progress (it never knows the dice to come)."""

    alternatives: list[PlanView] = Field(description="The next best plans (2–3 when there are).")
    version: int = Field(description="The game version the hint is for.")
    hints_used: int = Field(description="Hints counted for this game (once per version).")


class TurnReviewView(BaseModel):
    """One turn of a finished game, reviewed."""

    turn: int
    board: str = Field(description="The board before the turn.")
    roll: list[int]
    played: list[dict[str, object]] = Field(description="The player's actions in the turn.")
    played_board: str
    best: list[dict[str, object]] = Field(description="The best plan at the start of the turn.")
    best_board: str | None = Field(description="What the best plan leaves (None: a REROLL).")
    expected_loss: float = Field(description="Expected points the player's choices gave away.")


class ReviewView(BaseModel):
    """The post-game review: per turn, the player's move, the best move, the points lost."""

    id: str
    difficulty: Difficulty
    score: int
    expected_loss: float = Field(description="The sum over the turns.")
    turns: list[TurnReviewView]


class Replay(BaseModel):
    """A finished game's seed and actions: replay them with the engine to verify the score."""

    id: str
    difficulty: Difficulty
    seed: str = Field(
        description="Hex bytes; Game.replay(difficulty, bytes.fromhex(seed), actions)."
    )
    actions: list[dict[str, object]]
    board: str
    score: int
    turns: int
    powers_used: int
    finished_at: datetime | None


class FrameView(BaseModel):
    """One moment of a replay, as the viewer shows it."""

    kind: Literal["start", "roll", "place", "adjust", "reroll", "ruin", "end"]
    turn: int = Field(description="The turn the frame belongs to (1-based, as the game counts).")
    board: str = Field(description="The board: committed squares and the dice placed so far.")
    dice: list[int] = Field(description="The turn's four dice values (none at the start).")
    changed: list[int] = Field(description="Dice this frame rolled, changed or placed.")
    cell: int | None = Field(description="The square a die was placed on, or the RUIN's.")
    value: int | None = Field(description="The value placed on `cell`.")
    score: int = Field(description="The running total, penalties included.")
    rows: list[LineView] = Field(description="Each row's sum and bonus on `board`.")
    columns: list[LineView] = Field(description="Each column's sum and bonus on `board`.")
    powers_used: int
    phase: Phase
    magdagdon: bool = Field(description="This turn's roll was a MAGDAGDON.")


class FramesView(BaseModel):
    """A finished game turn by turn, for the replay viewer (no seed: a daily's stays secret
    until its day is over)."""

    id: str
    difficulty: Difficulty
    name: str | None = Field(description="The player's display name (text, never HTML).")
    score: int
    turns: int
    powers_total: int = Field(
        description="The difficulty's Majda Powers (0 in NIGHTMARE: the viewer shows no count)."
    )
    daily: DailyRef | None
    past_daily: PastDailyRef | None = Field(
        default=None, description="A past daily: the day whose dice it played again."
    )
    frames: list[FrameView]


class DailyGame(BaseModel):
    """The player's game of one of today's dailies."""

    difficulty: Difficulty
    status: Literal["new", "active", "over"]
    game_id: str | None
    score: int | None


class DailyUnfinished(BaseModel):
    """The player's unfinished daily of a day that has ended but is not over: it can still be
    finished (and counts for its own day) until ``finish_by``."""

    date: date
    number: int
    difficulty: Difficulty
    game_id: str
    finish_by: datetime


class DailyToday(BaseModel):
    """Today's dailies (UTC) and how far the player is with each."""

    date: date
    number: int
    games: list[DailyGame]
    ends_at: datetime = Field(
        description="When today's dailies can no longer be started (the next midnight UTC)."
    )
    finish_by: datetime = Field(
        description="Until when a daily started today can be finished (two hours later)."
    )
    now: datetime = Field(
        description="The server's moment of this answer: the time left is counted from it."
    )
    unfinished: list[DailyUnfinished] = Field(
        description="The player's dailies of yesterday still to finish (after midnight, for "
        "two hours), to CONTINUE."
    )


class LeaderboardRow(BaseModel):
    """One row of a daily leaderboard; ties share a rank."""

    rank: int
    name: str | None = Field(description="The player's display name (shown as text, never HTML).")
    score: int
    turns: int
    powers_used: int
    hints_used: int
    game_id: str
    mine: bool


class Standing(BaseModel):
    """The player's own place: rank and percentile (the share of players at or below)."""

    rank: int
    score: int
    percentile: int
    ranked: bool = Field(
        default=True,
        description="False when the game is not ranked (an anonymous player's while the server "
        "ranks accounts only): rank and percentile are where it would stand among the ranked.",
    )
    game_id: str | None = Field(
        default=None, description="Your game of this daily (a challenge once the day is over)."
    )


class LeaderboardView(BaseModel):
    """A daily's leaderboard."""

    date: date
    difficulty: Difficulty
    number: int
    players: int = Field(
        description="Players who finished this daily (ranked ones only when accounts_only)."
    )
    accounts_only: bool = Field(
        default=False,
        description="Only accounts' games are ranked (the server's default): anonymous players "
        "see where they would stand, apart.",
    )
    par: int | None = Field(
        description="The coach's score on these dice; null until the player finished it."
    )
    ended: bool = Field(description="The day is over: the seed is public, the games watchable.")
    seed: str | None = Field(description="The day's seed (hex) once the day is over.")
    rows: list[LeaderboardRow]
    me: Standing | None
    past: PastStanding | None = Field(
        default=None,
        description="Your finished past daily of this day: where its score would stand (it is "
        "not on the leaderboard).",
    )
    friends: list[FriendScoreView] = Field(
        default_factory=list,
        description="Once you finished this day's dice (its daily or a past daily): your "
        "friends' games of them (league members; players of challenges with you), best first.",
    )


class PastStanding(BaseModel):
    """Where a past daily's score would stand on its day's leaderboard (it is not on it)."""

    game_id: str
    score: int
    rank: int = Field(description="1 + the leaderboard's better scores.")
    percentile: int = Field(description="The share of the leaderboard at or below it, with it.")


class FriendScoreView(BaseModel):
    """A friend's finished game of a day's dice."""

    name: str | None = Field(description="The friend's display name (shown as text, never HTML).")
    score: int
    game_id: str
    past: bool = Field(description="Played as a past daily (not on the day's leaderboard).")


CalendarState = Literal["played", "past_played", "past_active", "open", "unfinished", "not_over"]
"""What the past dailies' calendar says of a day (``CalendarDay.state``)."""


class CalendarDay(BaseModel):
    """One day of the past dailies' calendar, for one difficulty."""

    date: date
    number: int
    state: CalendarState = Field(
        description="played: you finished its daily (score); past_played: you finished it "
        "as a past daily; past_active: your past daily of it is being played (continue it "
        "with POST /api/daily/{date}/{difficulty}); open: playable as a past daily; "
        "unfinished: you started its daily and did not finish it, it is playable as a past "
        "daily; not_over: its day is not over (today's daily, or yesterday's until two "
        "hours after midnight UTC)."
    )
    score: int | None = Field(default=None, description="Your score (played, past_played).")
    game_id: str | None = Field(default=None, description="Your game of that day's dice.")
    par: int | None = Field(
        default=None, description="The coach's score on the dice, once you finished them."
    )


class DailyCalendar(BaseModel):
    """A month of past dailies of one difficulty, from daily #1 to today."""

    difficulty: Difficulty
    month: str = Field(description="YYYY-MM.")
    today: date
    days: list[CalendarDay] = Field(description="The month's days with a daily, oldest first.")
    previous: str | None = Field(description="The month before with dailies (YYYY-MM), if any.")
    next: str | None = Field(description="The month after, up to this one (YYYY-MM), if any.")


class HistogramBar(BaseModel):
    """Scores from ``from`` (inclusive) to ``to`` (exclusive)."""

    model_config = ConfigDict(populate_by_name=True)

    start: int = Field(alias="from", serialization_alias="from")
    end: int = Field(alias="to", serialization_alias="to")
    count: int


class DifficultyStatsView(BaseModel):
    """The player's games of one difficulty."""

    games: int = Field(description="Games played: with an action at least (abandoned ones too).")
    finished: int
    mean: float | None
    median: float | None
    best: int | None
    histogram: list[HistogramBar]
    recent: list[int] = Field(description="The last 20 finished scores, oldest first.")


class DailyStatsView(BaseModel):
    """The player's daily games."""

    played: int = Field(description="Dailies finished.")
    streak: int = Field(description="Days in a row with a finished daily, to today/yesterday.")
    best_streak: int


class StatsView(BaseModel):
    """The player's statistics."""

    difficulties: dict[Difficulty, DifficultyStatsView]
    daily: DailyStatsView


class HighScoreRow(BaseModel):
    """One row of a high-score table."""

    place: int
    name: str | None = Field(description="The player's display name (shown as text, never HTML).")
    score: int
    date: datetime
    turns: int
    powers_used: int
    hints_used: int
    game_id: str
    mine: bool


class HighScoreTable(BaseModel):
    """The top 10 of a difficulty; ties go to the earlier game."""

    difficulty: Difficulty
    scope: Literal["me", "all"]
    rows: list[HighScoreRow]


class PlayerView(BaseModel):
    """The current player."""

    name: str | None
    name_max: int = Field(default=NAME_MAX, description="The longest name the tables take.")
    account: bool = Field(
        default=False,
        description="The player is an account (saved with a passkey or a transfer code: it "
        "can sign in on another device); false for an anonymous player (this device only).",
    )
    new_passkey: NewPasskeyView | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="A passkey on probation (the account's first, for a day: it could be a "
        "cookie thief's; not yours? remove it under the account); absent when there is none.",
    )


class DailyClashView(BaseModel):
    """A daily played both on this device and by the account: the first finished is kept."""

    date: date
    difficulty: Difficulty
    kept_game_id: str
    kept_score: int | None
    dropped_game_id: str = Field(
        description="Off the leaderboard; its replay stays (it is in the account's export)."
    )
    dropped_score: int | None


class MergeView(BaseModel):
    """What this device's anonymous player brought into the account on signing in."""

    games: int = Field(description="Games moved into the account.")
    dailies: list[DailyClashView]
    abandoned_game_id: str | None = Field(
        description="Of two unfinished games, the one not played last, now abandoned (R16)."
    )


class SignInView(PlayerView):
    """The account signed in to (``GET /api/players/me``'s shape) and what was merged."""

    merged: MergeView


class TransferCodeCreated(BaseModel):
    """A one-time transfer code for another device."""

    code: str = Field(description="Eight letters and digits (shown as two groups of four).")
    expires_at: datetime
    url: str = Field(description="The game's address with the code: what the QR code holds.")
    qr: list[str] = Field(
        description="The QR code of ``url``: its rows of modules, top first, 1 dark and 0 "
        "light (no quiet zone: leave 4 modules around it). The page draws it itself."
    )


class TransferSignIn(BaseModel):
    """A transfer code, as typed (case, spaces and dashes do not matter)."""

    model_config = ConfigDict(extra="forbid")

    code: str = Field(min_length=1, max_length=32)


class PasskeyCredential(BaseModel):
    """The browser's answer (``PublicKeyCredential.toJSON()``) to the options."""

    model_config = ConfigDict(extra="forbid")

    credential: dict[str, Any]


class PasskeyView(BaseModel):
    """One of the account's passkeys."""

    id: str
    label: str = Field(description="The device it was made on, as its browser said.")
    created_at: datetime
    last_used_at: datetime | None
    probation_until: datetime | None = Field(
        default=None,
        description="The account's first passkey is on probation for a day (it could have been "
        "added with a stolen cookie): until then it is no way back into the account, and a "
        "device signed in before it was added may remove it. Null: trusted.",
    )
    added_here: bool = Field(default=False, description="This device added it.")


class NewPasskeyView(BaseModel):
    """A passkey on probation that another device added: to be announced."""

    id: str
    label: str
    created_at: datetime
    probation_until: datetime


class SessionView(BaseModel):
    """A device signed in to the account."""

    id: str
    method: Literal["visit", "passkey", "transfer", "earlier"] = Field(
        description="How it began: a first visit, a sign-in with a passkey or a transfer code, "
        "or a cookie of a release before accounts."
    )
    label: str = Field(description="Its browser and system, as it said.")
    created_at: datetime
    last_used_at: datetime = Field(description="Recorded at most once an hour.")
    current: bool = Field(description="This device's session.")


class SignOut(BaseModel):
    """Sign this device out, or every device."""

    model_config = ConfigDict(extra="forbid", strict=True)

    everywhere: bool = Field(
        default=False, description="true or false (JSON booleans only: not 0, 1 or strings)"
    )
    keep_new_passkey: bool = Field(
        default=False,
        description="true: the account's first passkey, on probation for a day, may be the "
        "only way back (the player said it is theirs); without it such a sign-out answers 409 "
        "confirm_new_passkey naming that passkey.",
    )


class Health(BaseModel):
    """The process is up (or, for /api/ready, the database answers)."""

    status: Literal["ok", "unavailable"]
