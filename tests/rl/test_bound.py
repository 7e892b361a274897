"""The game is finite by itself (R17): past TURN_ACTIONS a turn accepts only what finishes
it, so a turn never exceeds MAX_TURN_ACTIONS nor a game MAX_GAME_ACTIONS."""

from __future__ import annotations

import random

import pytest

from magdagdon.engine import (
    MAX_GAME_ACTIONS,
    MAX_TURN_ACTIONS,
    TURN_ACTIONS,
    Action,
    Game,
    Phase,
    RuleViolation,
    actions,
)


def looping_game(seed: int) -> tuple[Game, int]:
    """A game whose player takes back and stages again whenever it may, and uses powers
    and CONFIRM as late as it can: the longest turns random play finds. Returns the game
    and its longest turn."""
    rng = random.Random(seed)
    game = Game.new(rng.choice(["peaceful", "survival", "nightmare"]), seed=seed)
    longest = turn = 0
    while game.phase is not Phase.OVER:
        legal = game.legal_actions()
        loops = [a for a in legal if a["type"] in ("stage", "unstage", "unstage_all")]
        powers = [a for a in legal if a["type"] in ("adjust", "reroll")]
        action: Action
        if loops and rng.random() < 0.97:
            action = rng.choice(loops)
        elif powers and rng.random() < 0.5:
            action = rng.choice(powers)
        else:
            action = rng.choice(legal)
        game.apply(action)
        turn = 0 if game.phase in (Phase.ROLL, Phase.OVER) else game.turn_actions
        longest = max(longest, turn, game.turn_actions)
    return game, longest


@pytest.mark.parametrize("seed", range(3))
def test_a_player_looping_on_purpose_still_ends_each_turn_within_the_bound(seed: int) -> None:
    game, longest = looping_game(seed)
    assert TURN_ACTIONS <= longest <= MAX_TURN_ACTIONS
    assert len(game.actions) <= MAX_GAME_ACTIONS
    replayed = Game.replay(game.difficulty, game.seed, game.actions)  # every action legal
    assert replayed.score() == game.score()


def test_apply_refuses_what_the_bound_refuses_and_changes_nothing() -> None:
    game = Game.from_position("peaceful", "3.../..../..../....", (3, 4, 5, 6))
    game.stage(0, 1)
    game.turn_actions = TURN_ACTIONS
    before = game.position_key()
    with pytest.raises(RuleViolation) as exc:
        game.apply(actions.unstage_all())
    assert exc.value.code == "turn_action_limit" and game.position_key() == before
    assert actions.unstage_all() not in game.legal_actions()
    assert all(game.bound_violation(a) is None for a in game.legal_actions())
    game.apply(actions.stage(1, 2))  # what finishes the turn is accepted
    game.apply(actions.confirm())
    assert game.phase is Phase.ROLL and game.turn_actions == 0
