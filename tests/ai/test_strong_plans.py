"""The coach sees every legal plan of a turn: every plan the engine allows, found here by
walking the engine's own legal actions (a deliberately simple second enumeration), is among
the strong player's candidates up to equivalence, and every candidate is a legal plan.

Before, the coach offered a REROLL only on a roll that could not be placed and at most one
±1 change a turn, so puzzles, hints and pars were blind to plans like "DECREASE the 4 twice
for a FOUR" or a REROLL of a placeable roll. Equivalence: the same afterstate with the same
powers left, or as many dice rerolled keeping the same values with the same powers left
(staging a die before a REROLL only keeps it out of the REROLL, which is a plan here too).
The full run over more positions is a benchmark (``python -m benchmarks.plans``)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from magdagdon.ai.strong import StrongPlayer
from magdagdon.engine import Difficulty, Game, Phase

Plan = tuple[Any, ...]


def positions(difficulty: Difficulty, count: int, seed: int = 0) -> Iterator[Game]:
    """Decisions of random games (``seed``) with a power held: a roll to place or a
    MAGDAGDON, nothing staged."""
    rng = random.Random(seed)
    found = 0
    game_index = 0
    while True:
        game = Game.new(difficulty, seed=seed * 100_003 + game_index)
        game_index += 1
        while game.phase is not Phase.OVER:
            game.roll()
            if game.powers_left and game.phase in (Phase.PLACE, Phase.MAGDAGDON):
                yield game.copy()
                found += 1
                if found == count:
                    return
            # a power now and then, so that later decisions hold fewer
            if game.phase is Phase.MAGDAGDON and game.powers_left and rng.random() < 0.3:
                tray = [d.index for d in game.dice if d.in_tray]
                game.reroll(rng.sample(tray, rng.randint(1, len(tray))))
            finish_turn(game, rng)


def finish_turn(game: Game, rng: random.Random) -> None:
    """The rest of a rolled turn, at random: a RUIN, or one of the turn's placements."""
    if game.phase is Phase.MAGDAGDON:
        game.accept_magdagdon(rng.choice(game.ruin_choices))
        return
    for action in rng.choice(game.turn_plans()):
        game.apply(action)


def every_plan(game: Game) -> set[Plan]:
    """Every plan of the turn from ``game`` (nothing staged), walked through the engine's legal
    actions: any ±1 changes, then a placement (``turn_plans``), a RUIN or a REROLL."""
    found: set[Plan] = set()
    walked: set[tuple[tuple[int, ...], int]] = set()

    def walk(g: Game) -> None:
        key = (tuple(d.value for d in g.dice), g.powers_used)
        if key in walked:
            return
        walked.add(key)
        if g.phase is Phase.PLACE:
            values = [d.value for d in g.dice]
            for plan in g.turn_plans():  # (each ends in CONFIRM: its stagings are the turn's)
                cells = list(g.board.cells)
                for action in plan:
                    if action["type"] == "stage":
                        cells[action["cell"]] = values[action["die"]]
                found.add(("after", tuple(cells), g.powers_left))
        elif g.phase is Phase.MAGDAGDON:
            for square in g.ruin_choices:
                trial = g.copy()
                trial.accept_magdagdon(square)
                found.add(("after", trial.board.cells, trial.powers_left))
        for action in g.legal_actions():
            if action["type"] == "adjust":
                trial = g.copy()
                trial.apply(action)
                walk(trial)
            elif action["type"] == "reroll":
                chosen = set(action["dice"])
                kept = tuple(sorted(d.value for d in g.dice if d.index not in chosen))
                found.add(("reroll", kept, len(chosen), g.powers_left - 1))

    walk(game)
    return found


def candidate_plans(player: StrongPlayer, game: Game) -> set[Plan]:
    """The strong player's candidates as plans, each played on a copy (so each is legal)."""
    found: set[Plan] = set()
    for option in player.candidates(game):
        trial = game.copy()
        for action in option.actions:
            if action["type"] == "reroll":
                chosen = set(action["dice"])
                kept = tuple(sorted(d.value for d in trial.dice if d.index not in chosen))
                trial.apply(action)
                assert trial.powers_left == option.powers_left
                found.add(("reroll", kept, len(chosen), option.powers_left))
                break
            trial.apply(action)
        else:
            assert trial.board.cells == option.after, option.actions
            assert trial.powers_left == option.powers_left
            assert trial.turns == game.turns + 1  # the turn ended
            found.add(("after", option.after, option.powers_left))
    return found


@pytest.mark.parametrize("difficulty", [Difficulty.PEACEFUL, Difficulty.SURVIVAL])
def test_every_legal_plan_is_a_candidate(difficulty: Difficulty) -> None:
    player = StrongPlayer(search=False)
    kinds = {"power": 0, "magdagdon": 0}
    for game in positions(difficulty, 20, seed=difficulty is Difficulty.SURVIVAL):
        plans = every_plan(game)
        candidates = candidate_plans(player, game)
        missing = plans - candidates
        assert not missing, (
            game.board.cells,
            [d.value for d in game.dice],
            sorted(map(str, missing))[:5],
        )
        assert candidates <= plans
        kinds["magdagdon"] += game.phase is Phase.MAGDAGDON
        kinds["power"] += any(p[0] == "after" and p[2] < game.powers_left for p in plans)
    # the sample holds both kinds of decision, with plans that spend powers
    assert kinds["magdagdon"] >= 2 and kinds["power"] >= 16, kinds


def test_a_reroll_of_a_placeable_roll_and_two_changes_are_weighed() -> None:
    """PEACEFUL: the coach weighs both in the options it plays (past the power margin)."""
    game = Game.from_position("peaceful", "..../.34./..../....", (2, 3, 5, 6))
    options = StrongPlayer(search=False, power_margin=-1000).options(game)
    kinds = {
        tuple(a["type"] for a in o.actions if a["type"] in ("adjust", "reroll")) for o in options
    }
    assert ("reroll",) in kinds
    assert ("adjust", "adjust") in kinds
    assert ("adjust", "adjust", "adjust") in kinds


@pytest.mark.parametrize("difficulty", [Difficulty.PEACEFUL, Difficulty.SURVIVAL])
def test_the_power_margin_prunes_only_what_it_would_drop(difficulty: Difficulty) -> None:
    """On a roll to place, the placements after ±1 changes are listed only where their best
    may pass the power margin: what the player weighs is what the whole list filtered by the
    margin gives."""
    player = StrongPlayer(search=False)
    for game in positions(difficulty, 40, seed=5):
        if game.phase is not Phase.PLACE:
            continue
        every = player.candidates(game)
        plain = [o for o in every if o.powers_left == game.powers_left]
        bar = max(o.value for o in plain) + player.power_margin
        kept = plain + [o for o in every if o.powers_left < game.powers_left and o.value > bar]
        weighed = player.options(game)
        assert sorted((str(o.actions), o.value) for o in weighed) == sorted(
            (str(o.actions), o.value) for o in kept
        )
