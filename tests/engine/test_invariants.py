"""Random play keeps every invariant; rejected actions change nothing (Hypothesis)."""

from __future__ import annotations

import random
from typing import Any, cast

from hypothesis import given, settings
from hypothesis import strategies as st

from magdagdon.engine import (
    Action,
    Board,
    Difficulty,
    Game,
    Phase,
    RuleViolation,
    find_placement,
)
from magdagdon.engine.board import NEIGHBOURS, bits

from .. import reference


def connected(board: Board) -> bool:
    """The numbers form one orthogonally connected field."""
    squares = set(bits(board.numbers))
    if not squares:
        return True
    seen, todo = set(), [min(squares)]
    while todo:
        sq = todo.pop()
        if sq in seen:
            continue
        seen.add(sq)
        todo.extend(n for n in bits(NEIGHBOURS[sq]) if n in squares)
    return seen == squares


def within_one(board: Board) -> bool:
    """Every two adjacent numbers differ by at most 1."""
    for sq in bits(board.numbers):
        for n in bits(NEIGHBOURS[sq] & board.numbers):
            if abs(board[sq] - board[n]) > 1:
                return False
    return True


def random_action(game: Game, rng: random.Random) -> dict[str, Any]:
    """Any action at all, legal or not, biased toward plausible ones."""
    kind = rng.choice(
        [
            "roll",
            "stage",
            "stage",
            "stage",
            "stage",
            "unstage",
            "unstage_all",
            "confirm",
            "confirm",
            "adjust",
            "reroll",
            "accept_magdagdon",
            "accept_magdagdon",
        ]
    )
    if kind == "stage":
        die = rng.randrange(5)
        legal = sorted(game.legal_cells(die)) if die < len(game.dice) else []
        cell = rng.choice(legal) if legal and rng.random() < 0.8 else rng.randrange(-1, 17)
        return {"type": "stage", "die": die, "cell": cell}
    if kind == "unstage":
        return {"type": "unstage", "die": rng.randrange(4)}
    if kind == "adjust":
        return {"type": "adjust", "die": rng.randrange(4), "delta": rng.choice([-1, 1, 2])}
    if kind == "reroll":
        return {"type": "reroll", "dice": rng.sample(range(4), rng.randint(0, 3))}
    if kind == "accept_magdagdon":
        return {"type": "accept_magdagdon", "cell": rng.randrange(16)}
    return {"type": kind}


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(list(Difficulty)))
def test_random_actions_keep_every_invariant(seed: int, difficulty: Difficulty) -> None:
    rng = random.Random(seed)
    game = Game.new(difficulty, seed=seed)
    for _ in range(600):
        if game.phase is Phase.OVER:
            break
        before = game.to_dict()
        action = random_action(game, rng)
        try:
            game.apply(cast(Action, action))  # any JSON, as a client may send it
        except RuleViolation as exc:
            assert exc.code and exc.message
            assert game.to_dict() == before, action  # a rejected action changes nothing
            continue
        board = game.board
        assert connected(board) and within_one(board)
        staged = game.staged_board
        assert within_one(staged)
        assert 0 <= game.powers_used <= difficulty.powers
        if game.phase is Phase.PLACE:
            # R5: a legal set of `required` dice exists with the turn's four values
            assert find_placement(board, [d.value for d in game.dice], game.required) is not None
            assert len(game.staged) <= 4
        if game.phase is Phase.MAGDAGDON:
            grid = reference.grid(str(board))
            assert reference.is_magdagdon(grid, [d.value for d in game.dice], game.required)
        score = game.score()
        assert score.total == reference.score(reference.grid(str(board)), game.power_penalty)
    # the same log replays to the same game
    assert Game.replay(difficulty, game.seed, game.actions).to_dict() == game.to_dict()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(list(Difficulty)))
def test_every_game_ends(seed: int, difficulty: Difficulty) -> None:
    """Playing to the end always finishes within 16 turns, with a full board."""
    from magdagdon.ai.random_player import play_game

    game = play_game(Game.new(difficulty, seed=seed), random.Random(seed))
    assert game.phase is Phase.OVER and game.board.is_full
    assert game.turns <= 16
    assert connected(game.board) and within_one(game.board)
    total = game.score().total
    assert total == reference.score(reference.grid(str(game.board)), game.power_penalty)
