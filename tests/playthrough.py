"""Recorded playthroughs: a seeded game written out action by action, as text to diff."""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path

from magdagdon.ai.random_player import play_turn
from magdagdon.engine import Difficulty, Game, Phase

DIRECTORY = Path(__file__).parent / "playthroughs"
CASES = [(difficulty, seed) for difficulty in Difficulty for seed in (1, 2, 3, 4)]


def describe(game: Game) -> str:
    """One line of state: phase, permanent board, dice (value@square), required, powers, turns."""
    dice = " ".join(f"{d.value}@{d.cell if d.cell is not None else '-'}" for d in game.dice)
    return (
        f"{game.phase.value:<9} {game.board}  dice [{dice}]  required {game.required}  "
        f"powers {game.powers_used}  turns {game.turns}"
    )


def action_text(action: Mapping[str, object]) -> str:
    """An action in one short line."""
    args = " ".join(f"{k}={v}" for k, v in action.items() if k != "type")
    return f"{action['type']} {args}".strip()


def record(difficulty: Difficulty, seed: int) -> str:
    """Play the seeded game with the seeded random player (powers in MAGDAGDON) and write it out."""
    game = Game.new(difficulty, seed=seed)
    rng = random.Random(seed)
    lines = [
        f"# MAGDAGDON playthrough: {difficulty.value}, game seed {seed}, player seed {seed}",
        "# action  ->  phase, permanent board, dice value@square, required, powers used, turns",
    ]
    shown = 0
    while game.phase is not Phase.OVER:
        replay = game.copy()
        play_turn(game, rng, power_chance=0.7)
        for action in game.actions[shown:]:
            replay.apply(action)
            lines.append(f"{action_text(action):<28} -> {describe(replay)}")
        shown = len(game.actions)
    score = game.score()
    lines.append(
        f"final score {score.total} = base {score.base} + bonuses {score.bonuses} "
        f"- ruins {score.ruin_penalty} - powers {score.power_penalty}"
    )
    return "\n".join(lines) + "\n"


def path(difficulty: Difficulty, seed: int) -> Path:
    """Where a playthrough is stored."""
    return DIRECTORY / f"{difficulty.value}-{seed}.txt"
