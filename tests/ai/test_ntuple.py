"""The n-tuple network: the C code against the Python reference (the same bits), the shipped
form, the training's determinism and resumption."""

from __future__ import annotations

import random
from array import array
from functools import cache, partial
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from magdagdon.ai import fast
from magdagdon.ai.evaluator import Evaluator
from magdagdon.ai.features import quick_score
from magdagdon.ai.ntrain import Run, curve_svg, train_network
from magdagdon.ai.ntuple import (
    SIZE,
    SIZE_MASKED,
    NTupleModel,
    NTupleValue,
    decode_network,
    encode_network,
    network_count,
    network_value,
    symmetry,
)
from magdagdon.ai.registry import make_player
from magdagdon.ai.simulate import game_seed
from magdagdon.ai.strong import StrongPlayer
from magdagdon.engine import EMPTY, Board, Difficulty, Game, Phase, staged_results

from ..strategies import boards, played_boards

needs_native = pytest.mark.skipif(not fast.AVAILABLE, reason="the C accelerator is not built")


def random_weights(seed: int, size: int) -> array[float]:
    rng = random.Random(seed)
    return array("f", (rng.gauss(0, 3) for _ in range(size)))


KINDS = ("plain", "masked", "per power")


@cache
def weights() -> array[float]:
    """The plain model's random weights (made when first asked for: a few seconds that every
    process collecting the tests would pay)."""
    return random_weights(1, SIZE)


@cache
def random_model(kind: str = "plain") -> NTupleModel:
    """A model of random weights: ``plain``; ``masked``; ``per power``, trained with the
    powers (a network per number of powers left, 0 to 3, no power term)."""
    if kind == "plain":
        return NTupleModel(Difficulty.PEACEFUL, weights(), 11.5, -3.25)
    if kind == "masked":
        return NTupleModel(Difficulty.PEACEFUL, random_weights(2, SIZE_MASKED), 11.5, -3.25)
    networks = b"".join(random_weights(3 + k, SIZE).tobytes() for k in range(4))
    return NTupleModel(Difficulty.PEACEFUL, array("f", networks))


def transformed(cells: tuple[int, ...], s: int) -> tuple[int, ...]:
    out = [0] * 16
    for sq in range(16):
        out[symmetry(sq, s)] = cells[sq]
    return tuple(out)


def test_the_symmetries_are_the_eight_of_the_square() -> None:
    images = {tuple(symmetry(sq, s) for sq in range(16)) for s in range(8)}
    assert len(images) == 8
    for image in images:
        assert sorted(image) == list(range(16))


@settings(max_examples=50, deadline=None)
@given(boards(), st.integers(0, 7))
def test_the_value_does_not_change_under_a_symmetry(board: Board, s: int) -> None:
    cells = board.cells
    assert network_value(transformed(cells, s), weights()) == pytest.approx(
        network_value(cells, weights()), rel=1e-9, abs=1e-9
    )


def test_a_full_board_is_worth_its_score() -> None:
    cells = Board.parse("3456/3456/3456/3456").cells
    assert network_value(cells, weights()) == 0.0
    assert NTupleValue(random_model())(cells, 2) == quick_score(cells) == 544


@needs_native
@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=200, deadline=None)
@given(board=boards(), powers=st.integers(0, 3))
def test_the_c_value_is_the_python_value_bit_for_bit(kind: str, board: Board, powers: int) -> None:
    model = random_model(kind)
    native = fast.NativeNTuple(model.weights, model.power_a, model.power_b)
    assert fast._native is not None
    count, size = network_count(len(model.weights))
    network = model.weights[(powers % count) * size : (powers % count + 1) * size]
    assert fast._native.nt_value(bytes(board.cells), network.tobytes()) == network_value(
        board.cells, network
    )
    assert native.value(board.cells, powers) == NTupleValue(model)(board.cells, powers)
    if count > 1:  # what the powers held are worth is the network's of that many
        score = quick_score(board.cells)
        assert native.value(board.cells, powers) == (
            score + network_value(board.cells, network) if EMPTY in board.cells else score
        )


@pytest.mark.slow  # (make check leaves it out)
@needs_native
@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=20, deadline=None)
@given(board=played_boards(), powers=st.integers(0, 3))
def test_the_best_play_of_every_roll_is_the_python_one(
    kind: str, board: Board, powers: int
) -> None:
    """The one-roll expectimax's chance node with the network (ruins and rescues too)."""
    model = random_model(kind)
    python, native = Evaluator(model, native=False), Evaluator(model, native=True)
    cells = board.cells
    if EMPTY not in cells:
        return
    assert native.roll_values(cells, powers) == python.roll_values(cells, powers)
    assert native.work == python.work
    if cells.count(EMPTY) <= 4:
        assert native.value(cells, 0) == python.value(cells, 0)


@needs_native
@pytest.mark.parametrize("kind", ["plain", "masked"])  # the self-play of one network
@settings(max_examples=40, deadline=None)
@given(
    board=played_boards(),
    dice=st.tuples(*[st.integers(1, 6)] * 4),
    minimum=st.integers(2, 3),
)
def test_self_play_takes_the_best_afterstate(
    kind: str, board: Board, dice: tuple[int, int, int, int], minimum: int
) -> None:
    """The C self-play's choice is the best score + value among the engine's staged results
    (or RUINS when there is none)."""
    empty = board.empty_count
    if not empty:
        return
    required = min(minimum, empty)
    assert fast._native is not None
    model = random_model(kind)
    value, after = fast._native.nt_best(bytes(board.cells), dice, required, model.weights.tobytes())
    values = []
    for order in staged_results(board, list(dice), required):
        values.append(NTupleValue(model)(board.with_numbers(order).cells, 0))
    if not values:
        for sq in range(16):
            if board.cells[sq] == EMPTY:
                cells = list(board.cells)
                cells[sq] = 7
                values.append(NTupleValue(model)(tuple(cells), 0))
    assert value == max(values)
    assert NTupleValue(model)(tuple(after), 0) == value


def test_the_shipped_form_is_int16_and_loses_at_most_half_a_step() -> None:
    data = encode_network(weights())
    back = decode_network(data)
    step = max(abs(w) for w in weights()) / 32767
    assert len(back) == SIZE
    assert max(abs(a - b) for a, b in zip(weights(), back, strict=True)) <= step / 2 + 1e-6
    assert decode_network(encode_network(back)) == back
    with pytest.raises(ValueError, match="not an n-tuple network"):
        decode_network(b"nonsense")


@pytest.mark.slow  # (make check leaves it out)
@needs_native
@pytest.mark.parametrize(
    ("difficulty", "learning", "masked", "powers"),
    [
        (Difficulty.NIGHTMARE, "tc", False, False),
        (Difficulty.NIGHTMARE, "td", False, False),
        (Difficulty.NIGHTMARE, "tc", True, False),
        (Difficulty.PEACEFUL, "td", False, True),  # the self-play with the powers
    ],
)
def test_training_is_seeded_and_resumes_to_the_same_weights(
    tmp_path: Path, difficulty: Difficulty, learning: str, masked: bool, powers: bool
) -> None:
    train = partial(train_network, learning=learning, masked=masked, powers=powers)
    whole = train(difficulty, 600, 5, chunk=200)
    checkpoint = tmp_path / "run.checkpoint"

    class Stop(Exception):
        pass

    def stop_after_one(run: Run) -> None:
        if run.done == 200:
            raise Stop

    with pytest.raises(Stop):
        train(difficulty, 600, 5, chunk=200, checkpoint=checkpoint, progress=stop_after_one)
    resumed = train(difficulty, 600, 5, chunk=200, checkpoint=checkpoint)
    assert resumed.weights == whole.weights
    assert resumed.curve == whole.curve and resumed.powers_used == whole.powers_used
    other = train(difficulty, 600, 6, chunk=200)
    assert other.weights != whole.weights
    assert "<svg" in curve_svg(whole)
    with pytest.raises(ValueError, match="another run"):
        train(difficulty, 900, 5, checkpoint=checkpoint)
    if powers:  # a run without the powers is another run too
        with pytest.raises(ValueError, match="another run"):
            train_network(difficulty, 600, 5, checkpoint=checkpoint, learning=learning)


@needs_native
@pytest.mark.parametrize("index", range(3))
def test_the_greedy_player_takes_the_best_option(index: int) -> None:
    """The network's greedy player (``ntuple``) chooses in C what its options rank first (the
    same learned value; a tie may pick another board of the same value)."""
    player = StrongPlayer(value="network", search=False, name="ntuple")
    game = Game.new(Difficulty.NIGHTMARE, seed=game_seed(3, index))
    while not game.is_over:
        if game.phase is Phase.PLACE:
            best = player.options(game)[0]
            plan = player.turn(game)
            trial = game.copy()
            for action in plan:
                trial.apply(action)
            ev = player.evaluator(game.difficulty)
            assert ev.learned(trial.board.cells, 0) == best.value
        for action in player.turn(game):
            game.apply(action)
    assert make_player("ntuple").name == "ntuple"
    assert make_player("linear").name == "linear"
