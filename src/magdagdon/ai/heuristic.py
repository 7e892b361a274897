"""A one-move heuristic player: the placement whose resulting board (afterstate) looks best.

The value of a board is its score now plus what its unfinished lines can still become, less
what squares that can no longer be filled will cost, plus a little for room to place future
dice. Weights are hand-set for now; the strong player will fit them from self-play.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import Action, Board, Game, Phase, actions, score_board, staged_results
from ..engine.board import EMPTY, RUIN, bits, neighbours
from ..engine.placement import allowed_values
from ..engine.scoring import BONUS_PATTERNS, BONUS_POINTS, LINES, RUIN_PENALTY, Bonus
from .players import staging_actions

STRAIGHTS = BONUS_PATTERNS[Bonus.STRAIGHT]


@dataclass(frozen=True)
class Weights:
    """How much each feature of a board is worth."""

    straight: float = 0.45
    four: float = 0.35
    two_pairs: float = 0.30
    dead_square: float = 1.0
    room: float = 0.6


def _line_potential(
    board: Board, line: tuple[int, ...], allowed: dict[int, frozenset[int]], w: Weights
) -> float:
    cells = [board[sq] for sq in line]
    if RUIN in cells or EMPTY not in cells:
        return 0.0
    open_squares = [sq for sq in line if board[sq] == EMPTY]
    # the fewer squares still to fill, the likelier the bonus
    chance = {1: 0.55, 2: 0.3, 3: 0.15, 4: 0.08}[len(open_squares)]

    def fits(pattern: tuple[int, ...]) -> bool:
        return all(
            (cells[i] == pattern[i]) if cells[i] != EMPTY else pattern[i] in allowed[line[i]]
            for i in range(4)
        )

    best = 0.0
    if any(fits(p) for p in STRAIGHTS):
        best = max(best, BONUS_POINTS[Bonus.STRAIGHT] * w.straight)
    numbers = [v for v in cells if v != EMPTY]
    if len(set(numbers)) <= 1 and any(
        fits((v, v, v, v)) for v in ({numbers[0]} if numbers else range(1, 7))
    ):
        best = max(best, BONUS_POINTS[Bonus.FOUR] * w.four)
    counts = {v: numbers.count(v) for v in set(numbers)}
    if len(counts) <= 2 and all(c <= 2 for c in counts.values()):
        best = max(best, BONUS_POINTS[Bonus.TWO_PAIRS] * w.two_pairs)
    return best * chance / 0.55


def board_value(board: Board, w: Weights = Weights()) -> float:
    """The heuristic value of a board (its score plus prospects)."""
    value = float(score_board(board).total)
    if board.empty == 0:
        return value
    allowed = {sq: allowed_values(board, sq) for sq in bits(board.empty)}
    dead = sum(1 for values in allowed.values() if not values)
    value -= dead * RUIN_PENALTY * w.dead_square
    value += sum(_line_potential(board, line, allowed, w) for line in LINES)
    if board.numbers:
        frontier = board.empty & neighbours(board.numbers)
        value += w.room * sum(len(allowed[sq]) for sq in bits(frontier)) / 2
    return value


class HeuristicPlayer:
    """Picks the staged result (or RUIN square) with the best afterstate value; uses a power
    in MAGDAGDON when a certain rescue is worth more than its cost."""

    name = "heuristic"

    def __init__(self, weights: Weights = Weights()) -> None:
        """A player valuing boards with ``weights``."""
        self.weights = weights

    def best_placement(self, game: Game) -> tuple[float, list[tuple[int, int]]]:
        """The best staged result of the turn's dice and its value."""
        results = staged_results(game.board, [d.value for d in game.dice], game.required)
        scored = [(board_value(game.board.with_numbers(o), self.weights), o) for o in results]
        return max(scored, key=lambda pair: pair[0])

    def best_ruin(self, game: Game) -> tuple[float, int]:
        """The empty square whose RUIN costs least, and the value after it."""
        return max(
            (board_value(game.board.with_ruin(sq), self.weights), sq)
            for sq in game.board.empty_squares
        )

    def turn(self, game: Game) -> list[Action]:
        """See :class:`~magdagdon.ai.players.Player`."""
        if game.phase is Phase.ROLL:
            return [actions.roll()]
        if game.phase is Phase.MAGDAGDON:
            ruin_value, square = self.best_ruin(game)
            cost = game.next_power_cost
            best: tuple[float, list[Action]] | None = None
            for die, delta in game.rescuing_adjustments():
                trial = game.copy()
                trial.adjust(die, delta)
                value, _ = self.best_placement(trial)
                if (
                    cost is not None
                    and value - cost > ruin_value
                    and (best is None or value > best[0])
                ):
                    best = (value, [actions.adjust(die, delta)])
            if best is not None:
                return best[1]
            return [actions.accept_magdagdon(square)]
        _, order = self.best_placement(game)
        return staging_actions(game, order)
