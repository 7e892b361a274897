"""Self-play with the Majda Powers (issue 36): the C player's choice of a roll against a
deliberately simple Python reference (the engine's staged results, the networks' Python
values), and training with a network per number of powers left: seeded, resumable, and
using the powers."""

from __future__ import annotations

import random
from array import array
from collections.abc import Sequence
from itertools import combinations_with_replacement

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from magdagdon.ai import fast
from magdagdon.ai.features import quick_score
from magdagdon.ai.ntrain import train_network
from magdagdon.ai.ntuple import SIZE, network_value
from magdagdon.engine import EMPTY, RUIN, Board, Difficulty, staged_results

from ..strategies import played_boards

needs_native = pytest.mark.skipif(not fast.AVAILABLE, reason="the C accelerator is not built")

PENALTIES = Difficulty.PEACEFUL.penalties
POWERS = len(PENALTIES)


def _networks(seed: int) -> list[array[float]]:
    rng = random.Random(seed)
    return [array("f", (rng.gauss(0, 3) for _ in range(SIZE))) for _ in range(POWERS + 1)]


NETWORKS = _networks(36)
NETWORK_BYTES = b"".join(n.tobytes() for n in NETWORKS)


def _value(cells: Sequence[int], left: int) -> float:
    return float(quick_score(tuple(cells))) + network_value(cells, NETWORKS[left])


def _best_play(board: Board, dice: Sequence[int], required: int, left: int) -> tuple[float, bool]:
    """The best score + value of a roll played as it is with ``left`` powers' network, and
    whether it was placed (else its best RUIN)."""
    placed = [
        _value(board.with_numbers(order).cells, left)
        for order in staged_results(board, list(dice), required)
    ]
    if placed:
        return max(placed), True
    ruined = []
    for sq in range(16):
        if board.cells[sq] == EMPTY:
            cells = list(board.cells)
            cells[sq] = RUIN
            ruined.append(_value(cells, left))
    return max(ruined), False


def reference_choice(
    board: Board, dice: tuple[int, ...], required: int, left: int, margin: float
) -> tuple[int, float]:
    """The choice's kind (0 as it is, 1 a die changed, 2 a REROLL) and value, as the C
    self-play is documented to choose (``power_choice`` in ``_fast.c``)."""
    as_is, placeable = _best_play(board, dice, required, left)
    kind, best = 0, as_is
    if not left:
        return kind, best
    cost = float(PENALTIES[POWERS - left])
    for i in range(4):
        for delta in (-1, 1):
            if not 1 <= dice[i] + delta <= 6:
                continue
            changed = list(dice)
            changed[i] += delta
            value, ok = _best_play(board, changed, required, left - 1)
            value -= cost
            if ok and value > best and (not placeable or value > as_is + margin):
                kind, best = 1, value
    if placeable:
        return kind, best
    top: dict[tuple[int, ...], float] = {}
    for roll in combinations_with_replacement(range(1, 7), 4):
        top[roll] = _best_play(board, roll, required, left - 1)[0]
    for chosen in range(1, 16):
        kept = [dice[i] for i in range(4) if not chosen >> i & 1]
        n = 4 - len(kept)
        total = 0.0
        for o in range(6**n):  # the C code's order of the outcomes, for the same sum
            new, x = list(kept), o
            for _ in range(n):
                new.append(1 + x % 6)
                x //= 6
            total += top[tuple(sorted(new))]
        value = total / 6**n - cost
        if value > best:
            kind, best = 2, value
    return kind, best


@needs_native
@settings(max_examples=40, deadline=None)
@given(
    board=played_boards(),
    dice=st.tuples(*[st.integers(1, 6)] * 4),
    left=st.integers(0, POWERS),
    margin=st.sampled_from([0.0, 10.0]),
)
def test_the_c_choice_is_the_references(
    board: Board, dice: tuple[int, int, int, int], left: int, margin: float
) -> None:
    empty = board.empty_count
    if not empty:
        return
    required = min(2, empty)
    assert fast._native is not None
    kind, value, after, _, _ = fast._native.nt_power_choice(
        bytes(board.cells), dice, required, left, NETWORK_BYTES, POWERS, PENALTIES, margin
    )
    assert (kind, value) == reference_choice(board, dice, required, left, margin)
    if kind != 2:  # the board left is worth the value (its power's penalty paid)
        cost = PENALTIES[POWERS - left] if kind == 1 else 0
        assert _value(after, left - (kind == 1)) - cost == value


@needs_native
def test_a_power_rescues_the_last_square() -> None:
    """The last square sits among 1s: a roll of 6, 6, 6, 3 cannot be placed, but the 3 made a
    2 can (and a REROLL may bring the 1 that makes two FOURs). With no power left the roll
    is a RUIN; with one, a power is worth its penalty."""
    board = Board.parse("1111/1111/1111/111.")
    zero = array("f", bytes(4 * SIZE)) * (POWERS + 1)
    assert fast._native is not None
    choose = fast._native.nt_power_choice
    kind, _, after, placed, _ = choose(
        bytes(board.cells), (6, 6, 6, 3), 1, 0, zero.tobytes(), POWERS, PENALTIES, 0.0
    )
    assert (kind, placed, after[15]) == (0, 0, RUIN)
    for left in range(1, POWERS + 1):
        kind, value, after, die, delta = choose(
            bytes(board.cells), (6, 6, 6, 3), 1, left, zero.tobytes(), POWERS, PENALTIES, 0.0
        )
        assert kind in (1, 2)
        assert (kind, value) == reference_choice(board, (6, 6, 6, 3), 1, left, 0.0)
        if kind == 1:
            assert (die, delta, after[15]) == (3, -1, 2)


@needs_native
def test_training_with_powers_uses_them_with_a_network_per_count() -> None:
    """(Seeded and resumable: tests/ai/test_ntuple.py trains a run with the powers too.)"""
    run = train_network(Difficulty.PEACEFUL, 400, 7, chunk=200, powers=True)
    assert len(run.weights) == (POWERS + 1) * SIZE
    assert run.powers_used > 0 and run.curve[-1][1] != 0
    with pytest.raises(ValueError, match="TD"):
        train_network(Difficulty.PEACEFUL, 10, 7, powers=True, learning="tc")


@needs_native
def test_the_strong_player_and_the_coach_play_with_a_network_per_power_count() -> None:
    """Networks trained with the powers are a value the strong player and the coach use as
    they are (the search's rescues value a die changed with one power fewer); a game
    played with them is legal to the end, and a hint's plan plays."""
    from magdagdon.ai import coach
    from magdagdon.ai.ntuple import NTupleModel
    from magdagdon.ai.strong import StrongPlayer
    from magdagdon.engine import Game, Phase

    run = train_network(Difficulty.PEACEFUL, 300, 11, chunk=300, powers=True)
    model = NTupleModel(Difficulty.PEACEFUL, run.weights)
    assert model.per_power
    player = StrongPlayer(model, breadth=4)
    game = Game.new("peaceful", seed=12)
    while game.phase is not Phase.OVER:
        if game.phase is not Phase.ROLL:
            hint = coach.hint(game, player)
            assert hint.plan and hint.expected_score == hint.expected_score  # not NaN
        for action in player.turn(game):
            game.apply(action)
    assert game.board.empty_count == 0
