"""Games set up at a chosen position with chosen dice, through the public API only."""

from __future__ import annotations

from functools import cache

from magdagdon.engine import Board, DiceStream, Difficulty, Game


@cache
def seed_for(dice: tuple[int, ...], turn: int = 0) -> int:
    """The smallest int seed whose ROLL of ``turn`` gives exactly ``dice`` (in slot order)."""
    seed = 0
    while DiceStream(seed).roll(turn) != dice:
        seed += 1
    return seed


def game_at(
    board: str, dice: tuple[int, int, int, int], difficulty: Difficulty | str = "peaceful"
) -> Game:
    """A game on ``board`` (as if earlier turns had made it) that has just rolled ``dice``."""
    game = Game.new(difficulty, seed=seed_for(dice))
    game.board = Board.parse(board)
    game.roll()
    return game
