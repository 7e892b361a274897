"""What the coach's processes run (:mod:`.coach_pool`): a hint, a review, a puzzle graded, a
daily's par, a finished game searched for puzzles.

A coach process is forked from a fork server that imported this module (``forkserver``), and
imports the module of each function it is given to run. This module imports only the engine and
the AI, never the server's libraries: a process that imported FastAPI, Pydantic and SQLAlchemy
with the rest of the web package spent about a second of CPU at its start, ten times what the
coach itself takes to load (``tests/test_architecture.py`` checks that nothing here brings
them in).
"""

from __future__ import annotations

import os
from contextlib import suppress
from typing import Any

from ..ai import coach
from ..ai import puzzles as P
from ..engine import Difficulty, Game, Phase
from .workers import exit_with_parent

INTERACTIVE_NICENESS = 10
"""The interactive coach processes' niceness (at least: a server started nicer than that keeps
its own), below the server's."""
BACKGROUND_NICENESS = 13
"""The background processes' niceness: below the interactive coach's (about half its share of
a busy core), not the lowest, which a loaded machine would starve for minutes."""


def start_child(niceness: int = INTERACTIVE_NICENESS) -> None:
    """In each coach process: yield the CPU to the game's requests (a lower priority; the
    background processes to the interactive ones too), end with the server process, and load
    the strong player now (its weights and tables), not during the first hint."""
    with suppress(OSError):
        os.nice(max(0, niceness - os.nice(0)))
    exit_with_parent()
    coach.new_player()


def hint_dict(game: Game) -> dict[str, Any]:
    """The coach's hint for ``game``, as the API's JSON."""
    return coach.hint(game).to_dict()


def review_dicts(game: Game) -> list[dict[str, Any]]:
    """The coach's review of a finished ``game``, turn by turn."""
    return [turn.to_dict() for turn in coach.review(game)]


def play_par(difficulty: Difficulty, seed: bytes) -> int:
    """The strong player's final score on these dice, deciding on what a player sees: it
    decides on a :meth:`~magdagdon.engine.Game.search_copy` of the game, which has no dice
    stream (the board, the dice rolled, the powers left; never a roll to come)."""
    game = Game.new(difficulty, seed=seed)
    player = coach.new_player()
    while game.phase is not Phase.OVER:
        for action in player.turn(game.search_copy()):
            game.apply(action)
    return game.score().total


def grade_plan(
    position: dict[str, Any], best_value: float, actions: list[Any], best: list[Any] | None = None
) -> Any:
    """An attempt at a puzzle graded: (yours, solved, your board, what it gave up against the
    ``best`` plan: :func:`~magdagdon.ai.puzzles.differences`) or the refusal's (code,
    message)."""
    try:
        found = P.Position.from_dict(position)
        grade = P.grade(found, best_value, actions, _analyst())
        after = P.play_plan(found, actions)
    except P.PlanRefused as refused:
        return ("refused", refused.code, str(refused))
    board = None if actions[-1]["type"] == "reroll" else str(after.board)
    gave_up = P.differences(found, actions, best) if best else []
    return ("graded", grade.yours, grade.solved, board, gave_up)


_players: dict[str, Any] = {}


def _analyst() -> Any:
    player = _players.get("analyst")
    if player is None:
        player = _players["analyst"] = P.analyst()
    return player


def mine_dicts(game: Game, game_id: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A finished game's public puzzles and its player's own, as JSON."""
    from ..mining import mine_game

    public, own = mine_game(game, game_id)
    return [p.to_dict() for p in public], [p.to_dict() for p in own]
