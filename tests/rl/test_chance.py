"""Chance as chance (EncodedGame): ROLL and REROLL are chance nodes with OpenSpiel's
chance_outcomes(), and a seeded game replays as the server's game of that seed."""

from __future__ import annotations

import random

import pytest

from magdagdon.engine import Game, Phase
from magdagdon.engine import encoding as enc
from magdagdon.engine.dice import outcomes


def test_a_roll_and_a_reroll_are_chance_nodes() -> None:
    play = enc.EncodedGame("peaceful")
    assert play.is_chance_node() and play.legal_actions() == []
    found = play.chance_outcomes()
    assert [k for k, _ in found] == list(range(126)) and sum(p for _, p in found) == pytest.approx(
        1
    )
    play.apply_action(outcomes(4).index(((1, 2, 5, 6), outcomes(4)[0][1] * 24)))
    assert sorted(d.value for d in play.game.dice) == [1, 2, 5, 6]
    reroll = enc.REROLL + 0b0011  # the 1 and the 2
    assert reroll in play.legal_actions()
    play.apply_action(reroll)
    assert play.is_chance_node() and len(play.chance_outcomes()) == 21  # two dice
    assert play.score() == -10  # the power is due whatever the dice
    play.apply_action(20)  # (6, 6)
    assert sorted(d.value for d in play.game.dice) == [5, 6, 6, 6]
    assert play.game.powers_used == 1 and not play.is_chance_node()


def test_a_seeded_game_takes_its_streams_dice_and_replays_on_the_server() -> None:
    rng = random.Random(2)
    for level, seed in [("peaceful", 1), ("survival", 2), ("nightmare", 3)]:
        play = enc.EncodedGame(level, seed=seed, turn_level=seed == 2)
        while not play.is_terminal():
            if play.is_chance_node():
                wrong = (play.stream_outcome() + 1) % len(play.chance_outcomes())
                with pytest.raises(ValueError):
                    play.apply_action(wrong)
                play.apply_action(play.sample_outcome(rng))
            else:
                play.apply_action(rng.choice(play.legal_actions()))
        server = Game.replay(level, seed, play.game.actions)
        assert server.phase is Phase.OVER and server.score().total == play.score()
        assert server.state() == play.game.state()
