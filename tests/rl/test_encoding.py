"""The action encoding: every legal action has one id, ids round-trip, equal dice give one
action, plan ids name staged sets (engine/encoding.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from magdagdon.engine import Game, actions, staged_results
from magdagdon.engine import encoding as enc

from .play import random_position


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.booleans())
def test_every_legal_action_round_trips(seed: int, past_bound: bool) -> None:
    game = random_position(seed, past_bound)
    ids = enc.legal_ids(game)
    assert ids == sorted(set(ids)) and all(0 <= i < enc.NUM_ACTIONS for i in ids)
    for action in game.legal_actions():
        action_id = enc.encode(game, action)
        assert action_id in ids
        decoded = enc.decode(game, action_id)
        assert enc.encode(game, decoded) == action_id
        one, other = game.copy(), game.copy()  # with the stream: a REROLL draws alike
        one.apply(action)
        other.apply(decoded)
        assert enc.observation(one) == enc.observation(other)
    for action_id in ids:  # every legal id stands for a legal action
        game.copy().apply(enc.decode(game, action_id))
    mask = enc.legal_mask(game)
    assert [i for i, legal in enumerate(mask) if legal] == ids


def test_equal_dice_give_one_action() -> None:
    game = Game.from_position("nightmare", "3.../..../..../....", (3, 4, 3, 3))
    stagings = [a for a in game.legal_actions() if a["type"] == "stage"]
    ids = {enc.encode(game, a) for a in stagings}
    assert len(stagings) == 8 and len(ids) == 4  # three 3s alike, the 4 apart
    assert enc.encode(game, actions.stage(2, 1)) == enc.STAGE + 16 * 2 + 1
    assert enc.decode(game, enc.STAGE + 16 * 2 + 1) == actions.stage(0, 1)  # the first 3


def test_a_reroll_of_equal_dice_is_one_id_of_the_canonical_subset() -> None:
    game = Game.from_position("peaceful", "3.../..../..../....", (5, 2, 5, 1))
    assert enc.tray_order(game) == [3, 1, 0, 2]  # 1, 2, 5, 5
    first_five, second_five = actions.reroll([0]), actions.reroll([2])
    assert enc.encode(game, first_five) == enc.encode(game, second_five) == enc.REROLL + 0b0100
    assert enc.decode(game, enc.REROLL + 0b0100) == first_five
    assert enc.REROLL + 0b1000 not in enc.legal_ids(game)  # the second 5 without the first
    assert enc.REROLL + 0b1100 in enc.legal_ids(game)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32))
def test_plan_ids_name_the_staged_sets_of_turn_plans(seed: int) -> None:
    game = random_position(seed)
    if game.staged:
        game.unstage_all()
    ids = enc.turn_legal_ids(game)
    values = [d.value for d in game.dice]
    sets = staged_results(game.board, values, game.required) if values else []
    plans = [i for i in ids if i >= enc.PLAN]
    assert len(plans) == len(sets) == len(game.turn_plans())
    for order, plan in zip(
        sets, sorted(plans, key=lambda i: sets_index(game, i, sets)), strict=True
    ):
        assert enc.plan_code(game, order) == plan
        assert sorted(enc.plan_placements(game, plan)) == sorted(order)
        trial = game.copy()
        for action in enc.turn_decode(game, plan):
            trial.apply(action)
        assert trial.turns == game.turns + 1


def sets_index(game: Game, plan: int, sets: list[list[tuple[int, int]]]) -> int:
    placed = sorted(enc.plan_placements(game, plan))
    return next(k for k, order in enumerate(sets) if sorted(order) == placed)


def test_the_id_table_is_what_the_documentation_says() -> None:
    assert (enc.STAGE, enc.TAKE_BACK, enc.TAKE_BACK_ALL, enc.CONFIRM) == (1, 97, 113, 114)
    assert (enc.DECREASE, enc.INCREASE, enc.REROLL, enc.RUIN) == (115, 121, 126, 142)
    assert enc.NUM_ACTIONS == 158 and enc.NUM_TURN_ACTIONS == 158 + 17**4
    assert enc.__doc__ is not None and "126 + m, m = 1..15" in enc.__doc__
