"""Puzzles: the decisions of real games where one plan stands out, found and graded by the coach.

A puzzle is the start of a turn of a real game, just rolled (:class:`Position`: the board,
the dice, the powers used; ``Game.from_position(**position.to_dict())`` sets it up): a roll
to place, a MAGDAGDON to meet (which square becomes the RUIN, or which power rescues), a power
to use or not. Every way to play the turn is an *option* of the strong player
(:meth:`~.strong.StrongPlayer.options`), here each valued by the one-roll expectimax (every
option searched, no power held back by the coach's margin: :func:`analyst`). Options that
leave the same board up to a symmetry, with the same powers, are one *plan*.

The position is a puzzle when

- there are at least :data:`MIN_PLANS` distinct plans,
- the best beats every other by at least :data:`MARGIN` points of expected final score, and
- a second, deeper search agrees: the best few plans valued again two rolls deep
  (:func:`deep_value`: the mean over the next roll of the best next plan, itself searched
  one roll deep) rank the same plan first.

:data:`MARGIN` was measured (``python -m benchmarks.puzzles``, BENCHMARKS.md): below it the
deeper search disagrees too often (a coin toss), above it the network's own first choice
finds the answer nearly always (only the obvious).

Both searches are the coach's, and the largest of its values are biased upwards: the puzzle
check (:mod:`.puzzlecheck`, ``magdagdon puzzles check``) plays the best plan and its rivals to
the end of the game instead, keeps the puzzle only when the best is significantly ahead, and
stores the measured margin with it (:attr:`Puzzle.check`, then :attr:`Puzzle.margin`); it also
keeps one puzzle per position and refuses a forced answer.

A player's attempt is graded (:func:`grade`) by the value of the plan it plays, computed as
the options were: solved when it is the best plan or within :data:`TOLERANCE` of it.

>>> from magdagdon.engine import Game
>>> game = Game.from_position("nightmare", "3.../..../..../....", (2, 3, 4, 6))
>>> position = Position.of(game)
>>> position.to_dict()["dice"]
[2, 3, 4, 6]
>>> Game.from_position(**position.to_dict()).phase.value
'place'
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Final

from ..engine import (
    EMPTY,
    RUIN,
    Action,
    Board,
    Bonus,
    Difficulty,
    Game,
    Phase,
    RuleViolation,
    line_bonus,
    line_prospects,
)
from ..engine.actions import TURN_ENDING
from ..engine.scoring import BONUS_POINTS, LINES
from .coach import _distinct
from .rolls import ROLLS
from .simulate import game_seed
from .strong import Option, StrongPlayer

MARGIN: Final = 4.0
"""Points of expected final score by which the best plan must beat every other (measured:
see the module docstring)."""
TOLERANCE: Final = 1.0
"""An attempt within this many points of the best plan solves the puzzle."""
MIN_PLANS: Final = 3
"""A puzzle has at least this many distinct plans."""
DEEP_CANDIDATES: Final = 3
"""The deeper search values again this many of the best plans."""
DEEP_BREADTH: Final = 3
"""Inside the deeper search, each next roll's best few options are searched one roll deep."""

THEMES: Final = (
    "straight",
    "four",
    "two_pairs",
    "keeps_straight",
    "keeps_four",
    "keeps_two_pairs",
    "fewer_dice",
    "increase",
    "decrease",
    "reroll",
    "rescue",
    "ruin",
    "keep_power",
    "last_squares",
)
"""What a puzzle's best plan does: completes a line with a STRAIGHT, FOUR or TWO PAIRS; keeps
one still possible that another plan gives up; places fewer dice than the roll has; uses
INCREASE, DECREASE or REROLL; rescues a MAGDAGDON with a power; chooses the RUIN; keeps a
power although one would help; fills the last squares (four or fewer empty after it)."""


@dataclass(frozen=True)
class Position:
    """A turn just rolled, in the engine's own form (what ``Game.from_position`` reads)."""

    difficulty: Difficulty
    board: str
    dice: tuple[int, ...]
    powers_used: int = 0
    turns: int = 0

    @classmethod
    def of(cls, game: Game) -> Position:
        """The position of a game whose turn has just been rolled (nothing staged, no power)."""
        if game.phase not in (Phase.PLACE, Phase.MAGDAGDON) or game.staged:
            raise ValueError("a puzzle starts just after a ROLL")
        return cls(
            game.difficulty,
            str(game.board),
            tuple(d.value for d in game.dice),
            game.powers_used,
            game.turns,
        )

    def game(self) -> Game:
        """The position set up (later rolls from a secret seed: a puzzle is one turn)."""
        return Game.from_position(
            self.difficulty, self.board, self.dice, powers_used=self.powers_used, turns=self.turns
        )

    def to_dict(self) -> dict[str, Any]:
        """As JSON: the keyword arguments of ``Game.from_position``."""
        return {
            "difficulty": self.difficulty.value,
            "board": self.board,
            "dice": list(self.dice),
            "powers_used": self.powers_used,
            "turns": self.turns,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Position:
        """Read :meth:`to_dict`'s form (ValueError when it is not a legal position)."""
        position = cls(
            Difficulty(data["difficulty"]),
            str(data["board"]),
            tuple(int(v) for v in data["dice"]),
            int(data.get("powers_used", 0)),
            int(data.get("turns", 0)),
        )
        position.game()  # checked as play checks it
        return position


@dataclass(frozen=True)
class Puzzle:
    """A position where one plan stands out, with what the coach found."""

    position: Position
    best: list[Action]
    """The best plan: the turn's actions, ending with CONFIRM, the RUIN, or a REROLL."""
    best_value: float
    second_value: float
    """The expected final score of the best other plan."""
    plans: int
    """How many distinct plans the turn has."""
    themes: list[str]
    deep_values: list[float] = field(default_factory=list)
    """The deeper search's values of the best plans, the best first."""
    source: str = ""
    """Where it was found: ``self-play:SEED:INDEX`` or a game's id."""
    check: dict[str, Any] | None = None
    """The puzzle check's figures (:class:`~.puzzlecheck.Check`'s ``to_dict``: the play-outs
    a plan, their seed and bot, the measured margin, each rival's mean difference and its
    standard error), or None for a puzzle not checked (files made before the check)."""

    @property
    def margin(self) -> float:
        """By how much the best plan beats the next: the measured margin of the check (the
        mean paired difference against the closest rival) when checked, else the coach's."""
        if self.check is not None:
            return float(self.check["margin"])
        return self.coach_margin

    @property
    def coach_margin(self) -> float:
        """By how much the coach's search values the best plan above the next."""
        return self.best_value - self.second_value

    def to_dict(self) -> dict[str, Any]:
        """As JSON (the starter set's lines)."""
        return {
            "position": self.position.to_dict(),
            "best": self.best,
            "best_value": round(self.best_value, 3),
            "second_value": round(self.second_value, 3),
            "plans": self.plans,
            "themes": self.themes,
            "deep_values": [round(v, 3) for v in self.deep_values],
            "source": self.source,
            **({} if self.check is None else {"check": self.check}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Puzzle:
        """Read :meth:`to_dict`'s form."""
        return cls(
            Position.from_dict(data["position"]),
            list(data["best"]),
            float(data["best_value"]),
            float(data["second_value"]),
            int(data["plans"]),
            list(data["themes"]),
            [float(v) for v in data.get("deep_values", [])],
            str(data.get("source", "")),
            data.get("check"),
        )


ANALYST_BREADTH: Final = 40
"""A puzzle's options searched one roll deep (the best by the learned value; the coach
searches 30)."""


STARTER: Final = "starter.jsonl.gz"
"""The starter set's file, in the package's ``data`` folder (one puzzle a line, as
:meth:`Puzzle.to_dict` writes it): ``magdagdon puzzles mine --self-play`` made it."""


def starter_puzzles() -> list[Puzzle]:
    """The starter set shipped in the package (the store loads it into a new server)."""
    data = resources.files("magdagdon") / "data" / STARTER
    with data.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        return [Puzzle.from_dict(json.loads(line)) for line in lines if line.strip()]


def analyst() -> StrongPlayer:
    """The strong player as puzzles use it: the best :data:`ANALYST_BREADTH` options searched
    one roll deep at every stage, and no power option held back by a margin (the coach wants a
    power to beat the best placement by 10 points before it spends one; a puzzle compares
    every plan as it is valued)."""
    return StrongPlayer(breadth=ANALYST_BREADTH, search_empty=16, power_margin=-math.inf)


def _deep_player() -> StrongPlayer:
    return StrongPlayer(breadth=DEEP_BREADTH, search_empty=16)


def plans(game: Game, player: StrongPlayer | None = None) -> list[Option]:
    """The distinct plans of a turn just rolled, best first, each valued by the search."""
    return _distinct((player or analyst()).options(game))


def deep_value(game: Game, option: Option, player: StrongPlayer | None = None) -> float:
    """An option valued two rolls deep: the mean over what comes next (the next roll, or what
    a REROLL brings) of the best next option, those valued one roll deep (the best
    :data:`DEEP_BREADTH` of them). Exact positions (few squares left) keep their value."""
    deep = player or _deep_player()
    if option.after is not None:
        empty = option.after.count(EMPTY)
        if empty <= 4:  # searched to the end of the game already
            return option.value
        total = 0.0
        powers_used = game.difficulty.powers - option.powers_left
        board = Board(option.after)
        for roll, probability in ROLLS:
            nxt = Game.from_position(game.difficulty, board, roll, powers_used=powers_used)
            total += probability * deep.options(nxt)[0].value
        return total
    # a REROLL (after any ±1 changes): the mean over what the chosen dice may show of the
    # best play of the roll
    before = game.copy()
    for action in option.prefix[:-1]:
        before.apply(action)
    reroll: Any = option.prefix[-1]
    chosen = list(reroll["dice"])
    kept = [d.value for d in before.dice if d.index not in chosen]
    from .rolls import outcomes

    total = 0.0
    for outcome, probability in outcomes(len(chosen)):
        nxt = Game.from_position(
            game.difficulty, game.board, (*kept, *outcome), powers_used=before.powers_used + 1
        )
        total += probability * deep.options(nxt)[0].value
    return total


def themes_of(game: Game, best: Option, others: Sequence[Option]) -> list[str]:
    """What the best plan does (see :data:`THEMES`)."""
    found: list[str] = []
    before = game.board.cells
    actions = best.actions
    kinds = [a["type"] for a in actions]
    if best.after is not None:
        for line in LINES:
            was = [before[sq] for sq in line]
            now = [best.after[sq] for sq in line]
            if EMPTY in was and EMPTY not in now:
                bonus = line_bonus(now)
                if bonus is not None and bonus.value not in found:
                    found.append(bonus.value)
        kept = _prospects(best.after)
        for other in others:
            if other.after is None:
                continue
            lost = kept - _prospects(other.after)
            for bonus in (Bonus.STRAIGHT, Bonus.FOUR, Bonus.TWO_PAIRS):
                if bonus in lost and f"keeps_{bonus.value}" not in found:
                    found.append(f"keeps_{bonus.value}")
            break  # against the best other plan only
        placed = sum(1 for a, b in zip(before, best.after, strict=True) if a != b and b != RUIN)
        if "accept_magdagdon" not in kinds and placed < len(game.dice):
            found.append("fewer_dice")
        if best.after.count(EMPTY) <= 4:
            found.append("last_squares")
    for action in actions:
        if action["type"] == "adjust":
            found.append("increase" if action["delta"] > 0 else "decrease")
        elif action["type"] == "reroll":
            found.append("reroll")
    power_used = any(k in ("adjust", "reroll") for k in kinds)
    if game.phase is Phase.MAGDAGDON:
        found.append("rescue" if power_used else "ruin")
    elif not power_used and game.powers_left and any(o.cost for o in others):
        found.append("keep_power")
    return found


def _prospects(cells: tuple[int, ...]) -> set[Bonus]:
    return {b for b in line_prospects(Board(cells)) if b is not None}


def analyse(
    game: Game,
    *,
    margin: float = MARGIN,
    player: StrongPlayer | None = None,
    deep: StrongPlayer | None = None,
    source: str = "",
    found: list[Option] | None = None,
) -> Puzzle | None:
    """The puzzle of a turn just rolled, or None when no plan stands out there (``found``:
    its :func:`plans`, when they were searched already)."""
    if found is None:
        found = plans(game, player)
    if len(found) < MIN_PLANS or found[0].value - found[1].value < margin:
        return None
    candidates = found[:DEEP_CANDIDATES]
    values = [deep_value(game, o, deep) for o in candidates]
    if any(v >= values[0] for v in values[1:]):
        return None  # the deeper search prefers another plan
    best = found[0]
    return Puzzle(
        Position.of(game),
        best.actions,
        best.value,
        found[1].value,
        len(found),
        themes_of(game, best, found[1:]),
        values,
        source,
    )


# --- grading ----------------------------------------------------------------------------------


class PlanRefused(ValueError):
    """An attempt that is not a legal plan of the turn: ``code`` says why (a rule's code, or
    ``plan_unfinished`` / ``plan_too_long``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Grade:
    """What an attempt came to."""

    yours: float
    best: float
    solved: bool


def play_plan(position: Position, actions: Sequence[Action]) -> Game:
    """The turn played: the game after the plan, or just before its REROLL (whose dice are not
    rolled here: a REROLL ends a plan, valued by expectation). PlanRefused when an action
    breaks a rule (the rule's code), the plan ends before the turn does, or actions follow its
    end (CONFIRM, the RUIN, or the REROLL)."""
    game = position.game().search_copy()
    if not actions:
        raise PlanRefused("plan_unfinished", "The plan is empty: play the turn.")
    for i, action in enumerate(actions):
        last = i == len(actions) - 1
        if isinstance(action, dict) and action.get("type") == "reroll":
            try:
                game.copy().apply(action)
            except RuleViolation as problem:
                if problem.code != "no_dice_stream":  # (that one: all else was legal)
                    raise PlanRefused(problem.code, str(problem)) from None
            if not last:
                raise PlanRefused("plan_too_long", "A REROLL ends the plan: nothing follows it.")
            return game
        try:
            game.apply(action)
        except RuleViolation as problem:
            raise PlanRefused(problem.code, str(problem)) from None
        if action["type"] in TURN_ENDING:
            if not last:
                raise PlanRefused("plan_too_long", "The turn ended: nothing follows its end.")
            return game
    raise PlanRefused("plan_unfinished", "The plan does not end the turn: CONFIRM it.")


def plan_value(
    position: Position, actions: Sequence[Action], player: StrongPlayer | None = None
) -> float:
    """The expected final score of a plan, valued as :func:`plans` values options."""
    strong = player or analyst()
    game = play_plan(position, actions)
    last = actions[-1]
    if last["type"] == "reroll":
        return strong.reroll_value(game, last["dice"])
    ev = strong.evaluator(position.difficulty)
    cells = game.board.cells
    paid = game.power_penalty
    if EMPTY not in cells:
        return ev.learned(cells, game.powers_left) - paid
    return ev.searched(cells, game.powers_left) - paid


def differences(
    position: Position, yours: Sequence[Action], best: Sequence[Action]
) -> list[dict[str, Any]]:
    """What the best plan does that the player's does not, in the game's terms, the most
    telling first (a missed puzzle says it, with both boards): each line where the best
    completes a bonus that yours does not (``completes``), each where the best keeps a bonus
    possible that yours makes impossible or smaller (``gave_up``); the Majda Powers yours
    spent and the best keeps (``spent``) or the best spends and yours kept (``kept``); the
    dice each placed, when they differ (``placed``). A line is ``line`` (``row`` or
    ``column``) and ``n`` (1–4); a bonus its value (``straight``, …). Lines are compared only
    when neither plan ends with a REROLL. Both plans must be legal (:func:`play_plan`)."""
    before = position.game()
    after = {name: play_plan(position, plan) for name, plan in (("yours", yours), ("best", best))}
    rerolled = {
        name: plan[-1]["type"] == "reroll" for name, plan in (("yours", yours), ("best", best))
    }
    found: list[dict[str, Any]] = []
    if not any(rerolled.values()):
        mine, top = after["yours"].board, after["best"].board
        open_before = [
            EMPTY in cells and RUIN not in cells
            for cells in ([before.board[sq] for sq in line] for line in LINES)
        ]
        mine_next, top_next = line_prospects(mine), line_prospects(top)
        for i, line in enumerate(LINES):
            if not open_before[i]:
                continue
            where = {"line": "row" if i < 4 else "column", "n": i % 4 + 1}
            done = {
                name: _completed([board[sq] for sq in line])
                for name, board in (("yours", mine), ("best", top))
            }
            if done["best"] is not None and done["yours"] != done["best"]:
                found.append({"kind": "completes", **where, "bonus": done["best"].value})
                continue
            hope = top_next[i]
            if hope is None or done["yours"] is not None:
                continue
            kept = mine_next[i]
            if kept is None or BONUS_POINTS[kept] < BONUS_POINTS[hope]:
                found.append({"kind": "gave_up", **where, "bonus": hope.value})
    spent = {
        name: after[name].powers_used + rerolled[name] - position.powers_used
        for name in ("yours", "best")
    }
    if spent["yours"] > spent["best"]:
        found.append({"kind": "spent", "n": spent["yours"] - spent["best"]})
    elif spent["best"] > spent["yours"]:
        found.append({"kind": "kept", "n": spent["best"] - spent["yours"]})
    if not any(rerolled.values()):
        placed = {
            name: sum(
                1
                for a, b in zip(before.board.cells, after[name].board.cells, strict=True)
                if a != b and b != RUIN
            )
            for name in ("yours", "best")
        }
        if placed["yours"] != placed["best"]:
            found.append({"kind": "placed", "yours": placed["yours"], "best": placed["best"]})
    return found


def _completed(cells: Sequence[int]) -> Bonus | None:
    """The bonus a full line without a RUIN makes (None: not full, a RUIN, or none)."""
    if EMPTY in cells or RUIN in cells:
        return None
    return line_bonus(cells)


def grade(
    position: Position,
    best_value: float,
    actions: Sequence[Action],
    player: StrongPlayer | None = None,
) -> Grade:
    """An attempt graded against the puzzle's best plan (PlanRefused for an illegal plan)."""
    yours = plan_value(position, actions, player)
    return Grade(yours, best_value, yours >= best_value - TOLERANCE)


# --- mining -----------------------------------------------------------------------------------


def self_play_game(difficulty: Difficulty, seed: int, index: int) -> Iterator[tuple[Game, str]]:
    """Every turn just rolled of the coach's own game ``index`` of a run with ``seed`` (dice
    seed ``game_seed(seed, index)``, as the simulator's), each with its source; reproducible."""
    player = StrongPlayer()
    game = Game.new(difficulty, seed=game_seed(seed, index))
    while game.phase is not Phase.OVER:
        for action in player.turn(game):
            game.apply(action)
            if action["type"] == "roll" and game.phase in (Phase.PLACE, Phase.MAGDAGDON):
                yield game.copy(), f"self-play:{seed}:{index}:{game.turns}"


def self_play(difficulty: Difficulty, games: int, seed: int) -> Iterator[tuple[Game, str]]:
    """:func:`self_play_game` of games ``0`` to ``games - 1``."""
    for i in range(games):
        yield from self_play_game(difficulty, seed, i)


def turns_of(game: Game) -> Iterator[tuple[Game, list[Action]]]:
    """Each turn of a stored game replayed from its seed: the game just rolled and the
    actions the player played in it (up to its end, or a REROLL)."""
    replay = Game.new(game.difficulty, seed=game.seed)
    log = list(game.actions)
    i = 0
    while i < len(log):
        replay.apply(log[i])
        i += 1
        if log[i - 1]["type"] != "roll" or replay.phase is Phase.OVER:
            continue
        start = replay.copy()
        played: list[Action] = []
        while i < len(log):
            action = log[i]
            replay.apply(action)
            played.append(action)
            i += 1
            if action["type"] in TURN_ENDING or action["type"] == "reroll":
                break
        if played and played[-1]["type"] == "reroll":
            # the turn goes on with the new dice: finish it in the replay, not a puzzle's plan
            while i < len(log) and log[i - 1]["type"] not in TURN_ENDING:
                replay.apply(log[i])
                i += 1
        yield start, played


def player_losses(
    game: Game, player: StrongPlayer | None = None
) -> list[tuple[float, Game, list[Option]]]:
    """Each turn of a finished game with what the player's plan lost to the best plan (points
    of expected final score) and the turn's plans, the biggest loss first."""
    strong = player or analyst()
    out = []
    for start, played in turns_of(game):
        found = plans(start, strong)
        if len(found) < MIN_PLANS:
            continue
        try:
            yours = plan_value(Position.of(start), played, strong)
        except PlanRefused:
            continue  # a turn cut short by the end of the log
        out.append((found[0].value - yours, start, found))
    out.sort(key=lambda x: -x[0])
    return out
