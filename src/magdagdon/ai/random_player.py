"""A random player that uses only the public :class:`~magdagdon.engine.Game` API.

It stages random legal dice one at a time, never into a dead end (R7), stops
at a random point once the minimum is staged, and accepts MAGDAGDON on a
random empty square. With ``power_chance`` it tries a random Majda Power in
MAGDAGDON first. Fast enough to drive benchmarks and property tests.
"""

from __future__ import annotations

import random

from ..engine import Game, Phase


def play_turn(game: Game, rng: random.Random, power_chance: float = 0.0) -> None:
    """Play one whole turn of ``game`` (which must be waiting for ROLL)."""
    game.roll()
    while game.phase is Phase.MAGDAGDON and game.powers_left and rng.random() < power_chance:
        tray = [d.index for d in game.dice if d.in_tray]
        if rng.random() < 0.5:
            game.reroll(rng.sample(tray, rng.randint(1, len(tray))))
        else:
            die = game.dice[rng.choice(tray)]
            game.adjust(
                die.index, -1 if die.value == 6 or (die.value > 1 and rng.random() < 0.5) else 1
            )
    if game.phase is Phase.MAGDAGDON:
        game.accept_magdagdon(rng.choice(game.ruin_choices))
        return
    while True:
        moves = [(d.index, sq) for d in game.dice if d.in_tray for sq in game.legal_cells(d)]
        if game.can_confirm and (not moves or rng.random() < 0.5):
            game.confirm()
            return
        while True:
            index, square = moves.pop(rng.randrange(len(moves)))
            game.stage(index, square)
            if not game.dead_end:
                break
            game.unstage(index)


def play_game(game: Game, rng: random.Random, power_chance: float = 0.0) -> Game:
    """Play ``game`` to the end with random turns; returns it."""
    while game.phase is not Phase.OVER:
        play_turn(game, rng, power_chance)
    return game
