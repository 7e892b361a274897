"""Actions as integers, for search and reinforcement learning: a fixed, documented id per
action, the legal ids of a position, and a game played by ids with chance as chance.

The die-level ids (``NUM_ACTIONS`` = 158) name dice by their value, so two dice showing the
same number give one action, and they mean the same in every position:

======================  =====================  ==========================================
ids                     action                 meaning
======================  =====================  ==========================================
0                       ROLL                   (a chance node in :class:`EncodedGame`)
1 + 16 (v-1) + s        STAGE                  a tray die showing ``v`` on square ``s``
97 + s                  TAKE BACK              the die staged on square ``s``
113                     TAKE BACK ALL
114                     CONFIRM
115 + (v-1)             DECREASE −1            a tray die showing ``v``
121 + (v-1)             INCREASE +1            a tray die showing ``v``
126 + m, m = 1..15      REROLL                 the tray dice of bit set ``m``, counted in
                                               the tray's canonical order
142 + s                 RUIN                   accept MAGDAGDON with a RUIN on ``s``
======================  =====================  ==========================================

The tray's canonical order is its dice sorted by value (ties by index); of equal dice a
REROLL takes the first ones, so a set of values is one id. Of several dice showing ``v`` an
id acts on the one with the lowest index.

The turn-level ids add one action per legal staged set, as :meth:`Game.turn_plans` lists
them: ``PLAN + code`` (``NUM_TURN_ACTIONS`` = 158 + 17**4). The code gives each of the turn's
four dice, sorted, the square it goes on (``1 + s``) or 0 (not placed): ``code = c0 + 17 c1
+ 289 c2 + 4913 c3``; dice of equal value take their squares in increasing order. A turn-level
game uses these, the powers and the RUINS, never STAGE, TAKE BACK or CONFIRM.

>>> game = Game.from_position("nightmare", "3.../..../..../....", (4, 2, 3, 3))
>>> legal_ids(game)[:4]
[18, 21, 34, 37]
>>> decode(game, 37)
{'type': 'stage', 'die': 2, 'cell': 4}
>>> encode(game, actions.stage(3, 4))
37
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from typing import Final

from . import actions
from .actions import Action
from .board import Board, bits
from .dice import DiceStream, chance_probabilities, outcomes
from .game import TURN_ACTIONS, Difficulty, Game, Phase
from .placement import Placement, staged_results, with_placed
from .placement import legal_mask as legal_squares
from .scoring import score_board

ROLL: Final = 0
STAGE: Final = 1
TAKE_BACK: Final = 97
TAKE_BACK_ALL: Final = 113
CONFIRM: Final = 114
DECREASE: Final = 115
INCREASE: Final = 121
REROLL: Final = 126
RUIN: Final = 142
NUM_ACTIONS: Final = 158
"""The die-level ids are 0 .. NUM_ACTIONS - 1."""
PLAN: Final = NUM_ACTIONS
PLAN_CODES: Final = 17**4
NUM_TURN_ACTIONS: Final = PLAN + PLAN_CODES
"""The turn-level ids are 0 .. NUM_TURN_ACTIONS - 1 (the die-level ones, then the plans)."""
MAX_CHANCE_OUTCOMES: Final = len(outcomes(4))
"""The most outcomes a chance node has: the 126 distinct rolls of four dice."""


def tray_order(game: Game) -> list[int]:
    """The indices of the tray dice in canonical order: by value, ties by index."""
    values = [d.value for d in game.dice]
    return sorted((i for i, d in enumerate(game.dice) if d.in_tray), key=lambda i: (values[i], i))


def _canonical_subset(values: Sequence[int], chosen: set[int], order: Sequence[int]) -> int:
    """The REROLL bit set of the tray dice ``chosen``: equal values counted from the first."""
    mask = 0
    for value in sorted({values[i] for i in chosen}):
        wanted = sum(values[i] == value for i in chosen)
        for k, i in enumerate(order):
            if values[i] == value and wanted:
                mask |= 1 << k
                wanted -= 1
    return mask


def encode(game: Game, action: Action) -> int:
    """The die-level id of an action of the position (ValueError for a die it has not)."""
    values = [d.value for d in game.dice]
    kind = action["type"]
    try:
        if action["type"] == "roll":
            return ROLL
        if action["type"] == "stage":
            return STAGE + 16 * (values[action["die"]] - 1) + action["cell"]
        if action["type"] == "unstage":
            cell = game.dice[action["die"]].cell
            if cell is None:
                raise ValueError(f"die {action['die']} is not staged")
            return TAKE_BACK + cell
        if action["type"] == "unstage_all":
            return TAKE_BACK_ALL
        if action["type"] == "confirm":
            return CONFIRM
        if action["type"] == "adjust":
            base = INCREASE if action["delta"] == 1 else DECREASE
            return base + values[action["die"]] - 1
        if action["type"] == "reroll":
            order = tray_order(game)
            if not set(action["dice"]) <= set(order):
                raise ValueError(f"not tray dice: {action['dice']!r}")
            return REROLL + _canonical_subset(values, set(action["dice"]), order)
        if action["type"] == "accept_magdagdon":
            return RUIN + action["cell"]
    except IndexError:
        raise ValueError(f"no such die in {action!r}") from None
    raise ValueError(f"unknown action type {kind!r}")


def decode(game: Game, action_id: int) -> Action:
    """The action a die-level id stands for in the position: the one with the lowest die
    index among equal dice (ValueError for an id that names nothing here; the action may
    still be illegal, as :meth:`Game.apply` would say)."""
    values = [d.value for d in game.dice]
    tray = tray_order(game)

    def tray_die(value: int) -> int:
        die = min((i for i in tray if values[i] == value), default=None)
        if die is None:
            raise ValueError(f"id {action_id}: no tray die shows {value}")
        return die

    if type(action_id) is not int or not 0 <= action_id < NUM_ACTIONS:
        raise ValueError(f"{action_id!r} is not a die-level action id (0-{NUM_ACTIONS - 1})")
    if action_id == ROLL:
        return actions.roll()
    if action_id < TAKE_BACK:
        value, cell = divmod(action_id - STAGE, 16)
        return actions.stage(tray_die(value + 1), cell)
    if action_id < TAKE_BACK_ALL:
        cell = action_id - TAKE_BACK
        die = next((d.index for d in game.dice if d.cell == cell), None)
        if die is None:
            raise ValueError(f"id {action_id}: no die is staged on square {cell}")
        return actions.unstage(die)
    if action_id == TAKE_BACK_ALL:
        return actions.unstage_all()
    if action_id == CONFIRM:
        return actions.confirm()
    if action_id < REROLL:
        delta = -1 if action_id < INCREASE else 1
        return actions.adjust(tray_die((action_id - DECREASE) % 6 + 1), delta)
    if action_id < RUIN:
        mask = action_id - REROLL
        if mask >= 1 << len(tray):
            raise ValueError(f"id {action_id}: the tray has {len(tray)} dice")
        return actions.reroll(tray[k] for k in bits(mask))
    return actions.accept_magdagdon(action_id - RUIN)


def legal_ids(game: Game) -> list[int]:
    """The die-level ids of :meth:`Game.legal_actions`, each once, in increasing order."""
    return sorted({encode(game, action) for action in game.legal_actions()})


def legal_mask(game: Game, turn_level: bool = False) -> list[bool]:
    """For every id (die-level, or turn-level), whether it is legal now."""
    mask = [False] * (NUM_TURN_ACTIONS if turn_level else NUM_ACTIONS)
    for action_id in turn_legal_ids(game) if turn_level else legal_ids(game):
        mask[action_id] = True
    return mask


# --- observation ---------------------------------------------------------------------------

OBS_BOARD: Final = 0
"""Observation offsets: 8 planes of 16 squares, the permanent board one-hot (plane 0 empty,
1-6 the numbers, 7 RUIN) at ``OBS_BOARD + 16 * plane + square``."""
OBS_STAGED: Final = 128
"""6 planes of 16: a die showing ``v`` staged on ``s`` at ``OBS_STAGED + 16 (v-1) + s``."""
OBS_TRAY: Final = 224
"""4 slots of 6: the tray dice in canonical order, one-hot value: ``OBS_TRAY + 6 k + v-1``."""
OBS_POWERS: Final = 248
"""4: the Majda Powers left (0-3), one-hot."""
OBS_REQUIRED: Final = 252
"""4: the dice the turn must place (0-3), one-hot."""
OBS_PHASE: Final = 256
"""4: the phase (ROLL, PLACE, MAGDAGDON, OVER), one-hot."""
OBS_PENDING: Final = 260
"""4: the tray slots whose REROLL awaits its chance outcome."""
OBS_TURN: Final = 264
"""2: the turn's actions over :data:`~.game.TURN_ACTIONS` (at most 1); 1 past the bound."""
OBS_DIFFICULTY: Final = 266
"""3: the difficulty (PEACEFUL, SURVIVAL, NIGHTMARE), one-hot."""
OBS_SIZE: Final = 269
"""The length of an observation."""

_PHASES: Final = (Phase.ROLL, Phase.PLACE, Phase.MAGDAGDON, Phase.OVER)
_DIFFICULTIES: Final = tuple(Difficulty)


def observation(game: Game, pending: Sequence[int] = ()) -> list[float]:
    """What a player sees, as :data:`OBS_SIZE` numbers 0-1 (the ``OBS_*`` layout): the
    board, the staged dice, the tray, the powers left, the required dice, the phase, the
    dice of a REROLL awaiting its outcome (``pending``, die indices), the turn's actions and
    the difficulty. Dice are in canonical order, so the numbering of dice never shows."""
    obs = [0.0] * OBS_SIZE
    for square, value in enumerate(game.board):
        obs[OBS_BOARD + 16 * value + square] = 1.0
    for die in game.dice:
        if die.cell is not None:
            obs[OBS_STAGED + 16 * (die.value - 1) + die.cell] = 1.0
    for k, i in enumerate(tray_order(game)):
        obs[OBS_TRAY + 6 * k + game.dice[i].value - 1] = 1.0
        if i in pending:
            obs[OBS_PENDING + k] = 1.0
    obs[OBS_POWERS + game.powers_left] = 1.0
    obs[OBS_REQUIRED + game.required] = 1.0
    obs[OBS_PHASE + _PHASES.index(game.phase)] = 1.0
    obs[OBS_TURN] = min(game.turn_actions, TURN_ACTIONS) / TURN_ACTIONS
    obs[OBS_TURN + 1] = float(game.turn_actions >= TURN_ACTIONS)
    obs[OBS_DIFFICULTY + _DIFFICULTIES.index(game.difficulty)] = 1.0
    return obs


def text(game: Game, pending: Sequence[int] = ()) -> str:
    """The position as text: the difficulty, turn, phase, score, powers left and required
    dice; the board (staged dice in brackets, RUINS as X); the tray (``*`` a die of a
    pending REROLL)."""
    staged = {d.cell: d.value for d in game.dice if d.cell is not None}
    rows = []
    for r in range(4):
        cells = []
        for c in range(4):
            sq = 4 * r + c
            value = game.board[sq]
            if sq in staged:
                cells.append(f"[{staged[sq]}]")
            else:
                cells.append(f" {'.123456X'[value]} ")
        rows.append("".join(cells))
    tray = " ".join(f"{d.value}{'*' if d.index in pending else ''}" for d in game.dice if d.in_tray)
    head = (
        f"{game.difficulty.name} turn {game.turns + 1} {game.phase.name} "
        f"score {game.score().total} powers {game.powers_left} required {game.required}"
    )
    return "\n".join([head, *rows, f"tray: {tray or '-'}"]) + "\n"


# --- turn level ------------------------------------------------------------------------------


def plan_code(game: Game, placements: Sequence[Placement]) -> int:
    """The turn-level id (``PLAN + code``) of a staged set of ``(value, square)`` pairs."""
    order = sorted(range(len(game.dice)), key=lambda i: (game.dice[i].value, i))
    values = [game.dice[i].value for i in order]
    squares = {v: sorted(s for w, s in placements if w == v) for v in set(values)}
    if sum(map(len, squares.values())) != len(placements):
        raise ValueError(f"{placements!r} uses values the turn's dice do not show")
    code = 0
    for k, value in enumerate(values):
        if squares[value]:
            code += (squares[value].pop(0) + 1) * 17**k
    if any(squares.values()):
        raise ValueError(f"{placements!r} uses more dice than the turn has")
    return PLAN + code


def plan_placements(game: Game, action_id: int) -> list[Placement]:
    """The staged set of a turn-level plan id, in a legal staging order (ValueError if the
    set is not one the turn's dice can stage)."""
    if type(action_id) is not int or not PLAN <= action_id < NUM_TURN_ACTIONS:
        raise ValueError(f"{action_id!r} is not a plan id ({PLAN}-{NUM_TURN_ACTIONS - 1})")
    values = sorted(d.value for d in game.dice)
    code, chosen = action_id - PLAN, []
    for value in values:
        code, digit = divmod(code, 17)
        if digit:
            chosen.append((value, digit - 1))
    board = game.board
    empty, numbers, vm = board.empty, board.numbers, list(board.value_masks)
    ordered: list[Placement] = []
    while chosen:  # a legal set stages in any order that keeps each die legal (R4)
        step = next(
            (p for p in chosen if legal_squares(empty, numbers, vm, p[0]) >> p[1] & 1), None
        )
        if step is None or len({s for _, s in chosen}) != len(chosen):
            raise ValueError(f"id {action_id}: not a legal staged set here")
        chosen.remove(step)
        ordered.append(step)
        empty, numbers, vm = with_placed(empty, numbers, vm, [step])
    return ordered


def turn_legal_ids(game: Game) -> list[int]:
    """The turn-level ids legal now, in increasing order: the powers (as die-level ids),
    each RUIN, and in PLACE one plan per distinct staged set :meth:`Game.turn_plans` lists."""
    if game.phase in (Phase.ROLL, Phase.OVER):
        return legal_ids(game)
    found = {
        i
        for i in legal_ids(game)
        if DECREASE <= i < REROLL + 16 or i >= RUIN  # powers and RUINS
    }
    if game.phase is Phase.PLACE:
        values = [d.value for d in game.dice]
        found.update(plan_code(game, s) for s in staged_results(game.board, values, game.required))
    return sorted(found)


def turn_decode(game: Game, action_id: int) -> list[Action]:
    """The actions a turn-level id stands for: a plan's stagings and CONFIRM (the staged dice
    taken back first, if any), else the one die-level action."""
    if action_id >= PLAN:
        return game.stage_plan(plan_placements(game, action_id))
    return [decode(game, action_id)]


# --- a game played by ids, chance as chance -------------------------------------------------


@lru_cache(maxsize=1 << 16)
def _board_total(board: Board) -> int:
    return score_board(board).total


class SeededChance:
    """What the games played by ids share at their chance nodes: the outcome a seed's stream
    brings, and an outcome drawn. A game says whether it stands at a chance node, its
    outcomes, and the stream's dice there (``_stream_values``)."""

    __slots__ = ()
    stream: DiceStream | None

    def is_chance_node(self) -> bool:
        """True when dice are to be rolled."""
        raise NotImplementedError

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcome indices of the chance node and their probabilities."""
        raise NotImplementedError

    def _stream_values(self) -> list[int]:
        raise NotImplementedError

    def stream_outcome(self) -> int:
        """The outcome index the seed brings at this chance node."""
        if self.stream is None or not self.is_chance_node():
            raise ValueError("only a seeded game at a chance node has a stream outcome")
        values = tuple(sorted(self._stream_values()))
        return next(k for k, (o, _) in enumerate(outcomes(len(values))) if o == values)

    def sample_outcome(self, rng: random.Random) -> int:
        """An outcome index drawn with its probability (the stream's, when seeded)."""
        if self.stream is not None:
            return self.stream_outcome()
        found = self.chance_outcomes()
        return rng.choices([k for k, _ in found], [p for _, p in found])[0]


class EncodedGame(SeededChance):
    """A game played by action ids, with ROLL and REROLL outcomes as chance nodes (as
    OpenSpiel plays them): a decision node takes an id, a chance node an outcome index of
    :meth:`chance_outcomes` (:func:`~.dice.outcomes` order: sorted dice values).

    With a ``seed`` the dice come from the game's stream as the server's do, and a chance
    node takes only :meth:`stream_outcome`; the log of :attr:`game` then replays on the
    server's game of that seed (:meth:`Game.replay`). Without one any outcome may be chosen.
    Play it through :meth:`apply_action`, which keeps the legal ids until the next action;
    :attr:`game`, the engine's game, is there to be read.

    >>> play = EncodedGame("nightmare", seed=1)
    >>> play.is_chance_node(), play.stream_outcome(), outcomes(4)[play.stream_outcome()][0]
    (True, 82, (2, 4, 4, 5))
    >>> play.apply_action(play.stream_outcome()); play.game.phase, play.legal_actions()[:2]
    (<Phase.PLACE: 'place'>, [17, 18])
    """

    def __init__(
        self,
        difficulty: Difficulty | str,
        seed: bytes | int | None = None,
        *,
        turn_level: bool = False,
        game: Game | None = None,
    ) -> None:
        """A new game (or ``game``, played on) with its dice from ``seed``, or chosen."""
        self.turn_level = turn_level
        self.stream = None if seed is None else DiceStream(seed)
        self.game = game if game is not None else Game.new(difficulty, seed)
        if self.stream is None:
            self.game = self.game.search_copy()
        self.pending: list[int] = []
        """The dice of a REROLL chosen and waiting for their chance outcome."""
        self._legal: list[int] | None = None  # the legal ids, until the next action

    def clone(self) -> EncodedGame:
        """An independent copy."""
        other = EncodedGame.__new__(EncodedGame)
        other.turn_level, other.stream = self.turn_level, self.stream
        other.game, other.pending = self.game.copy(), list(self.pending)
        other._legal = self._legal
        return other

    def __deepcopy__(self, memo: dict[int, object]) -> EncodedGame:
        return self.clone()

    def is_chance_node(self) -> bool:
        """True when dice are to be rolled: before a turn, or after a REROLL was chosen."""
        return bool(self.pending) or self.game.phase is Phase.ROLL

    def is_terminal(self) -> bool:
        """True when the game is over."""
        return self.game.phase is Phase.OVER

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcome indices of the chance node and their probabilities (sum 1)."""
        if not self.is_chance_node():
            return []
        return list(chance_probabilities(len(self.pending) or 4))

    def _stream_values(self) -> list[int]:
        assert self.stream is not None
        game = self.game
        if not self.pending:
            return list(self.stream.roll(game.turns))
        return [
            self.stream.value(game.turns, game.reroll_slot + k) for k in range(len(self.pending))
        ]

    def legal_actions(self) -> list[int]:
        """The legal ids at a decision node, in increasing order (none at a chance node)."""
        if self.is_chance_node() or self.is_terminal():
            return []
        if self._legal is None:
            self._legal = turn_legal_ids(self.game) if self.turn_level else legal_ids(self.game)
        return list(self._legal)

    def apply_action(self, action_id: int) -> None:
        """Apply an id at a decision node, or an outcome index at a chance node."""
        game = self.game
        legal = self.legal_actions()
        self._legal = None
        if self.is_chance_node():
            n = len(self.pending) or 4
            if type(action_id) is not int or not 0 <= action_id < len(outcomes(n)):
                raise ValueError(f"{action_id!r} is not an outcome of this chance node")
            if self.stream is not None:
                if action_id != self.stream_outcome():
                    raise ValueError("a seeded game takes the outcome its seed brings")
                values: Sequence[int] | None = None
            else:
                values = outcomes(n)[action_id][0]
            if self.pending:
                game.reroll(self.pending, values)
                self.pending = []
            else:
                game.roll(values)
            return
        if action_id not in legal:
            self._legal = legal
            raise ValueError(f"{action_id!r} is not legal now")
        if REROLL < action_id < RUIN:
            reroll = decode(game, action_id)
            assert reroll["type"] == "reroll"
            self.pending = reroll["dice"]
            return
        for action in (
            turn_decode(game, action_id) if self.turn_level else [decode(game, action_id)]
        ):
            game.apply(action)

    def observation(self) -> list[float]:
        """:func:`observation` of the position."""
        return observation(self.game, self.pending)

    def score(self) -> int:
        """The engine's score now (the final score once the game is over), a REROLL chosen
        counted as used (its penalty is due whatever its dice show)."""
        game = self.game
        used = game.powers_used + bool(self.pending)
        return _board_total(game.board) - sum(game.difficulty.penalties[:used])

    def __repr__(self) -> str:
        return f"<EncodedGame {self.game!r} pending={self.pending}>"


__all__ = [
    "CONFIRM",
    "DECREASE",
    "INCREASE",
    "MAX_CHANCE_OUTCOMES",
    "NUM_ACTIONS",
    "NUM_TURN_ACTIONS",
    "OBS_SIZE",
    "PLAN",
    "PLAN_CODES",
    "REROLL",
    "ROLL",
    "RUIN",
    "STAGE",
    "TAKE_BACK",
    "TAKE_BACK_ALL",
    "EncodedGame",
    "decode",
    "encode",
    "legal_ids",
    "legal_mask",
    "observation",
    "plan_code",
    "plan_placements",
    "text",
    "tray_order",
    "turn_decode",
    "turn_legal_ids",
]
