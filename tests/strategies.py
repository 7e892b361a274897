"""Hypothesis strategies for boards, dice and games shared by the engine tests."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from magdagdon.ai.random_player import play_turn
from magdagdon.engine import Board, Difficulty, Game, Phase

SQUARE_CHARS = ".123456X"


@st.composite
def boards(draw: st.DrawFn, max_numbers: int = 16) -> Board:
    """Any board: squares drawn independently, with a varying share of numbers and ruins."""
    weight = draw(st.sampled_from(["sparse", "mixed", "dense"]))
    chars = {
        "sparse": "............123456X",
        "mixed": "......123456123456X",
        "dense": "..123456123456123456X",
    }[weight]
    squares = draw(st.lists(st.sampled_from(chars), min_size=16, max_size=16))
    return Board.parse("/".join("".join(squares[i : i + 4]) for i in range(0, 16, 4)))


dice = st.lists(st.integers(1, 6), min_size=1, max_size=4)
four_dice = st.lists(st.integers(1, 6), min_size=4, max_size=4)
difficulties = st.sampled_from(list(Difficulty))


@st.composite
def played_games(draw: st.DrawFn) -> Game:
    """A game part-way through random play, waiting for ROLL (or over)."""
    seed = draw(st.integers(0, 2**32))
    difficulty = draw(difficulties)
    turns = draw(st.integers(0, 8))
    rng = random.Random(seed)
    game = Game.new(difficulty, seed=seed)
    for _ in range(turns):
        if game.phase is Phase.OVER:
            break
        play_turn(game, rng)
    return game


@st.composite
def played_boards(draw: st.DrawFn) -> Board:
    """A board reached by random play: one connected field, ruins here and there."""
    return draw(played_games()).board
