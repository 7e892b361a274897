"""The strong player: its chance nodes, its exact endgame, its options, its games."""

from __future__ import annotations

import math
from functools import cache
from itertools import combinations_with_replacement

import pytest
from hypothesis import given, settings

from magdagdon.ai.evaluator import free_results
from magdagdon.ai.features import NAMES
from magdagdon.ai.simulate import play
from magdagdon.ai.strong import (
    ROLLS,
    Evaluator,
    Model,
    StrongPlayer,
    load_models,
    outcomes,
    shipped_model,
)
from magdagdon.engine import (
    Board,
    DiceStream,
    Difficulty,
    Game,
    Phase,
    score_board,
    staged_results,
)

from ..positions import game_at
from ..strategies import played_boards

ZERO = Model(Difficulty.NIGHTMARE, (0.0,) * len(NAMES))


def test_the_126_rolls_and_their_probabilities() -> None:
    assert len(ROLLS) == 126
    assert math.isclose(sum(p for _, p in ROLLS), 1.0)
    assert dict(ROLLS)[(1, 2, 3, 4)] == 24 / 1296
    assert dict(ROLLS)[(6, 6, 6, 6)] == 1 / 1296
    for n in range(1, 5):
        assert math.isclose(sum(p for _, p in outcomes(n)), 1.0)


def test_every_reroll_a_turn_offers_is_valued_as_reroll_value_values_it() -> None:
    player = StrongPlayer(search=False)
    game = Game(Difficulty.PEACEFUL, seed=5)
    seen = 0
    while game.phase is not Phase.OVER and seen < 60:
        if game.phase is not Phase.ROLL and game.powers_left:
            for option in player.candidates(game):
                if option.actions[-1]["type"] != "reroll":
                    continue
                before = game.copy()
                for action in option.actions[:-1]:
                    before.apply(action)
                chosen = option.actions[-1]["dice"]
                assert option.value == player.reroll_value(before, chosen)
                seen += 1
        for action in player.turn(game):
            game.apply(action)
    assert seen >= 60


@settings(max_examples=40, deadline=None)
@given(played_boards())
def test_free_results_are_what_every_roll_can_stage(board: Board) -> None:
    """Every staged set of any values equals the union over all rolls of staged_results."""
    union = set()
    for roll in combinations_with_replacement(range(1, 7), 4):
        for order in staged_results(board, roll, 1):
            union.add(tuple(sorted((sq, v) for v, sq in order)))
    found = [tuple(sorted(r)) for r in free_results(board.cells)]
    assert len(found) == len(set(found))
    assert set(found) == union


@cache
def brute_value(board: Board, minimum: int) -> float:
    """Expected final score with best play, by plain recursion (no powers)."""
    if board.is_full:
        return float(score_board(board).total)
    required = min(minimum, board.empty_count)
    total = 0.0
    for roll, p in ROLLS:
        results = staged_results(board, roll, required)
        if results:
            best = max(brute_value(board.with_numbers(r), minimum) for r in results)
        else:
            best = max(
                brute_value(board.with_ruin(sq), minimum) for sq in range(16) if board[sq] == 0
            )
        total += p * best
    return total


@pytest.mark.parametrize(
    "text",
    ["3456/3456/3456/345.", "1234/2345/34X./45..", "2222/2332/.3.2/2..3", "6543/5432/4321/X..."],
)
def test_the_endgame_search_is_exact(text: str) -> None:
    board = Board.parse(text)
    ev = Evaluator(ZERO)
    assert math.isclose(ev.value(board.cells, 0), brute_value(board, 3), rel_tol=1e-9)


@settings(max_examples=8, deadline=None)
@given(played_boards())
def test_the_endgame_search_is_exact_on_played_boards(board: Board) -> None:
    if not 0 < board.empty_count <= 3:
        return
    ev = Evaluator(ZERO)
    assert math.isclose(ev.value(board.cells, 0), brute_value(board, 3), rel_tol=1e-9)


def test_the_shipped_weights_cover_every_difficulty() -> None:
    models = load_models()
    assert set(models) == set(Difficulty)
    for level, model in models.items():
        assert len(model.weights) == len(NAMES)
        assert model.difficulty is level
        assert all(math.isfinite(w) for w in model.weights)


def test_weights_fitted_on_other_features_are_refused() -> None:
    with pytest.raises(ValueError, match="magdagdon train"):
        load_models('{"features": ["x"], "models": {}}')


def test_it_completes_the_straight() -> None:
    """The linear value completes the row. (The coach's SURVIVAL network prefers, by 5 of its
    points, DECREASE −1 (−70) to build the column 3-4-5-6 and leave the row open.)"""
    game = game_at("123./..../..../....", (4, 6, 6, 1), "survival")
    for action in StrongPlayer(value="linear").turn(game):
        game.apply(action)
    assert str(game.board).startswith("1234")


def test_powers_and_ruins_are_options_with_their_cost() -> None:
    """PEACEFUL, 4 4 4 4 and one square left that takes 1, 2 or 3: a 1 makes row 4 a
    STRAIGHT (+60), a 2 column 4 a FOUR (+40). Rerolling all four dice (−10) is worth far
    more than DECREASE −1 twice to a 2 for the FOUR (−10 −20), better than once to a 3
    (−10), which is still better than a RUIN (−15)."""
    game = game_at("2222/2222/2222/432.", (4, 4, 4, 4), "peaceful")
    assert game.phase is Phase.MAGDAGDON
    options = StrongPlayer().options(game)
    best = options[0]
    assert best.actions == [{"type": "reroll", "dice": [0, 1, 2, 3]}]
    by_kind: dict[str, float] = {}
    for option in options:  # (the best of each kind: a plan's REROLL or RUIN says its kind)
        types = {a["type"] for a in option.actions}
        kind = next(k for k in ("reroll", "accept_magdagdon", "adjust") if k in types)
        by_kind.setdefault(kind, option.value)
    assert by_kind["reroll"] > by_kind["adjust"] > by_kind["accept_magdagdon"]
    # the reroll is valued by its expectation: about 0.52 x 62 + 0.29 x 44 + ... - 10
    ruin = by_kind["accept_magdagdon"]
    assert 40 < by_kind["reroll"] - ruin < 60
    assert by_kind["adjust"] - ruin == pytest.approx(15 + 4 + 40 - 10 - 20, abs=0.01)
    by_plan = {tuple(map(str, o.actions)): o.value for o in options}
    twice = [{"type": "adjust", "die": 0, "delta": -1}] * 2 + [
        {"type": "stage", "die": 0, "cell": 15}
    ]
    assert by_plan[tuple(map(str, [*twice, {"type": "confirm"}]))] == by_kind["adjust"]
    once = [{"type": "adjust", "die": 0, "delta": -1}, {"type": "stage", "die": 0, "cell": 15}]
    assert by_plan[tuple(map(str, [*once, {"type": "confirm"}]))] - ruin == pytest.approx(
        15 + 6 - 10, abs=0.01
    )


def test_options_are_best_first_and_each_plan_is_legal() -> None:
    game = game_at("..../.34./..../....", (2, 3, 5, 6), "peaceful")
    options = StrongPlayer().options(game)
    assert len(options) > 3
    searched = [o.value for o in options if o.searched]
    assert searched == sorted(searched, reverse=True)
    for option in options[:10]:
        trial = game.copy()
        for action in option.actions:
            trial.apply(action)
        if option.after is not None:
            assert trial.board.cells == option.after
            assert trial.turns == 1


@pytest.mark.parametrize("difficulty", list(Difficulty))
def test_it_searches_30_options_from_the_first_turn_unless_told(difficulty: Difficulty) -> None:
    player = StrongPlayer()
    assert player.settings(difficulty) == (30, 16)
    assert StrongPlayer(breadth=2, search_empty=5).settings(difficulty) == (2, 5)
    # an opening leaves 12 to 14 empty squares
    game = game_at("..../..../..../....", (3, 4, 4, 5), difficulty.value)
    options = player.options(game)
    searched = [o for o in options if o.searched]
    assert len(searched) == min(30, len(options))
    assert not any(o.searched for o in StrongPlayer(search_empty=9).options(game))


def test_a_work_limit_stops_the_search_after_the_option_that_reaches_it() -> None:
    game = game_at("..../..../..../....", (3, 4, 4, 5), "nightmare")
    limited = StrongPlayer(limit=1).options(game)
    assert [o.searched for o in limited].count(True) == 1
    # the option searched is the one ranked first by the learned value
    unsearched = StrongPlayer(search=False).options(game)
    assert limited[0].after == unsearched[0].after
    assert limited[0].value != unsearched[0].value


@pytest.mark.parametrize("difficulty", list(Difficulty))
def test_it_plays_whole_games(difficulty: Difficulty) -> None:
    player = StrongPlayer()
    for seed in range(2):
        game = Game.new(difficulty, seed=10_000 + seed)
        play(game, player)
        assert game.is_over


@pytest.mark.parametrize("difficulty", list(Difficulty))
def test_it_never_draws_dice_or_reads_the_seed(
    difficulty: Difficulty, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A decision uses only what the player sees: no die is drawn, the seed is never read."""
    games = [game_at("1111/1111/1111/4...", (6, 6, 6, 6), difficulty)]
    games.append(game_at("12../.2../..../....", (3, 3, 4, 5), difficulty))

    def forbidden(*args: object) -> None:
        raise AssertionError("the player looked at the dice to come")

    monkeypatch.setattr(DiceStream, "value", forbidden)
    monkeypatch.setattr(Game, "seed", property(forbidden))
    for game in games:
        StrongPlayer().turn(game)


def test_the_shipped_model_is_cached() -> None:
    assert shipped_model(Difficulty.PEACEFUL) is shipped_model(Difficulty.PEACEFUL)


@settings(max_examples=40, deadline=None)
@given(played_boards())
def test_mirrored_and_turned_boards_are_worth_the_same(board: Board) -> None:
    """Rows and columns score alike and STRAIGHTs count both ways: the value has the eight
    symmetries of the square (the hint's alternatives rely on it)."""
    from magdagdon.ai.coach import _SYMMETRIES

    ev = StrongPlayer().evaluator(Difficulty.SURVIVAL)
    values = [ev.learned(tuple(board.cells[i] for i in p), 1) for p in _SYMMETRIES]
    assert values == pytest.approx([values[0]] * 8, abs=1e-6)


def test_a_work_limit_does_not_depend_on_what_was_memoised() -> None:
    """Values found in the memo count the work they first took: a limited decision is the
    same on a fresh player and on one that has searched the position before."""
    game = game_at("..../.34./..../....", (2, 3, 5, 6), "peaceful")
    player = StrongPlayer(limit=25_000)
    first = [(o.after, o.searched) for o in player.options(game)]
    ev = player.evaluator(game.difficulty)
    start = ev.work
    again = [(o.after, o.searched) for o in player.options(game)]
    assert again == first
    assert ev.work - start == start  # the memo hits count the same work again
