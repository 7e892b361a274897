"""Random positions for the reinforcement-learning tests: games part-way through a turn,
reached by legal actions, some pushed past the per-turn bound (R17)."""

from __future__ import annotations

import random

from magdagdon.engine import TURN_ACTIONS, Game, Phase


def random_position(seed: int, past_bound: bool = False) -> Game:
    """A seeded game played at random (every legal action alike) for some turns and into
    the next one; with ``past_bound`` its turn then counts :data:`TURN_ACTIONS` actions or
    a few more, so that only what finishes it is legal."""
    rng = random.Random(seed)
    game = Game.new(rng.choice(["peaceful", "survival", "nightmare"]), seed=seed)
    for _ in range(rng.randint(0, 120)):
        if game.phase is Phase.OVER:
            break
        game.apply(rng.choice(game.legal_actions()))
    if past_bound and game.phase in (Phase.PLACE, Phase.MAGDAGDON):
        game.turn_actions = TURN_ACTIONS + rng.randint(0, 5)
    return game
