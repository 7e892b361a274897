"""The coach: a hint for the turn in progress and a review of a finished game.

Both ask the strong player (:mod:`magdagdon.ai.strong`). A hint sees what the player sees
(the board, the dice, the powers); it never reads the game's seed, so it cannot know the next
roll or what a REROLL will bring: it weighs every roll by its probability.

>>> from magdagdon.engine import Game
>>> game = Game.new("nightmare", seed=1)
>>> game.roll()
>>> h = hint(game)
>>> [a["type"] for a in h.plan][-1]
'confirm'
>>> after = game.copy()
>>> for action in h.plan:
...     after.apply(action)
>>> after.turns, str(after.board) == h.board
(1, True)
>>> len(h.alternatives), all(a.cost >= 0 for a in h.alternatives)
(3, True)
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from ..engine import EMPTY, Action, Board, Game, Phase, actions
from ..engine.actions import POWERS, TURN_ENDING
from . import calibration, fast
from .strong import Option, StrongPlayer
from .values import value_model

ALTERNATIVES = 3
DECISIONS = POWERS | TURN_ENDING
"""The actions at which a review values the player's choice."""


@dataclass(frozen=True)
class Plan:
    """A way to play the turn: actions to send one after another, and its expected final score.

    ``cost`` is how many points it is expected to give away against the best plan.
    """

    plan: list[Action]
    expected_score: float
    cost: float = 0.0
    board: str | None = None
    """The board the plan leaves (None when it ends at a ROLL or a REROLL)."""

    def to_dict(self) -> dict[str, Any]:
        """As JSON."""
        return {
            "plan": self.plan,
            "expected_score": round(self.expected_score, 1),
            "cost": round(self.cost, 1),
            "board": self.board,
        }


@dataclass(frozen=True)
class Hint(Plan):
    """The best plan for the turn and the next few."""

    alternatives: list[Plan] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """As JSON (the body of ``GET /api/games/{id}/hint``)."""
        return {
            **super().to_dict(),
            "alternatives": [a.to_dict() for a in self.alternatives],
        }


_local = threading.local()

WORK_LIMIT = 0 if fast.AVAILABLE else 25_000
"""The coach's strong player searches no further option once a decision has looked at this
many staged sets (0: no limit). With the C accelerator it searches as the simulator's player
does (a hint: p95 under 100 ms here); in pure Python, whose search is about 30 times slower,
it stops after 25,000 staged sets (about a quarter of a second)."""
SEARCH_EMPTY = None if fast.AVAILABLE else 9
"""In pure Python the coach also searches no afterstate with more than 9 empty squares (one
chance node with 10 to 16 takes up to 0.7 s there), so a hint comes in time even in an
opening (120 positions here: p95 272 ms, max 339 ms; with 11: p95 461, max 694); with the C
accelerator, the player's own setting."""


def new_player() -> StrongPlayer:
    """A strong player as the coach uses it (bounded by :data:`WORK_LIMIT` and
    :data:`SEARCH_EMPTY`)."""
    return StrongPlayer(limit=WORK_LIMIT, search_empty=SEARCH_EMPTY)


def _player() -> StrongPlayer:
    """This thread's strong player (its memo is not shared between threads)."""
    player: StrongPlayer | None = getattr(_local, "player", None)
    if player is None:
        player = _local.player = new_player()
    return player


def hint(game: Game, player: StrongPlayer | None = None) -> Hint:
    """The best plan for the turn in progress (the game is not over).

    Before ROLL the plan is to roll, with the expected final score of the position. A plan
    with a REROLL ends at the REROLL: what comes after depends on the dice it brings. The
    coach's expected scores are corrected as measured on its own games
    (:mod:`.calibration`); the plans' costs are not changed by it.
    """
    if game.phase is Phase.OVER:
        raise ValueError("the game is over")
    strong = player or _player()
    # what the expected scores are corrected by (the same for every plan: see .calibration),
    # for the coach's own values
    shift = 0.0
    if strong.model(game.difficulty) is value_model(game.difficulty):
        shift = calibration.offset(game.difficulty, game.board.cells.count(EMPTY))
    if game.phase is Phase.ROLL:
        ev = strong.evaluator(game.difficulty)
        cells = game.board.cells
        empty = cells.count(EMPTY)
        if empty > strong.settings(game.difficulty)[1]:
            value = ev.value(cells, game.powers_left)  # the learned value
        else:
            value = ev.searched(cells, game.powers_left)
        return Hint([actions.roll()], value - game.power_penalty + shift)
    options = strong.options(game)
    best = options[0]
    alternatives = []
    for option in _distinct(options)[1:]:
        alternatives.append(
            Plan(option.actions, option.value + shift, best.value - option.value, _board_of(option))
        )
        if len(alternatives) == ALTERNATIVES:
            break
    return Hint(best.actions, best.value + shift, 0.0, _board_of(best), alternatives)


def _board_of(option: Option) -> str | None:
    return _notation(option.after) if option.after is not None else None


_SYMMETRIES = tuple(
    tuple(
        4 * (c if t else r) + (r if t else c)
        for r0 in range(4)
        for c0 in range(4)
        for r, c in [((3 - r0) if fr else r0, (3 - c0) if fc else c0)]
    )
    for t in (False, True)
    for fr in (False, True)
    for fc in (False, True)
)
"""The eight symmetries of the square as square permutations. Rows and columns score alike
and a STRAIGHT counts in both directions, so mirrored or turned boards are worth the same."""


def _canonical(cells: tuple[int, ...]) -> tuple[int, ...]:
    return min(tuple(cells[i] for i in perm) for perm in _SYMMETRIES)


def _distinct(options: list[Option]) -> list[Option]:
    """Options that differ in what they leave on the board, up to a symmetry of the board
    (the best of each): a mirror image of the best plan is no alternative."""
    seen: set[Any] = set()
    out = []
    for option in options:
        if option.after is not None:
            key: Any = (_canonical(option.after), option.powers_left)
        else:
            key = tuple(map(str, option.actions))
        if key not in seen:
            seen.add(key)
            out.append(option)
    return out


@dataclass(frozen=True)
class TurnReview:
    """One turn of a finished game: what was rolled, what the player did, what was best."""

    turn: int
    board: str
    """The board before the turn."""
    roll: list[int]
    played: list[Action]
    played_board: str
    best: list[Action]
    best_board: str | None
    """The board the best plan leaves (None when it starts with a REROLL)."""
    expected_loss: float

    def to_dict(self) -> dict[str, Any]:
        """As JSON."""
        return {
            "turn": self.turn,
            "board": self.board,
            "roll": self.roll,
            "played": self.played,
            "played_board": self.played_board,
            "best": self.best,
            "best_board": self.best_board,
            "expected_loss": round(self.expected_loss, 1),
        }


def review(game: Game, player: StrongPlayer | None = None) -> list[TurnReview]:
    """Each turn of a finished game: the player's move, the best move, the expected points lost.

    The game is replayed from its seed and actions. At every decision of a turn (after the
    ROLL and after each power) the player's choice is valued like the strong player's best
    option there; the turn's loss is the sum of the differences. A lucky REROLL is no
    mistake, an unlucky one no loss: a REROLL is valued by its expectation.
    """
    strong = player or _player()
    replay = Game.new(game.difficulty, seed=game.seed)
    actions = list(game.actions)
    turns: list[TurnReview] = []
    i = 0
    while i < len(actions):
        if actions[i]["type"] == "roll":
            replay.apply(actions[i])
            i += 1
            continue
        # a turn's decisions: from here to its CONFIRM or ACCEPT MAGDAGDON
        before = str(replay.board)
        roll = [d.value for d in replay.dice]
        start = i
        loss = 0.0
        best_plan: list[Action] | None = None
        best_board: str | None = None
        while True:
            options = strong.options(replay)
            if best_plan is None:
                best_plan = options[0].actions
                after = options[0].after
                best_board = _notation(after) if after else None
            # the player's next decision: a power, or the end of the turn
            j = i
            while actions[j]["type"] not in DECISIONS:
                j += 1
            chosen = actions[j]
            trial = replay.copy()
            for action in actions[i : j + 1]:
                trial.apply(action)
            value = _value_of_choice(strong, replay, options, chosen, trial)
            loss += max(0.0, options[0].value - value)
            replay = trial
            i = j + 1
            if chosen["type"] in TURN_ENDING:
                break
        turns.append(
            TurnReview(
                turn=replay.turns,
                board=before,
                roll=roll,
                played=actions[start:i],
                played_board=str(replay.board),
                best=best_plan,
                best_board=best_board,
                expected_loss=loss,
            )
        )
    return turns


def _value_of_choice(
    strong: StrongPlayer, state: Game, options: list[Option], chosen: Action, after: Game
) -> float:
    """The value of what the player chose at a decision, as the options were valued."""
    if chosen["type"] == "reroll":  # valued as the options are, in PLACE too where none is listed
        return strong.reroll_value(state, chosen["dice"])
    if chosen["type"] == "adjust":
        value = state.dice[chosen["die"]].value
        # the best continuation after that change (the next decision is reviewed on its own):
        # as valued among the options where the player would consider it, else (a change the
        # player would not make: below its margin, or no rescue) the best option after it
        listed = [
            o.value
            for o in options
            if any(
                a["type"] == "adjust"
                and state.dice[a["die"]].value == value
                and a["delta"] == chosen["delta"]
                for a in o.actions
            )
        ]
        if listed:
            return max(listed)
        return strong.options(after)[0].value
    cells = after.board.cells
    for option in options:
        if option.after == cells and option.powers_left == after.powers_left:
            if not option.searched:
                return _searched(strong, state, option)
            return option.value
    raise AssertionError("every placement is an option")


def _searched(strong: StrongPlayer, state: Game, option: Option) -> float:
    """An option valued with the search the best options got (when it applies)."""
    ev = strong.evaluator(state.difficulty)
    assert option.after is not None
    empty = option.after.count(EMPTY)
    paid = state.power_penalty + option.cost
    if not strong.search or empty == 0 or empty > strong.settings(state.difficulty)[1]:
        return option.value
    return ev.searched(option.after, option.powers_left) - paid


def _notation(cells: tuple[int, ...]) -> str:
    return str(Board(cells))
