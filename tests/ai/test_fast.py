"""The C accelerator against the pure-Python code it speeds up: the same doubles, bit for bit."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from magdagdon.ai import fast
from magdagdon.ai.evaluator import free_results
from magdagdon.ai.features import NAMES, LinearValue
from magdagdon.ai.simulate import game_seed, play
from magdagdon.ai.strong import ROLLS, Evaluator, StrongPlayer, shipped_model
from magdagdon.engine import EMPTY, RUIN, Board, Difficulty, Game

from ..strategies import boards, played_boards

needs_native = pytest.mark.skipif(not fast.AVAILABLE, reason="the C accelerator is not built")


def test_ci_builds_the_accelerator() -> None:
    """CI asks for it (.ci/run sets MAGDAGDON_REQUIRE_NATIVE): a failed build must not pass
    unnoticed as a slower player."""
    if os.environ.get("MAGDAGDON_REQUIRE_NATIVE"):
        assert fast.AVAILABLE


def test_the_environment_switches_it_off() -> None:
    code = "from magdagdon.ai import fast; print(fast.AVAILABLE)"
    env = {**os.environ, "MAGDAGDON_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "False"


@needs_native
@settings(max_examples=100, deadline=None)
@given(
    boards(),
    st.integers(0, 3),
    st.lists(st.floats(-50, 50), min_size=len(NAMES), max_size=len(NAMES)),
    st.floats(-100, 100),
)
def test_the_value_is_the_python_value(
    board: Board, powers: int, weights: list[float], bias: float
) -> None:
    native = fast.NativeValue(weights, bias)
    assert native.value(board.cells, powers) == LinearValue(weights, bias)(board.cells, powers)


@pytest.mark.slow  # (make check leaves it out)
@needs_native
@pytest.mark.parametrize("difficulty", list(Difficulty))
@settings(max_examples=30, deadline=None)
@given(board=played_boards(), powers=st.integers(0, 3))
def test_the_best_play_of_every_roll_is_the_python_one(
    difficulty: Difficulty, board: Board, powers: int
) -> None:
    """The one-roll expectimax (with its ruins and ±1 rescues, which stay in Python)."""
    model = shipped_model(difficulty)
    python, native = Evaluator(model, native=False), Evaluator(model, native=True)
    cells = board.cells
    powers = min(powers, difficulty.powers)
    if EMPTY not in cells:
        return
    assert native.roll_values(cells, powers) == python.roll_values(cells, powers)
    assert native.work == python.work  # the same staged sets are looked at
    assert native.chance(cells, powers) == python.chance(cells, powers)


def near_the_end(board: Board, keep: int) -> tuple[int, ...]:
    """The board with only its first ``keep`` empty squares left empty (the others RUINS)."""
    cells = list(board.cells)
    empties = [sq for sq in range(16) if cells[sq] == EMPTY]
    for sq in empties[keep:]:
        cells[sq] = RUIN
    return tuple(cells)


@needs_native
@pytest.mark.parametrize("difficulty", [Difficulty.PEACEFUL, Difficulty.NIGHTMARE])
@settings(max_examples=40, deadline=None)
@given(board=played_boards(), keep=st.integers(1, 4))
def test_the_exact_endgame_is_the_python_one(
    difficulty: Difficulty, board: Board, keep: int
) -> None:
    """With no power left: the value searched to the end, and the exact value of every roll."""
    cells = near_the_end(board, keep)
    if EMPTY not in cells:
        return
    model = shipped_model(difficulty)
    python, native = Evaluator(model, native=False), Evaluator(model, native=True)
    assert native.value(cells, 0) == python.chance(cells, 0, exact=True) == python.value(cells, 0)
    assert native.roll_values(cells, 0, exact=True) == python.roll_values(cells, 0, exact=True)


@needs_native
@settings(max_examples=40, deadline=None)
@given(played_boards(), st.integers(1, 4))
def test_the_work_counts_every_staged_set(board: Board, required: int) -> None:
    model = shipped_model(Difficulty.NIGHTMARE)
    tops, work = fast.NativeValue(model.weights, model.bias).best_rolls(board.cells, 0, required)
    assert work == len(free_results(board.cells))
    assert len(tops) == len(ROLLS)
    if board.empty_count == 0:
        assert all(t == -math.inf for t in tops)


@needs_native
@pytest.mark.parametrize("difficulty", list(Difficulty))
def test_a_player_plays_the_same_games_with_and_without_it(difficulty: Difficulty) -> None:
    """(A narrower search than the default, so that the pure-Python games stay quick.)"""
    for index in range(2):
        games = []
        for native in (False, True):
            player = StrongPlayer(breadth=4, search_empty=11)
            player._evaluators[difficulty] = Evaluator(shipped_model(difficulty), native=native)
            game = Game.new(difficulty, seed=game_seed(11, index))
            play(game, player)
            games.append((game.score().total, game.board.cells, game.turns))
        assert games[0] == games[1]


@needs_native
def test_bad_input_is_refused() -> None:
    model = shipped_model(Difficulty.PEACEFUL)
    native = fast.NativeValue(model.weights, model.bias)
    with pytest.raises(ValueError, match="16 squares"):
        native.value((0,) * 15, 0)
    with pytest.raises(ValueError, match="square 3 holds 9"):
        native.value((0, 0, 0, 9, *(0,) * 12), 0)
    with pytest.raises(ValueError, match="line table"):
        fast._native.value(bytes(16), 0, b"", native.params)  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="params"):
        fast._native.best_rolls(bytes(16), 0, 3, native.table, b"x")  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="at most 4 empty squares"):
        native.exact((0,) * 16, 3)
    with pytest.raises(ValueError, match="the minimum is 1 to 4"):
        native.exact((1,) * 15 + (0,), 0)
    with pytest.raises(ValueError, match="no power left"):
        native.best_rolls((1,) * 15 + (0,), 1, 1, 2, 4)
    with pytest.raises(ValueError, match="line weights"):
        fast._native.line_table(b"", 60, 40, 20)  # type: ignore[union-attr]


@needs_native
def test_the_c_module_states_the_layout_it_reads() -> None:
    """The params and line weights are packed by fast.py and read by _fast.c: the module
    states its layout and fast.py checks it on load (a mismatch raises, never a wrong value)."""
    from types import SimpleNamespace

    from magdagdon.ai import _fast

    fast.check_layout(_fast)  # the built module agrees
    good = {name: getattr(_fast, name) for name in ("PARAMS", "LINE_WEIGHTS", "NPARAMS")}
    good |= {name: getattr(_fast, name) for name in ("NLINE_WEIGHTS", "NROLLS", "EMPTY", "RUIN")}
    good |= {"NT_SIZE": _fast.NT_SIZE, "NT_SIZE_MASKED": _fast.NT_SIZE_MASKED}
    swapped = _fast.PARAMS.replace("bias ruin_penalty", "ruin_penalty bias")
    for change in ({"PARAMS": swapped}, {"NROLLS": 125}, {"RUIN": 8}, {"NT_SIZE": 4096}):
        with pytest.raises(RuntimeError, match="disagrees"):
            fast.check_layout(SimpleNamespace(**(good | change)))  # type: ignore[arg-type]
