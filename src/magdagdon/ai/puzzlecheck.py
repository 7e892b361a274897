"""The puzzle check: is a puzzle's best plan really the best? Paired play-outs, not the search.

The miner (:func:`~.puzzles.analyse`) values a turn's plans by the coach's search, and a
search's largest values are biased upwards: some puzzles' best plans were no better than their
runner-up when played (issue 44). The check shares nothing with that search. It plays each
plan's afterstate to the end of the game ``games`` times with the ``ntuple`` bot (the network's
greedy player: no search; a millisecond or so a turn, some 20 ms while it holds powers, each
±1 sequence and REROLL weighed), on the same later dice for every plan
(play-out ``i`` of every plan is a game set up at the position with the dice seed
``game_seed(seed, i)``: the same rolls in every later turn, the same values for a REROLL's
dice), so that two plans' final scores differ only by what the plans did (*paired*).

The best plan is compared with its :data:`RIVALS` strongest rivals by the coach's value (the
distinct plans of :func:`~.puzzles.plans`, up to a symmetry of the board). The rest need no
play-out: the coach values each of them at least as far below the best as the last rival
checked, and the check is there to catch the search's overrating of a plan against near rivals
(each wrong answer the issue names already fails against the coach's own runner-up:
``python -m benchmarks.puzzle_check --ids …``, BENCHMARKS.md); playing every plan would cost
hundreds of play-outs a plan in PEACEFUL, where a turn has up to thousands.

For each rival the check reports the mean paired difference (best minus rival, points of final
score) and its standard error. The best *holds* when for every rival ``mean - Z * se >=``
:data:`FLOOR`: significantly ahead (``Z`` = 2, about 98% one-sided for each rival), and by a
margin a player can feel (:data:`FLOOR` = 2 points: half the miner's :data:`~.puzzles.MARGIN`,
twice the grading :data:`~.puzzles.TOLERANCE`; a smaller edge is within what the bot's own
errors move). The play-outs stop early once every rival is decided: after ``games`` play-outs
a plan, a puzzle whose every rival already passes holds and one with a rival whose ``mean + Z
* se`` is below the floor fails; else ``games`` more are played, up to ``max_games`` (looking
after each stage makes a wrong verdict a little likelier than one look would; the floor is
the slack for it).

A puzzle's *measured margin* is the mean difference against its closest rival (the smallest
mean), stored with the figures (:class:`Check`) in the puzzle (``Puzzle.check``).

Rules refuse what is no puzzle at all:

- *one puzzle per position*: :func:`position_key` is the board up to the 8 symmetries of the
  square, the dice as a multiset, the difficulty and the powers used (not the turn count);
- *no forced answer* (:func:`refusal`, before any play-out): a best plan that spends no power
  is refused when no other plan of the turn spends none (every rival pays for a power: the
  answer is the one move a player makes without thinking; the forced last square, and the
  RUIN whose rivals are hopeless powers, are such);
- *no rival at a price*: a rival that leaves the best's board with fewer powers is skipped,
  and so is one that pays more powers than the best when its first :data:`SCREEN` play-outs
  each end exactly as the best's, less the penalties of the powers it paid (a REROLL that can
  only come back to the best's move): the next plan is played instead. A rival found so only
  after all its play-outs is set aside (``priced``); a puzzle with no other rival fails as
  forced. A margin of exactly a power's penalty (the 70 points of SURVIVAL) is no margin.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..engine import Action, Board, Game, Phase
from .coach import _canonical
from .players import Player
from .puzzles import Position, Puzzle, plans, play_plan
from .registry import make_player
from .simulate import game_seed
from .strong import Option, StrongPlayer

RIVALS: Final = 5
"""The best plan is played against this many of its strongest rivals (module docstring)."""
FLOOR: Final = 2.0
"""Points of final score by which the best must be ahead of every rival, beyond ``Z`` standard
errors."""
Z: Final = 2.0
"""Standard errors of the paired mean difference that must clear :data:`FLOOR`."""
GAMES: Final = 100
"""Play-outs a plan in a stage of the check."""
MAX_GAMES: Final = 400
"""The most play-outs a plan."""
SCREEN: Final = 8
"""Play-outs that screen a rival paying more powers than the best: set aside when each ends
exactly as the best's, less the price (module docstring)."""
BOT: Final = "ntuple"
"""The bot that plays the afterstates to the end."""


def position_key(position: Position) -> tuple[Any, ...]:
    """What makes two positions one puzzle: the difficulty, the board up to the 8 symmetries
    of the square, the dice as a multiset and the powers used (the turn count is left out)."""
    cells = Board.parse(position.board).cells
    return (
        position.difficulty.value,
        _canonical(cells),
        tuple(sorted(position.dice)),
        position.powers_used,
    )


def plan_key(position: Position, actions: Sequence[Action]) -> tuple[Any, ...]:
    """Plans that are one: the same afterstate up to a symmetry with the same powers left, or
    a REROLL of as many dice keeping the same values with the same powers left."""
    game = play_plan(position, actions)
    if actions[-1]["type"] == "reroll":
        chosen = set(actions[-1]["dice"])
        kept = tuple(sorted(d.value for d in game.dice if d.index not in chosen))
        return ("reroll", kept, len(chosen), game.powers_left)
    return ("after", _canonical(game.board.cells), game.powers_left)


def spends_power(actions: Sequence[Action]) -> bool:
    """Whether a plan uses a Majda Power."""
    return any(a["type"] in ("adjust", "reroll") for a in actions)


def refusal(position: Position, best: Sequence[Action], found: Sequence[Option]) -> str | None:
    """Why a best plan is no puzzle whatever the play-outs say (``found``: the turn's
    distinct plans), or None: ``"forced"`` when it spends no power and is the only plan of the
    turn that spends none (module docstring)."""
    if spends_power(best):
        return None
    mine = plan_key(position, best)
    free = (o for o in found if not o.cost)
    return None if any(plan_key(position, o.actions) != mine for o in free) else "forced"


@dataclass(frozen=True)
class Rival:
    """The paired play-outs of the best plan against one rival."""

    plan: list[Action]
    mean: float
    """The mean of (best's final score - rival's), over the play-outs."""
    se: float
    """Its standard error."""
    coach: float
    """The coach's value of the rival (the search's expected final score)."""

    def to_dict(self) -> dict[str, Any]:
        """As JSON."""
        return {
            "plan": self.plan,
            "mean": round(self.mean, 3),
            "se": round(self.se, 3),
            "coach": round(self.coach, 3),
        }


@dataclass(frozen=True)
class Check:
    """What the check found: the play-outs a plan, their seed and bot, each rival's figures
    (the closest first) and the verdict."""

    games: int
    seed: int
    bot: str
    rivals: list[Rival]
    holds: bool
    best_mean: float = 0.0
    """The best plan's mean final score over the play-outs."""
    reason: str = ""
    """Why it failed: ``"behind"`` (a rival not significantly behind the best), or a
    :func:`refusal`; empty when it holds."""
    seconds: float = field(default=0.0, compare=False)
    priced: int = 0
    """Rivals played and set aside: every play-out ended exactly as the best's, less the
    price of the powers the rival paid (the best at a price, no rival)."""

    @property
    def margin(self) -> float:
        """The measured margin: the mean difference against the closest rival."""
        return self.rivals[0].mean if self.rivals else math.inf

    def to_dict(self) -> dict[str, Any]:
        """As JSON (what a puzzle stores)."""
        return {
            "games": self.games,
            "seed": self.seed,
            "bot": self.bot,
            "best_mean": round(self.best_mean, 3),
            "margin": round(self.margin, 3),
            "rivals": [r.to_dict() for r in self.rivals],
            "priced": self.priced,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Check:
        """Read :meth:`to_dict`'s form (a stored check held: a puzzle keeps only those)."""
        return cls(
            int(data["games"]),
            int(data["seed"]),
            str(data["bot"]),
            [
                Rival(list(r["plan"]), float(r["mean"]), float(r["se"]), float(r["coach"]))
                for r in data["rivals"]
            ],
            True,
            float(data.get("best_mean", 0.0)),
            priced=int(data.get("priced", 0)),
        )


def play_out(
    position: Position, actions: Sequence[Action], seed: int, bot: Player | None = None
) -> int:
    """The final score of a plan played, then the game to its end by ``bot`` (the ``ntuple``
    bot by default), the later dice from ``seed`` (a REROLL's too)."""
    player = bot or make_player(BOT)
    game = Game.from_position(
        position.difficulty,
        position.board,
        position.dice,
        powers_used=position.powers_used,
        turns=position.turns,
        seed=seed,
    )
    for action in actions:
        game.apply(action)
    while game.phase is not Phase.OVER:
        for action in player.turn(game):
            game.apply(action)
    return game.score().total


def _stats(diffs: Sequence[int]) -> tuple[float, float]:
    n = len(diffs)
    mean = sum(diffs) / n
    if n < 2:
        return mean, math.inf
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, math.sqrt(var / n)


def check(
    position: Position,
    best: Sequence[Action],
    *,
    found: Sequence[Option] | None = None,
    rivals: int = RIVALS,
    games: int = GAMES,
    max_games: int = MAX_GAMES,
    seed: int = 0,
    floor: float = FLOOR,
    z: float = Z,
    bot: Player | None = None,
    player: StrongPlayer | None = None,
) -> Check:
    """Check a puzzle's best plan against its ``rivals`` strongest rivals (``found``: the
    turn's plans, best first, as :func:`~.puzzles.plans` gives them, searched when not given)
    by paired play-outs (module docstring); a :func:`refusal` fails at once."""
    start = time.perf_counter()
    player_bot = bot or make_player(BOT)
    if found is None:
        found = plans(position.game(), player)
    why = refusal(position, best, found)
    mine = plan_key(position, best)
    others: list[Option] = []
    seen = {mine}
    screen: list[int] = []
    set_aside = 0
    for option in found:
        key = plan_key(position, option.actions)
        if key in seen or _same_board_dearer(key, mine):
            continue
        seen.add(key)
        dearer = price(position, option.actions) - price(position, best)
        if dearer > 0 and why is None:  # the best at a price? a few play-outs say
            seeds = [game_seed(seed, i) for i in range(SCREEN)]
            if not screen:
                screen = [play_out(position, best, s, player_bot) for s in seeds]
            rival = [play_out(position, option.actions, s, player_bot) for s in seeds]
            if all(b - r == dearer for b, r in zip(screen, rival, strict=True)):
                set_aside += 1
                continue
        others.append(option)
        if len(others) == rivals:
            break
    if why is not None or not others:
        return Check(
            0, seed, BOT, [], False, reason=why or "alone", seconds=time.perf_counter() - start
        )
    scores: list[list[int]] = [[] for _ in range(len(others) + 1)]
    plays = [list(best)] + [o.actions for o in others]
    extra = [price(position, plan) - price(position, best) for plan in plays]
    n = 0
    while True:
        for i in range(n, n + games):
            s = game_seed(seed, i)
            for k, plan in enumerate(plays):
                scores[k].append(play_out(position, plan, s, player_bot))
        n += games
        diffs = [
            [b - r for b, r in zip(scores[0], scores[k], strict=True)] for k in range(1, len(plays))
        ]
        # a rival whose every play-out ends as the best's, its price paid, is no rival
        priced = [extra[k] > 0 and set(d) == {extra[k]} for k, d in enumerate(diffs, 1)]
        figures = [_stats(d) for d in diffs]
        real = [f for f, p in zip(figures, priced, strict=True) if not p]
        passed = bool(real) and all(m - z * se >= floor for m, se in real)
        failed = not real or any(m + z * se < floor for m, se in real)
        if passed or failed or n + games > max_games:
            break
    found_rivals = sorted(
        (
            Rival(o.actions, m, se, o.value)
            for o, (m, se), p in zip(others, figures, priced, strict=True)
            if not p
        ),
        key=lambda r: r.mean,
    )
    return Check(
        n,
        seed,
        BOT,
        found_rivals,
        passed,
        sum(scores[0]) / n,
        "" if passed else "behind" if real else "forced",
        time.perf_counter() - start,
        set_aside + sum(priced),
    )


def _same_board_dearer(key: tuple[Any, ...], best: tuple[Any, ...]) -> bool:
    """Whether a plan leaves the best's board with fewer powers (the best at a price)."""
    return bool(key[0] == best[0] == "after" and key[1] == best[1] and key[2] < best[2])


def price(position: Position, actions: Sequence[Action]) -> int:
    """The power penalties a plan pays."""
    used = sum(1 for a in actions if a["type"] in ("adjust", "reroll"))
    start = position.powers_used
    return sum(position.difficulty.penalties[start : start + used])


def check_puzzle(puzzle: Puzzle, **options: Any) -> Check:
    """:func:`check` of a puzzle's position and best plan."""
    return check(puzzle.position, puzzle.best, **options)
