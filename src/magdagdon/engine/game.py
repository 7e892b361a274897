"""The game of MAGDAGDON as a state machine: turns, staging, powers, ruins, score.

>>> game = Game.new(Difficulty.NIGHTMARE, seed=1)
>>> game.phase
<Phase.ROLL: 'roll'>
>>> game.roll()
>>> game.phase, game.required, [d.value for d in game.dice]
(<Phase.PLACE: 'place'>, 3, [4, 2, 4, 5])
>>> game.stage(0, 0); game.stage(2, 1); game.stage(3, 4)
>>> game.can_confirm
True
>>> game.confirm()
>>> str(game.board), game.turns, game.phase
('44../5.../..../....', 1, <Phase.ROLL: 'roll'>)
>>> game.score().total
26
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from typing import Any, Final, cast

from . import actions
from .actions import Action
from .board import EMPTY, NEIGHBOURS, Board, bits, square_label
from .dice import DiceStream, Roll, outcomes, seed_bytes
from .placement import Placement, legal_mask, search, staged_results, with_placed
from .scoring import ScoreBreakdown, score_board

FORMAT_VERSION: Final = 1

TURN_ACTIONS: Final = 100
"""Actions a turn may take (ROLL included, :attr:`Game.turn_actions`) before only the ones
that finish it are accepted (R17).

No player needs more: a turn is at most 4 stagings, 3 powers and CONFIRM, and a bot that
tries every square in turn out of each dead end took 68 once in 360 games (else at most 50).
But staging and taking back can repeat without end. Past the bound a turn still finishes:
CONFIRM, ACCEPT MAGDAGDON and the powers are accepted, a die may be staged unless it makes
the minimum unreachable (R7), and dice may be taken back only out of such a dead end. So a
turn has at most :data:`MAX_TURN_ACTIONS` actions, and the game is finite."""

MAX_TURN_ACTIONS: Final = TURN_ACTIONS + 36
"""The most actions one turn can have under R17 (ROLL included): past :data:`TURN_ACTIONS`,
between two powers (at most 3, so 4 stretches) at most 4 dice are taken back out of a dead
end and 4 staged (none into one), then the powers and the action ending the turn: 4 * 8 + 3
+ 1 = 36 more."""

MAX_GAME_ACTIONS: Final = 16 * MAX_TURN_ACTIONS
"""The most actions a game can have: every turn fills at least one of the 16 squares."""


class Difficulty(StrEnum):
    """The difficulty: how many Majda Powers, their penalties, the dice to place."""

    PEACEFUL = "peaceful"
    SURVIVAL = "survival"
    NIGHTMARE = "nightmare"

    @property
    def minimum(self) -> int:
        """The normal minimum of dice to place per turn."""
        return 3 if self is Difficulty.NIGHTMARE else 2

    def required(self, empty: int) -> int:
        """R2: the dice a turn must place on a board with ``empty`` empty squares: the
        difficulty's minimum, or every empty square when fewer remain."""
        return min(self.minimum, empty)

    @property
    def penalties(self) -> tuple[int, ...]:
        """The penalty of each Majda Power, in order of use (R13)."""
        return POWER_PENALTIES[self]

    @property
    def powers(self) -> int:
        """How many Majda Powers a game has."""
        return len(POWER_PENALTIES[self])


POWER_PENALTIES: Final = {
    Difficulty.PEACEFUL: (10, 20, 40),
    Difficulty.SURVIVAL: (70,),
    Difficulty.NIGHTMARE: (),
}


class Phase(StrEnum):
    """Where a turn is: waiting for ROLL, placing, in MAGDAGDON, or the game is over."""

    ROLL = "roll"
    PLACE = "place"
    MAGDAGDON = "magdagdon"
    OVER = "over"


class RuleViolation(ValueError):
    """An action the rules do not allow. ``code`` is stable; ``message`` is for people;
    ``details`` what a client may need to say it in its own words (``value_too_far``: the
    neighbouring ``values`` too far from the die)."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def __repr__(self) -> str:
        return f"RuleViolation({self.code!r}, {self.message!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_violation, (self.code, self.message, self.details))


@dataclass(frozen=True)
class Die:
    """One of the turn's four dice: its value and the square it is staged on (None: tray)."""

    index: int
    value: int
    cell: int | None

    @property
    def in_tray(self) -> bool:
        """True while the die is not staged."""
        return self.cell is None


DieRef = int | Die
_POWER_PHASES: Final = (Phase.PLACE, Phase.MAGDAGDON)


class Game:
    """One game: the permanent board, the turn's dice, powers, turns and the action log.

    Every action either applies completely or raises :class:`RuleViolation`
    and changes nothing. A game is its seed plus its actions: :meth:`to_dict`
    and :meth:`from_dict` round-trip by replaying the log.

    Attributes:
        difficulty: the :class:`Difficulty` (powers, penalties, the minimum of dice).
        phase: where the turn is: a :class:`Phase` (ROLL, PLACE, MAGDAGDON or OVER).
        board: the permanent :class:`~magdagdon.engine.board.Board` (staged dice are not on
            it: see :attr:`staged_board`).
        required: the dice this turn must place (R2; 0 between turns).
        turns: turns ended so far.
        powers_used: Majda Powers used (see :attr:`powers_left`, :attr:`power_penalty`).
        actions: the action log since the game began (or since :meth:`restore` or
            :meth:`from_position`), as :mod:`~magdagdon.engine.actions` writes them.
        turn_actions: actions since this turn's ROLL (ROLL included; 0 between turns); past
            :data:`TURN_ACTIONS` only what finishes the turn is accepted (R17).

    For search, :meth:`search_copy` gives a copy without the secret dice stream: its chance
    nodes (ROLL, REROLL) take dice the searcher chooses, among :meth:`chance_outcomes`.
    (:meth:`copy` keeps the stream, so ``game.copy().roll()`` shows the real next roll: a
    search over such copies would see the future.)
    """

    def __init__(self, difficulty: Difficulty | str, seed: bytes | int | None = None) -> None:
        """A new game; prefer :meth:`new`. ``seed`` None draws a secret random seed."""
        self.difficulty = Difficulty(difficulty)
        self._stream: DiceStream | None = DiceStream(seed_bytes(seed))
        self.board = Board()
        self.phase = Phase.ROLL
        self.required = 0
        self.powers_used = 0
        self.turns = 0
        self.actions: list[Action] = []
        self.turn_actions = 0
        """Actions since this turn's ROLL (ROLL included; 0 between turns)."""
        self._values: list[int] = []
        self._cells: list[int | None] = []
        self._staged: list[int] = []  # die indices in staging order
        self._next_slot = 0

    @classmethod
    def new(cls, difficulty: Difficulty | str, seed: bytes | int | None = None) -> Game:
        """A new game of ``difficulty`` whose dice come from ``seed`` (secret random if None)."""
        return cls(difficulty, seed)

    # --- what the game looks like --------------------------------------------------------

    @property
    def seed(self) -> bytes:
        """The game's secret seed (the server reveals it only when the game is over); a
        :meth:`search_copy` has none (ValueError)."""
        return self._live_stream().seed

    @property
    def dice(self) -> tuple[Die, ...]:
        """The turn's four dice (empty before ROLL and after the turn ends)."""
        return tuple(
            Die(i, v, c) for i, (v, c) in enumerate(zip(self._values, self._cells, strict=True))
        )

    @property
    def reroll_slot(self) -> int:
        """The slot of the dice stream the next REROLL's first die takes in this turn (R14:
        the ROLL takes slots 0-3, each REROLL the next fresh ones)."""
        return self._next_slot

    @property
    def staged(self) -> tuple[int, ...]:
        """Indices of the staged dice, in staging order."""
        return tuple(self._staged)

    @property
    def powers_left(self) -> int:
        """Majda Powers still available."""
        return self.difficulty.powers - self.powers_used

    @property
    def power_penalty(self) -> int:
        """The points the powers used so far cost (R13)."""
        return sum(self.difficulty.penalties[: self.powers_used])

    @property
    def next_power_cost(self) -> int | None:
        """What the next Majda Power would cost, or None when none is left."""
        pens = self.difficulty.penalties
        return pens[self.powers_used] if self.powers_used < len(pens) else None

    @property
    def can_confirm(self) -> bool:
        """True when CONFIRM is allowed now (R10)."""
        return self.phase is Phase.PLACE and len(self._staged) >= self.required

    @property
    def is_over(self) -> bool:
        """True when every square holds a number or a RUIN."""
        return self.phase is Phase.OVER

    @property
    def staged_board(self) -> Board:
        """The permanent board with the staged dice on it (what the player sees)."""
        return self.board.with_numbers((self._values[i], self._sq(i)) for i in self._staged)

    @property
    def dead_end(self) -> bool:
        """True when the staged dice make the minimum unreachable though the roll allows it (R7)."""
        missing = self.required - len(self._staged)
        if self.phase is not Phase.PLACE or missing <= 0:
            return False
        empty, numbers, vm = self._position()
        tray = tuple(sorted(v for v, c in zip(self._values, self._cells, strict=True) if c is None))
        return search(empty, numbers, vm, tray, missing) is None

    def legal_cells(self, die: DieRef) -> frozenset[int]:
        """Where that tray die may be staged now (empty when it is staged or not placing)."""
        i = self._die_index(die)
        if self.phase is not Phase.PLACE or self._cells[i] is not None:
            return frozenset()
        empty, numbers, vm = self._position()
        return frozenset(bits(legal_mask(empty, numbers, vm, self._values[i])))

    def can_adjust(self, die: DieRef, delta: int) -> bool:
        """Whether DECREASE/INCREASE of that die is allowed now (a power left, tray die, 1–6)."""
        i = self._die_index(die)
        return (
            self.phase in _POWER_PHASES
            and self.powers_left > 0
            and self._cells[i] is None
            and delta in (1, -1)
            and 1 <= self._values[i] + delta <= 6
        )

    @property
    def ruin_choices(self) -> list[int]:
        """In MAGDAGDON: the squares ACCEPT MAGDAGDON may turn into a RUIN (R9: every empty
        square, one under a staged die too); none otherwise."""
        return self.board.empty_squares if self.phase is Phase.MAGDAGDON else []

    def rescuing_adjustments(self) -> list[tuple[int, int]]:
        """In MAGDAGDON: the (die, delta) power uses that would make the roll placeable (R5).

        A REROLL may rescue too, but by chance; this lists only the certain rescues.
        """
        if self.phase is not Phase.MAGDAGDON or self.powers_left <= 0:
            return []
        board = self.board
        found = []
        for i, value in enumerate(self._values):
            for delta in (-1, 1):
                if not self.can_adjust(i, delta):
                    continue
                values = list(self._values)
                values[i] = value + delta
                dice = tuple(sorted(values))
                if search(board.empty, board.numbers, board.value_masks, dice, self.required):
                    found.append((i, delta))
        return found

    def score(self, *, include_staged: bool = False) -> ScoreBreakdown:
        """The score with ruin and power penalties; the final score once the game is over.

        ``include_staged`` scores the staged dice too (the live sums a player sees).
        """
        board = self.staged_board if include_staged and self._staged else self.board
        return score_board(board).with_power_penalty(self.power_penalty)

    # --- actions --------------------------------------------------------------------------

    def roll(self, values: Sequence[int] | None = None) -> None:
        """ROLL: four new dice; the turn enters PLACE or MAGDAGDON (R2, R5).

        ``values``: on a :meth:`search_copy` only, the four dice to roll (one of
        :meth:`chance_outcomes`); a game with its dice stream rolls the stream's.
        """
        self._expect(Phase.ROLL)
        if values is None:
            rolled = list(self._live_stream().roll(self.turns))
        else:
            rolled = self._chosen(values, 4)
        self._deal(rolled)
        self._log(actions.roll())

    def _deal(self, values: list[int]) -> None:
        """Four dice in the tray: the turn enters PLACE or MAGDAGDON (R2, R5)."""
        self._values = values
        self._cells = [None, None, None, None]
        self._staged = []
        self._next_slot = 4
        self.required = self.difficulty.required(self.board.empty_count)
        self._evaluate()

    def stage(self, die: DieRef, cell: int) -> None:
        """Stage a tray die on a square (legality per R3/R4, staged dice counting)."""
        self._expect(Phase.PLACE)
        i = self._tray_die(die)
        sq = self._square(cell)
        problem = self._stage_problem(i, sq, self._position())
        if problem is not None:
            raise problem
        self._cells[i] = sq
        self._staged.append(i)
        self._log(actions.stage(i, sq))

    def why_not(self, die: DieRef, cell: int) -> RuleViolation | None:
        """Why that tray die may not be staged on ``cell`` now (the :class:`RuleViolation`
        :meth:`stage` would raise), or None when it may. Changes nothing.

        >>> game = Game.from_position("peaceful", "5.../..../..../....", (2, 3, 4, 6))
        >>> game.why_not(0, 1).details, game.why_not(0, 5).code, game.why_not(2, 1)
        ({'values': [5]}, 'not_adjacent', None)
        """
        self._expect(Phase.PLACE)
        return self._stage_problem(self._tray_die(die), self._square(cell), self._position())

    def blocked(self, die: DieRef) -> dict[int, RuleViolation]:
        """Every square that tray die may not be staged on now, with why (:meth:`why_not` of
        each square, the position worked out once).

        >>> game = Game.from_position("peaceful", "5.../..../..../....", (2, 3, 4, 6))
        >>> sorted(game.blocked(2))[:3], game.blocked(2)[0].code
        ([0, 2, 3], 'cell_occupied')
        """
        self._expect(Phase.PLACE)
        i, position = self._tray_die(die), self._position()
        found = {sq: self._stage_problem(i, sq, position) for sq in range(16)}
        return {sq: problem for sq, problem in found.items() if problem is not None}

    def _stage_problem(
        self, i: int, sq: int, position: tuple[int, int, list[int]]
    ) -> RuleViolation | None:
        empty, numbers, vm = position  # staged dice count as numbers (see _position)
        if not empty >> sq & 1:
            return RuleViolation("cell_occupied", f"{square_label(sq).capitalize()} is taken.")
        value = self._values[i]
        if legal_mask(empty, numbers, vm, value) >> sq & 1:
            return None
        if not NEIGHBOURS[sq] & numbers:
            return RuleViolation(
                "not_adjacent",
                f"A {value} on {square_label(sq)} would not touch any number "
                "(up, down, left or right).",
            )
        near = [self._number_at(n, vm) for n in bits(NEIGHBOURS[sq] & numbers)]
        far = sorted({n for n in near if abs(n - value) > 1})
        return RuleViolation(
            "value_too_far",
            f"A {value} on {square_label(sq)} would touch "
            f"{' and '.join(map(str, far))}: neighbours may differ by at most 1.",
            values=far,
        )

    def unstage(self, die: DieRef) -> None:
        """Take a staged die back; later dice that are no longer legal come back too (R6)."""
        self._expect(*_POWER_PHASES)
        i = self._die_index(die)
        if self._cells[i] is None:
            raise RuleViolation("die_not_staged", f"Die {i} is not on the board.")
        self._cells[i] = None
        kept: list[int] = []
        board = self.board
        empty, numbers, vm = board.empty, board.numbers, list(board.value_masks)
        for j in self._staged:
            if j == i:
                continue
            placed = (self._values[j], self._sq(j))
            if legal_mask(empty, numbers, vm, placed[0]) >> placed[1] & 1:
                kept.append(j)
                empty, numbers, vm = with_placed(empty, numbers, vm, [placed])
            else:
                self._cells[j] = None
        self._staged = kept
        self._log(actions.unstage(i))

    def unstage_all(self) -> None:
        """TAKE BACK ALL: every staged die returns to the tray."""
        self._expect(*_POWER_PHASES)
        if not self._staged:
            raise RuleViolation("nothing_staged", "No die is on the board to take back.")
        self._take_back_all()
        self._log(actions.unstage_all())

    def confirm(self) -> None:
        """CONFIRM: the staged dice become permanent, unused dice are discarded (R10)."""
        self._expect(Phase.PLACE)
        if len(self._staged) < self.required:
            raise RuleViolation(
                "below_minimum",
                f"Place at least {self.required} dice before confirming "
                f"({len(self._staged)} placed).",
            )
        self.board = self.staged_board
        self._log(actions.confirm())
        self._end_turn()

    def adjust(self, die: DieRef, delta: int) -> None:
        """Majda Power DECREASE −1 / INCREASE +1 on a tray die (values stay 1–6)."""
        self._expect(*_POWER_PHASES)
        self._check_power()
        i = self._tray_die(die)
        if type(delta) is not int or delta not in (1, -1):
            raise RuleViolation("bad_delta", "A die can be changed by +1 or −1 only.")
        value = self._values[i] + delta
        if not 1 <= value <= 6:
            raise RuleViolation(
                "value_out_of_range",
                f"Die {i} shows {self._values[i]}: it cannot go to {value}.",
            )
        self._values[i] = value
        self._use_power()
        self._log(actions.adjust(i, delta))

    def reroll(self, dice: Iterable[DieRef], values: Sequence[int] | None = None) -> None:
        """Majda Power REROLL: the chosen tray dice are rolled again together (one use).

        ``values``: on a :meth:`search_copy` only, what the chosen dice show after it, in
        the order of their indices (one of :meth:`chance_outcomes` of the reroll).
        """
        self._expect(*_POWER_PHASES)
        self._check_power()
        chosen = [self._tray_die(d) for d in dice]
        if not chosen:
            raise RuleViolation("empty_selection", "Choose at least one die to reroll.")
        if len(set(chosen)) != len(chosen):
            raise RuleViolation("duplicate_die", "Each die can be chosen only once.")
        chosen.sort()
        if values is None:
            stream = self._live_stream()
            new = [stream.value(self.turns, self._next_slot + k) for k in range(len(chosen))]
        else:
            new = self._chosen(values, len(chosen))
        for i, value in zip(chosen, new, strict=True):
            self._values[i] = value
            self._next_slot += 1
        self._use_power()
        self._log(actions.reroll(chosen))

    def accept_magdagdon(self, cell: int) -> None:
        """Accept MAGDAGDON: an empty square becomes a RUIN and the turn ends (R9)."""
        self._expect(Phase.MAGDAGDON)
        sq = self._square(cell)
        if self.board[sq] != EMPTY:
            raise RuleViolation(
                "cell_occupied",
                f"{square_label(sq).capitalize()} is not empty: choose an empty one.",
            )
        self._take_back_all()
        self.board = self.board.with_ruin(sq)
        self._log(actions.accept_magdagdon(sq))
        self._end_turn()

    def apply(self, action: Action) -> None:
        """Apply one action as the log and the HTTP API write it (:mod:`.actions`; the actions
        of docs/design.md):

        - ``{"type": "roll"}``: :meth:`roll`;
        - ``{"type": "stage", "die": 0-3, "cell": 0-15}``: :meth:`stage`;
        - ``{"type": "unstage", "die": 0-3}``: :meth:`unstage`;
        - ``{"type": "unstage_all"}``: :meth:`unstage_all`;
        - ``{"type": "confirm"}``: :meth:`confirm`;
        - ``{"type": "adjust", "die": 0-3, "delta": -1 or 1}``: :meth:`adjust`;
        - ``{"type": "reroll", "dice": [0-3, ...]}``: :meth:`reroll`;
        - ``{"type": "accept_magdagdon", "cell": 0-15}``: :meth:`accept_magdagdon`.

        The action may come from anywhere (JSON a client sent, cast to :data:`Action`): its
        shape is checked too, and anything else raises ``RuleViolation("bad_action")``.
        """
        if not isinstance(action, dict):
            raise RuleViolation("bad_action", "An action is a JSON object with a 'type'.")
        data: dict[str, Any] = dict(action)
        kind = data.get("type")
        if not isinstance(kind, str) or kind not in _RUN:
            raise RuleViolation(
                "bad_action",
                f"Unknown action type {kind!r}; expected one of {', '.join(_RUN)}.",
            )
        names = [name for name, _ in _FIELDS[kind]]
        extra = set(data) - {"type", *names}
        if extra:
            raise RuleViolation(
                "bad_action", f"Action {kind!r} does not take {', '.join(sorted(extra))}."
            )
        for name in names:
            if name not in data:
                raise RuleViolation("bad_action", f"Action {kind!r} needs {name!r}.")
        values = _values(data, kind)
        if self.turn_actions >= TURN_ACTIONS:
            problem = self._past_bound(kind, values)
            if problem is not None:
                raise problem
        _RUN[kind](self, *values)

    def bound_violation(self, action: Action) -> RuleViolation | None:
        """The ``turn_action_limit`` :class:`RuleViolation` that R17 makes of ``action`` now
        (the turn has had :data:`TURN_ACTIONS` actions and ``action`` does not help finish
        it), else None; :meth:`apply` raises it. A staging that breaks another rule raises
        that rule's violation instead (it is refused for what it is). Changes nothing.

        >>> game = Game.from_position("peaceful", "3.../..../..../....", (3, 4, 5, 6))
        >>> game.stage(0, 1); game.turn_actions = TURN_ACTIONS
        >>> game.bound_violation(actions.unstage_all()).code
        'turn_action_limit'
        >>> game.bound_violation(actions.stage(1, 2)) is None
        True
        """
        if self.turn_actions < TURN_ACTIONS:
            return None
        kind = action["type"]
        return self._past_bound(kind, _values(dict(action), kind))

    def _past_bound(self, kind: str, values: list[Any]) -> RuleViolation | None:
        """R17 for an action of ``kind`` with its field ``values`` on a turn past the bound."""
        if kind in _FINISHING or (kind in ("unstage", "unstage_all") and self.dead_end):
            return None
        if kind == "stage":
            trial = self.copy()
            trial.stage(*values)  # an illegal staging is refused for what it is
            if not trial.dead_end:
                return None
        return RuleViolation(
            "turn_action_limit",
            f"This turn has had {self.turn_actions} moves: place the dice and CONFIRM "
            "(or accept MAGDAGDON). Taking dice back is now allowed only out of a dead end.",
        )

    # --- (de)serialisation ---------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The game's visible state as JSON (no seed)."""
        return {
            "phase": self.phase.value,
            "board": str(self.board),
            "dice": [
                {"value": v, "cell": c} for v, c in zip(self._values, self._cells, strict=True)
            ],
            "staged": list(self._staged),
            "required": self.required,
            "powers_used": self.powers_used,
            "turns": self.turns,
        }

    def to_dict(self) -> dict[str, Any]:
        """Everything needed to restore the game: difficulty, seed, actions, and the state."""
        return {
            "format": FORMAT_VERSION,
            "difficulty": self.difficulty.value,
            "seed": self.seed.hex(),
            "actions": [dict(a) for a in self.actions],
            "state": self.state(),
        }

    def snapshot(self) -> dict[str, Any]:
        """What :meth:`restore` needs to continue the game without replaying its log: the
        visible :meth:`state`, the next reroll slot and the actions of the turn (no seed, no
        log). A store keeps it beside the log so that loading a game costs the same however
        long its history is."""
        return {**self.state(), "next_slot": self._next_slot, "turn_actions": self.turn_actions}

    @classmethod
    def restore(
        cls, difficulty: Difficulty | str, seed: bytes | int, snapshot: dict[str, Any]
    ) -> Game:
        """The game a :meth:`snapshot` was taken of, with an empty action log (the actions
        it then takes are logged as usual). The snapshot is checked for shape and for
        consistency (ValueError if it is not one); it is trusted to be a position play
        reached, as a store that wrote it knows."""
        game = cls(difficulty, seed)
        try:
            phase = Phase(snapshot["phase"])
            board = Board.parse(snapshot["board"])
            dice = snapshot["dice"]
            values = [int(d["value"]) for d in dice]
            cells = [None if d["cell"] is None else int(d["cell"]) for d in dice]
            staged = [int(i) for i in snapshot["staged"]]
            required = int(snapshot["required"])
            powers_used = int(snapshot["powers_used"])
            turns = int(snapshot["turns"])
            next_slot = int(snapshot["next_slot"])
            turn_actions = int(snapshot["turn_actions"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a game snapshot: {exc!r}") from exc
        live = phase in _POWER_PHASES
        checks: list[tuple[str, Callable[[], bool]]] = [
            ("four dice while placing, none otherwise", lambda: len(values) == 4 * live),
            ("die values 1-6", lambda: all(1 <= v <= 6 for v in values)),
            ("squares 0-15", lambda: all(c is None or 0 <= c < 16 for c in cells)),
            (
                "staged dice",
                lambda: sorted(staged) == [i for i, c in enumerate(cells) if c is not None],
            ),
            ("one die per square", lambda: len({cells[i] for i in staged}) == len(staged)),
            ("staged on empty squares", lambda: all(board[cells[i] or 0] == EMPTY for i in staged)),
            ("powers used", lambda: 0 <= powers_used <= game.difficulty.powers),
            ("the required dice", lambda: 0 <= required <= 3 and (required > 0) == live),
            ("a full board exactly when over", lambda: (phase is Phase.OVER) == (board.empty == 0)),
            ("counters", lambda: turns >= 0 and turn_actions >= 0 and next_slot >= 4 * live),
        ]
        for what, holds in checks:
            if not holds():
                raise ValueError(f"not a consistent game snapshot: {what}")
        game.phase, game.board, game.required = phase, board, required
        game.powers_used, game.turns, game.turn_actions = powers_used, turns, turn_actions
        game._values, game._cells, game._staged = values, cells, staged
        game._next_slot = next_slot
        return game

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        """Restore a game by replaying its actions; the stored state, if any, must agree."""
        try:
            if data.get("format", FORMAT_VERSION) != FORMAT_VERSION:
                raise ValueError(f"unknown game format {data.get('format')!r}")
            game = cls.replay(data["difficulty"], bytes.fromhex(data["seed"]), data["actions"])
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a stored game: {exc!r}") from exc
        if "state" in data and data["state"] != game.state():
            raise ValueError("the stored state does not match the replayed actions")
        return game

    @classmethod
    def replay(
        cls,
        difficulty: Difficulty | str,
        seed: bytes | int | str,
        actions: Sequence[Mapping[str, Any]],
    ) -> Game:
        """The game reached from ``seed`` by ``actions``; raises ValueError if one is illegal.

        ``seed`` may also be the hexadecimal string a finished game's replay
        (``GET /api/games/{id}/replay``) gives:

        >>> game = Game.new(Difficulty.PEACEFUL, seed=7)
        >>> game.roll()
        >>> Game.replay("peaceful", game.seed.hex(), game.actions).dice == game.dice
        True
        >>> Game.replay("peaceful", "not hex", [])
        Traceback (most recent call last):
        ...
        ValueError: a seed string must be hexadecimal, as a replay gives it: 'not hex'
        """
        if isinstance(seed, str):
            text = seed
            try:
                seed = bytes.fromhex(text)
            except ValueError:
                shown = text if len(text) <= 80 else text[:80] + "…"
                raise ValueError(
                    f"a seed string must be hexadecimal, as a replay gives it: {shown!r}"
                ) from None
        game = cls(difficulty, seed)
        for n, action in enumerate(actions):
            try:
                game.apply(cast(Action, action))
            except RuleViolation as exc:
                raise ValueError(f"action {n} {action!r} is illegal: {exc.message}") from exc
        return game

    def copy(self) -> Game:
        """An independent copy of the game, its dice stream included: its ROLL and REROLL
        bring what the real game's would (use :meth:`search_copy` to search without knowing
        them)."""
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other.actions = list(self.actions)
        other._values = list(self._values)
        other._cells = list(self._cells)
        other._staged = list(self._staged)
        return other

    def search_copy(self) -> Game:
        """A copy for search that knows only what a player knows: without the secret dice
        stream, so its ROLL and REROLL take the dice the searcher chooses (``roll(values)``,
        ``reroll(dice, values)``, among :meth:`chance_outcomes`) and it has no seed.

        >>> game = Game.new("peaceful", seed=1)
        >>> search = game.search_copy()
        >>> search.roll()
        Traceback (most recent call last):
        ...
        magdagdon.engine.game.RuleViolation: A search copy has no dice stream: choose the dice.
        >>> search.roll((1, 2, 3, 4)); [d.value for d in search.dice]
        [1, 2, 3, 4]
        """
        other = self.copy()
        other._stream = None
        return other

    def chance_outcomes(self, dice: Iterable[DieRef] | None = None) -> list[tuple[Roll, float]]:
        """The distinct results of the chance node ahead, with their probabilities (they sum
        to 1), as in OpenSpiel: before ROLL (``dice`` None) the 126 distinct rolls of four
        dice; for a REROLL of ``dice``, what those dice may show. Each result is sorted;
        pass one to ``roll(values)`` or ``reroll(dice, values)`` of a :meth:`search_copy`.

        >>> game = Game.new("nightmare", seed=1)
        >>> len(game.chance_outcomes()), game.chance_outcomes()[0]
        (126, ((1, 1, 1, 1), 0.0007716049382716049))
        """
        if dice is None:
            self._expect(Phase.ROLL)
            return list(outcomes(4))
        self._expect(*_POWER_PHASES)
        chosen = {self._tray_die(d) for d in dice}
        if not chosen:
            raise RuleViolation("empty_selection", "Choose at least one die to reroll.")
        return list(outcomes(len(chosen)))

    def position_key(self) -> tuple[object, ...]:
        """A hashable key of everything the rules see now, for transposition tables: the
        difficulty, the board, the phase, each die's value and square, the staging order,
        the powers used and the required dice. Positions with the same key play alike,
        whatever led to them (the turn number and the dice still to come are not in it).

        >>> a, b = Game.new("peaceful", seed=1), Game.new("peaceful", seed=2)
        >>> a.position_key() == b.position_key()
        True
        """
        return (
            self.difficulty.value,
            self.board.cells,
            self.phase.value,
            tuple(self._values),
            tuple(self._cells),
            tuple(self._staged),
            self.powers_used,
            self.required,
        )

    def legal_actions(self) -> list[Action]:
        """Every action that :meth:`apply` accepts now, dice by index (OpenSpiel's legal
        actions): ROLL; each tray die on each legal square; each staged die taken back, and
        all of them; CONFIRM; each ±1 a power allows; each REROLL of a set of tray dice;
        each RUIN square. Staging into a dead end (R7) is legal, and listed; past
        :data:`TURN_ACTIONS` only what R17 accepts is.

        >>> game = Game.new("nightmare", seed=1)
        >>> game.legal_actions()
        [{'type': 'roll'}]
        >>> game.roll(); len(game.legal_actions())
        64
        """
        if self.phase is Phase.ROLL:
            return [actions.roll()]
        if self.phase is Phase.OVER:
            return []
        found: list[Action] = []
        tray = [i for i, c in enumerate(self._cells) if c is None]
        if self.phase is Phase.PLACE:
            for i in tray:
                found.extend(actions.stage(i, sq) for sq in sorted(self.legal_cells(i)))
        found.extend(actions.unstage(i) for i in sorted(self._staged))
        if self._staged:
            found.append(actions.unstage_all())
        if self.can_confirm:
            found.append(actions.confirm())
        if self.powers_left > 0:
            for i in tray:
                found.extend(actions.adjust(i, d) for d in (-1, 1) if self.can_adjust(i, d))
            for k in range(1, len(tray) + 1):
                found.extend(actions.reroll(c) for c in combinations(tray, k))
        found.extend(actions.accept_magdagdon(sq) for sq in self.ruin_choices)
        if self.turn_actions >= TURN_ACTIONS:  # R17
            found = [a for a in found if self.bound_violation(a) is None]
        return found

    def turn_plans(self) -> list[list[Action]]:
        """In PLACE, every way to end the turn with a CONFIRM, one per distinct staged result
        of at least :attr:`required` dice (:func:`~.placement.staged_results`), each as the
        actions to apply: the staged dice taken back first if there are any, the stagings,
        CONFIRM. (Powers and MAGDAGDON are in :meth:`legal_actions`.)

        >>> game = Game.new("nightmare", seed=1); game.roll()
        >>> plans = game.turn_plans(); len(plans), plans[0][-1]
        (156, {'type': 'confirm'})
        """
        if self.phase is not Phase.PLACE:
            return []
        values = list(self._values)
        return [
            self.stage_plan(order) for order in staged_results(self.board, values, self.required)
        ]

    def stage_plan(self, order: Sequence[Placement]) -> list[Action]:
        """The actions that stage ``order`` ((value, square) pairs, in a legal order) with
        the turn's dice and CONFIRM. Staged dice that are part of ``order`` stay where they
        are and the rest follow in ``order``'s order, when that is legal (the first die of an
        empty board may not touch them); otherwise the staged dice are taken back first.

        >>> game = Game.from_position("peaceful", "..../.3../..../....", (2, 3, 4, 6))
        >>> game.stage(2, 6)
        >>> game.stage_plan([(4, 6), (3, 7)])
        [{'type': 'stage', 'die': 1, 'cell': 7}, {'type': 'confirm'}]
        """
        staged = {(self._values[i], self._sq(i)) for i in self._staged}
        if staged and staged <= set(order):
            kept = self._plan([p for p in order if p not in staged], tray_only=True)
            trial = self.copy()
            try:
                for action in kept:
                    trial.apply(action)
            except RuleViolation:
                pass
            else:
                return kept
        return ([actions.unstage_all()] if staged else []) + self._plan(order, tray_only=False)

    def _plan(self, order: Sequence[Placement], *, tray_only: bool) -> list[Action]:
        free = [i for i in range(len(self._values)) if not tray_only or self._cells[i] is None]
        plan: list[Action] = []
        for value, square in order:
            die = next((i for i in free if self._values[i] == value), None)
            if die is None:
                raise ValueError(f"no die of the turn shows {value} for {order!r}")
            free.remove(die)
            plan.append(actions.stage(die, square))
        plan.append(actions.confirm())
        return plan

    @classmethod
    def from_position(
        cls,
        difficulty: Difficulty | str,
        board: Board | str,
        dice: Sequence[int] | None = None,
        *,
        powers_used: int = 0,
        turns: int = 0,
        seed: bytes | int | None = None,
    ) -> Game:
        """A game set up at a position, for analysis, puzzles, tests and the coach: the
        permanent ``board`` (a :class:`~.board.Board` or its notation), the ``dice`` just
        rolled (four values; None: waiting for ROLL), the powers used and the turns ended.
        It is checked as play checks it (ValueError): a board of legal notation, dice 1-6,
        powers the difficulty has, no dice on a full board. The rolled dice put the turn in
        PLACE or MAGDAGDON as a ROLL would (R2, R5). Later rolls come from ``seed`` (secret
        random if None) at turn ``turns``; the action log starts empty, so such a game
        cannot be replayed or reviewed from its seed.

        >>> game = Game.from_position("peaceful", "12../.3../..../....", (2, 3, 4, 6))
        >>> game.phase, game.required, game.powers_left
        (<Phase.PLACE: 'place'>, 2, 3)
        """
        game = cls(difficulty, seed)
        parsed = board if isinstance(board, Board) else Board.parse(board)
        if type(powers_used) is not int or not 0 <= powers_used <= game.difficulty.powers:
            raise ValueError(
                f"{game.difficulty.name} has {game.difficulty.powers} powers, "
                f"not {powers_used!r} used"
            )
        if type(turns) is not int or turns < 0:
            raise ValueError(f"turns must be a whole number of at least 0, got {turns!r}")
        game.board, game.powers_used, game.turns = parsed, powers_used, turns
        if parsed.empty == 0:
            if dice is not None:
                raise ValueError("the board is full: the game is over, there are no dice")
            game.phase = Phase.OVER
        elif dice is not None:
            values = list(dice)
            if len(values) != 4 or any(type(v) is not int or not 1 <= v <= 6 for v in values):
                raise ValueError(f"a roll is four dice of 1-6, got {values!r}")
            game._deal(values)
            game.turn_actions = 1  # rolled, though no ROLL is in its (empty) log
        return game

    def __repr__(self) -> str:
        return (
            f"<Game {self.difficulty.value} turn={self.turns} phase={self.phase.value} "
            f"board={self.board}>"
        )

    # --- internals -------------------------------------------------------------------------

    def _live_stream(self) -> DiceStream:
        if self._stream is None:
            raise RuleViolation(
                "no_dice_stream",
                "A search copy has no dice stream: choose the dice.",
            )
        return self._stream

    def _chosen(self, values: Sequence[int], count: int) -> list[int]:
        """Dice the searcher chose for a chance node of a search copy, checked."""
        if self._stream is not None:
            raise ValueError(
                "dice can be chosen on a search copy only (Game.search_copy): a game is its "
                "seed plus its actions"
            )
        chosen = list(values)
        if len(chosen) != count or any(type(v) is not int or not 1 <= v <= 6 for v in chosen):
            raise ValueError(f"{count} dice of 1-6 are needed, got {chosen!r}")
        return chosen

    def _expect(self, *phases: Phase) -> None:
        if self.phase in phases:
            return
        if self.phase is Phase.OVER:
            raise RuleViolation("game_over", "The game is over: start a new game.")
        wanted = {
            Phase.ROLL: "before ROLL",
            Phase.PLACE: "while placing dice",
            Phase.MAGDAGDON: "in MAGDAGDON",
        }
        raise RuleViolation(
            "wrong_phase",
            f"Not possible now (the turn is {_PHASE_WORDS[self.phase]}); "
            f"only {' or '.join(wanted[p] for p in phases)}.",
        )

    def _die_index(self, die: DieRef) -> int:
        index = die.index if isinstance(die, Die) else die
        if type(index) is not int or not 0 <= index < len(self._values):
            if not self._values:
                raise RuleViolation("no_dice", "There are no dice: ROLL first.")
            raise RuleViolation("no_such_die", f"There is no die {index!r} (dice are 0-3).")
        return index

    def _tray_die(self, die: DieRef) -> int:
        i = self._die_index(die)
        if self._cells[i] is not None:
            raise RuleViolation("die_staged", f"Die {i} is on the board: take it back first.")
        return i

    @staticmethod
    def _square(cell: int) -> int:
        if type(cell) is not int or not 0 <= cell < 16:
            raise RuleViolation("no_such_cell", f"There is no square {cell!r} (squares are 0-15).")
        return cell

    def _sq(self, i: int) -> int:
        sq = self._cells[i]
        assert sq is not None
        return sq

    @staticmethod
    def _number_at(sq: int, vm: Sequence[int]) -> int:
        return next(v for v in range(1, 7) if vm[v] >> sq & 1)

    def _position(self) -> tuple[int, int, list[int]]:
        """Masks of the permanent board with the staged dice counted as numbers."""
        staged = ((self._values[i], self._sq(i)) for i in self._staged)
        return with_placed(self.board.empty, self.board.numbers, self.board.value_masks, staged)

    def _evaluate(self) -> None:
        """R5: MAGDAGDON exactly when no legal set of `required` of the four dice exists."""
        board = self.board
        found = search(
            board.empty,
            board.numbers,
            board.value_masks,
            tuple(sorted(self._values)),
            self.required,
        )
        self.phase = Phase.PLACE if found is not None else Phase.MAGDAGDON

    def _check_power(self) -> None:
        if self.powers_left <= 0:
            if self.difficulty is Difficulty.NIGHTMARE:
                raise RuleViolation("no_powers_left", "NIGHTMARE has no Majda Powers.")
            raise RuleViolation("no_powers_left", "No Majda Power is left in this game.")

    def _use_power(self) -> None:
        self.powers_used += 1
        self._evaluate()

    def _take_back_all(self) -> None:
        for i in self._staged:
            self._cells[i] = None
        self._staged = []

    def _log(self, action: Action) -> None:
        self.actions.append(action)
        self.turn_actions = 1 if action["type"] == "roll" else self.turn_actions + 1

    def _end_turn(self) -> None:
        self.turn_actions = 0
        self.turns += 1
        self._values = []
        self._cells = []
        self._staged = []
        self.required = 0
        self.phase = Phase.OVER if self.board.empty == 0 else Phase.ROLL


_PHASE_WORDS: Final = {
    Phase.ROLL: "waiting for ROLL",
    Phase.PLACE: "placing dice",
    Phase.MAGDAGDON: "in MAGDAGDON",
    Phase.OVER: "over",
}


def _values(action: dict[str, Any], kind: str) -> list[Any]:
    """The fields of a JSON action of ``kind`` in order, each checked for its type."""
    values = []
    for name, hint in _FIELDS[kind]:
        value = action[name]
        if hint is int:
            if type(value) is not int:
                raise RuleViolation(
                    "bad_action", f"{name!r} must be a whole number, got {value!r}."
                )
        elif not isinstance(value, list) or any(type(v) is not int for v in value):
            raise RuleViolation(
                "bad_action", f"{name!r} must be a list of die numbers, got {value!r}."
            )
        values.append(value)
    return values


_FIELDS: Final = {kind: actions.fields(kind) for kind in actions.ACTION_TYPES}
_FINISHING: Final = actions.TURN_ENDING | actions.POWERS
_RUN: Final[dict[str, Callable[..., None]]] = {
    "roll": Game.roll,
    "stage": Game.stage,
    "unstage": Game.unstage,
    "unstage_all": Game.unstage_all,
    "confirm": Game.confirm,
    "adjust": Game.adjust,
    "reroll": Game.reroll,
    "accept_magdagdon": Game.accept_magdagdon,
}
assert _RUN.keys() == actions.ACTION_TYPES.keys()


def _violation(code: str, message: str, details: dict[str, Any]) -> RuleViolation:
    """A RuleViolation from its pickled parts."""
    return RuleViolation(code, message, **details)


__all__ = [
    "MAX_GAME_ACTIONS",
    "MAX_TURN_ACTIONS",
    "TURN_ACTIONS",
    "Die",
    "Difficulty",
    "Game",
    "Phase",
    "RuleViolation",
]
