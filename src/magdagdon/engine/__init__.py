"""The rules of MAGDAGDON: pure Python, standard library only, deterministic, no I/O.

>>> from magdagdon.engine import Board, score_board
>>> score_board(Board.parse("3456/3456/3456/3456")).total
544
"""

from . import actions
from .actions import Action
from .board import EMPTY, RUIN, Board, NotationError, square_label
from .dice import DiceStream, seed_bytes
from .game import (
    MAX_GAME_ACTIONS,
    MAX_TURN_ACTIONS,
    TURN_ACTIONS,
    Die,
    Difficulty,
    Game,
    Phase,
    RuleViolation,
)
from .placement import Placement, divide, find_placement, legal_cells, perft, staged_results
from .scoring import (
    BONUS_POINTS,
    RUIN_PENALTY,
    Bonus,
    LineScore,
    ScoreBreakdown,
    line_bonus,
    line_prospects,
    score_board,
)

__all__ = [
    "BONUS_POINTS",
    "EMPTY",
    "MAX_GAME_ACTIONS",
    "MAX_TURN_ACTIONS",
    "RUIN",
    "RUIN_PENALTY",
    "TURN_ACTIONS",
    "Action",
    "Board",
    "Bonus",
    "DiceStream",
    "Die",
    "Difficulty",
    "Game",
    "LineScore",
    "NotationError",
    "Phase",
    "Placement",
    "RuleViolation",
    "ScoreBreakdown",
    "actions",
    "divide",
    "find_placement",
    "legal_cells",
    "line_bonus",
    "line_prospects",
    "perft",
    "score_board",
    "seed_bytes",
    "square_label",
    "staged_results",
]
