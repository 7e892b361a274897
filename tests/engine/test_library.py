"""The engine as a library for bot writers: positions set up, chance nodes without the secret
stream, every legal action, the turn's plans, pickling and position keys (issue #19)."""

from __future__ import annotations

import pickle
import pydoc
import random
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from magdagdon.engine import (
    Board,
    Difficulty,
    Game,
    Phase,
    RuleViolation,
    actions,
    perft,
)

from ..strategies import chaotic_turn


def every_action() -> list[actions.Action]:
    """Every action of any shape the rules know, legal or not somewhere."""
    found: list[actions.Action] = [actions.roll(), actions.unstage_all(), actions.confirm()]
    found += [actions.stage(d, c) for d in range(4) for c in range(16)]
    found += [actions.unstage(d) for d in range(4)]
    found += [actions.adjust(d, s) for d in range(4) for s in (-1, 1)]
    found += [actions.reroll([d for d in range(4) if m >> d & 1]) for m in range(1, 16)]
    found += [actions.accept_magdagdon(c) for c in range(16)]
    return found


@st.composite
def positions(draw: st.DrawFn) -> Game:
    """A game stopped at any action of a game played with every kind of action."""
    seed = draw(st.integers(0, 2**32))
    game = Game.new(draw(st.sampled_from(list(Difficulty))), seed=seed)
    rng = random.Random(seed)
    while game.phase is not Phase.OVER:
        chaotic_turn(game, rng, power_chance=0.2)
    cut = draw(st.integers(0, len(game.actions)))
    return Game.replay(game.difficulty, game.seed, game.actions[:cut])


@settings(max_examples=60, deadline=None)
@given(positions())
def test_legal_actions_are_exactly_what_apply_accepts(game: Game) -> None:
    legal = game.legal_actions()
    assert len({repr(a) for a in legal}) == len(legal)
    for action in every_action():
        trial = game.copy()
        try:
            trial.apply(action)
        except RuleViolation:
            assert action not in legal, action
        else:
            assert action in legal, action


@settings(max_examples=40, deadline=None)
@given(positions())
def test_turn_plans_are_every_staged_result_and_end_the_turn(game: Game) -> None:
    plans = game.turn_plans()
    if game.phase is not Phase.PLACE:
        assert plans == []
        return
    dice = [d.value for d in game.dice]
    assert len(plans) == perft(game.board, dice, game.required)
    boards = set()
    for plan in plans:
        trial = game.copy()
        for action in plan:
            trial.apply(action)
        assert trial.turns == game.turns + 1
        boards.add(str(trial.board))
    assert len(boards) == len(plans)


def test_a_position_set_up_plays_as_if_reached_by_play() -> None:
    game = Game.from_position("peaceful", "12../.3../..../....", (2, 3, 4, 6), powers_used=1)
    assert game.phase is Phase.PLACE and game.required == 2 and game.powers_left == 2
    assert game.actions == [] and game.turn_actions == 1
    assert game.power_penalty == 10
    game.apply(actions.stage(0, 2))
    with pytest.raises(RuleViolation) as exc:
        game.apply(actions.stage(3, 3))  # a 6 next to the 2 just staged
    assert exc.value.code == "value_too_far"
    # MAGDAGDON as a ROLL would find it (R5): nothing of 1 1 1 1 fits next to 6s
    stuck = Game.from_position("nightmare", "66../66../..../....", (1, 1, 1, 1))
    assert (
        stuck.phase is Phase.MAGDAGDON
        and stuck.ruin_choices == Board.parse("66../66../..../....").empty_squares
    )
    waiting = Game.from_position("survival", Board.parse("1.../..../..../...."), turns=3)
    assert waiting.phase is Phase.ROLL and waiting.turns == 3
    waiting.roll()  # from the stream at turn 3
    assert waiting.phase in (Phase.PLACE, Phase.MAGDAGDON)
    over = Game.from_position("peaceful", "1234/2345/3456/4565")
    assert over.phase is Phase.OVER and over.score().total == over.score().total


@pytest.mark.parametrize(
    ("kwargs", "problem"),
    [
        ({"board": "12x./..../..../...."}, "not a square"),
        ({"dice": (1, 2, 3)}, "four dice"),
        ({"dice": (1, 2, 3, 7)}, "four dice"),
        ({"powers_used": 4}, "powers"),
        ({"difficulty": "nightmare", "powers_used": 1}, "powers"),
        ({"turns": -1}, "turns"),
        ({"board": "1234/2345/3456/4565", "dice": (1, 1, 1, 1)}, "full"),
    ],
)
def test_a_position_is_checked(kwargs: dict[str, object], problem: str) -> None:
    args: dict[str, object] = {"difficulty": "peaceful", "board": "1.../..../..../...."}
    args |= kwargs
    with pytest.raises(ValueError, match=problem):
        Game.from_position(**args)  # type: ignore[arg-type]


def test_a_search_copy_knows_only_what_a_player_knows() -> None:
    game = Game.new("peaceful", seed=5)
    search = game.search_copy()
    with pytest.raises(RuleViolation) as exc:
        search.roll()
    assert exc.value.code == "no_dice_stream"
    with pytest.raises(ValueError):
        search.seed  # noqa: B018
    outcomes = search.chance_outcomes()
    assert len(outcomes) == 126 and sum(p for _, p in outcomes) == pytest.approx(1)
    search.roll((6, 6, 6, 6))
    assert [d.value for d in search.dice] == [6, 6, 6, 6]
    rerolls = search.chance_outcomes([1, 3])
    assert len(rerolls) == 21 and sum(p for _, p in rerolls) == pytest.approx(1)
    search.reroll([3, 1], values=(2, 5))
    assert [d.value for d in search.dice] == [6, 2, 6, 5] and search.powers_used == 1
    # the real game is untouched and keeps its own dice
    game.roll()
    assert game.dice != search.dice
    with pytest.raises(ValueError, match="search copy"):
        Game.new("peaceful", seed=5).roll((1, 2, 3, 4))  # a real game rolls its stream
    # (copy() keeps the stream: its next roll is the real one, a search over it would cheat)
    assert Game.new("peaceful", seed=5).copy().chance_outcomes() == outcomes


def play_to_end(game: Game) -> dict[str, object]:
    rng = random.Random(1)
    while game.phase is not Phase.OVER:
        chaotic_turn(game, rng)
    return game.to_dict()


def test_a_game_pickles_and_goes_on_in_another_process() -> None:
    game = Game.new("survival", seed=9)
    game.roll()
    copy = pickle.loads(pickle.dumps(game))
    assert copy.to_dict() == game.to_dict() and copy.seed == game.seed
    violation = pickle.loads(pickle.dumps(RuleViolation("wrong_phase", "Not now.")))
    assert (violation.code, violation.message) == ("wrong_phase", "Not now.")
    game.apply(game.turn_plans()[0][0])
    game.apply(actions.unstage_all())
    game.apply(game.turn_plans()[-1][0])  # mid-turn, a die staged
    game = pickle.loads(pickle.dumps(game))
    for action in game.turn_plans()[0]:
        game.apply(action)
    with ProcessPoolExecutor(max_workers=1) as pool:
        finished = pool.submit(play_to_end, game).result()
    assert finished == play_to_end(game)


def test_the_position_key_is_the_position_not_the_history() -> None:
    a = Game.from_position("peaceful", "12../.3../..../....", (2, 3, 4, 6))
    b = Game.from_position("peaceful", "12../.3../..../....", (2, 3, 4, 6))
    b.stage(0, 2)
    b.unstage(0)
    assert a.position_key() == b.position_key() and hash(a.position_key())
    b.stage(0, 2)
    assert a.position_key() != b.position_key()


def test_the_attributes_are_documented() -> None:
    text = pydoc.render_doc(Game)
    for name in ("phase", "board", "required", "turns", "actions", "powers_used"):
        assert f"{name}:" in text, name


def test_mypy_rejects_an_action_the_engine_does_not_know(tmp_path: Path) -> None:
    mypy = pytest.importorskip("mypy.api")
    bot = tmp_path / "bot.py"
    bot.write_text(
        "from magdagdon.engine import Game, actions\n"
        "game = Game.new('peaceful', seed=1)\n"
        "game.apply(actions.roll())\n"
        "game.apply({'type': 'roll'})\n"
        "game.apply({'type': 'nonsense'})\n"
    )
    out, _, status = mypy.run(["--strict", "--no-incremental", str(bot)])
    assert status == 1
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert errors and all("bot.py:5:" in line for line in errors), out  # line 5 alone
