"""Hypothesis strategies for boards, dice and games shared by the engine tests."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from magdagdon.ai.random_player import play_turn
from magdagdon.engine import EMPTY, Board, Difficulty, Game, Phase, actions
from magdagdon.engine.game import TURN_ACTIONS

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


def chaotic_turn(game: Game, rng: random.Random, power_chance: float = 0.08) -> None:
    """Play one whole turn with every kind of action a person may send: stage, take one
    die or all dice back and stage again, DECREASE/INCREASE and REROLL of any subset in
    PLACE and in MAGDAGDON, CONFIRM above the minimum, and a RUIN on any empty square (one
    under a staged die too). Every action is legal, past R17's bound too (only what finishes
    the turn: no take-back but out of a dead end, no staging into one); the turn always ends."""
    game.roll()
    for _ in range(500):
        if game.phase in (Phase.ROLL, Phase.OVER):
            return
        tray = [d.index for d in game.dice if d.in_tray]
        r = rng.random()
        if game.powers_left and tray and r < power_chance:
            if rng.random() < 0.5:
                game.reroll(rng.sample(tray, rng.randint(1, len(tray))))
            else:
                die = game.dice[rng.choice(tray)]
                up = die.value == 1 or (die.value < 6 and rng.random() < 0.5)
                game.adjust(die.index, 1 if up else -1)
        elif game.staged and r < 0.2 and (game.turn_actions < TURN_ACTIONS or game.dead_end):
            if rng.random() < 0.5:
                game.unstage_all()
            else:
                game.unstage(rng.choice(game.staged))
        elif game.phase is Phase.MAGDAGDON:
            game.accept_magdagdon(rng.choice([sq for sq in range(16) if game.board[sq] == EMPTY]))
        else:
            moves = [(d.index, sq) for d in game.dice if d.in_tray for sq in game.legal_cells(d)]
            if game.turn_actions >= TURN_ACTIONS:
                moves = [m for m in moves if game.bound_violation(actions.stage(*m)) is None]
            if game.can_confirm and (not moves or rng.random() < 0.3):
                game.confirm()
            elif moves:
                game.stage(*rng.choice(moves))
            else:  # a dead end (R7): start the turn's staging again
                game.unstage_all()
    raise AssertionError("a chaotic turn did not end")


@st.composite
def chaotic_games(draw: st.DrawFn) -> Game:
    """A finished game played by :func:`chaotic_turn` (powers, take-backs, rerolls)."""
    seed = draw(st.integers(0, 2**32))
    game = Game.new(draw(difficulties), seed=seed)
    rng = random.Random(seed)
    while game.phase is not Phase.OVER:
        chaotic_turn(game, rng)
    return game
