"""Players: given a game in ROLL, PLACE or MAGDAGDON, the actions of the turn.

A player answers :meth:`Player.turn` with the actions to apply now, in docs/design.md's
vocabulary. It plans up to the next roll of dice it cannot know: ``[roll]`` before the roll;
the staging and CONFIRM of a placeable roll; in MAGDAGDON a power (after which it is asked
again) or ACCEPT MAGDAGDON with the square that becomes the RUIN.

>>> from magdagdon.engine import Game
>>> game = Game.new("nightmare", seed=1)
>>> player = GreedyPlayer()
>>> player.turn(game)
[{'type': 'roll'}]
>>> game.roll()
>>> [a["type"] for a in player.turn(game)]
['stage', 'stage', 'stage', 'confirm']
"""

from __future__ import annotations

import random
from typing import Protocol

from ..engine import Game, Phase, actions, score_board, staged_results
from ..engine.actions import Action


class Player(Protocol):
    """Anything that plays MAGDAGDON turns."""

    name: str

    def turn(self, game: Game) -> list[Action]:
        """The actions to apply now (the game is not over)."""
        ...


def staging_actions(game: Game, order: list[tuple[int, int]]) -> list[Action]:
    """Stage ``order`` ((value, square) pairs) with the turn's tray dice, then CONFIRM
    (:meth:`Game.stage_plan <magdagdon.engine.Game.stage_plan>`)."""
    return game.stage_plan(order)


class RandomPlayer:
    """Uniform among the legal staged results of at least the minimum; a random RUIN square.

    It uses no power. Its choices come from ``rng`` (seeded per game by the simulator).
    """

    name = "random"

    def __init__(self, rng: random.Random | None = None) -> None:
        """A player drawing from ``rng``."""
        self.rng = rng or random.Random()

    def turn(self, game: Game) -> list[Action]:
        """See :class:`Player`."""
        if game.phase is Phase.ROLL:
            return [actions.roll()]
        if game.phase is Phase.MAGDAGDON:
            return [actions.accept_magdagdon(self.rng.choice(game.ruin_choices))]
        results = staged_results(game.board, [d.value for d in game.dice], game.required)
        return staging_actions(game, self.rng.choice(results))


class GreedyPlayer:
    """The most dice, then the best immediate score; the first empty square as the RUIN."""

    name = "greedy"

    def turn(self, game: Game) -> list[Action]:
        """See :class:`Player`."""
        if game.phase is Phase.ROLL:
            return [actions.roll()]
        if game.phase is Phase.MAGDAGDON:
            return [actions.accept_magdagdon(game.ruin_choices[0])]
        results = staged_results(game.board, [d.value for d in game.dice], game.required)
        best = max(
            results,
            key=lambda order: (len(order), score_board(game.board.with_numbers(order)).total),
        )
        return staging_actions(game, best)
