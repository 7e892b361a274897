"""The engine's fast path (engine/_fastgame.c) against the pure-Python reference: the same
legal ids, transitions, observations and scores on many random positions."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

from magdagdon.engine import TURN_ACTIONS, Game, fast
from magdagdon.engine import encoding as enc

from .play import random_position

needs_native = pytest.mark.skipif(not fast.AVAILABLE, reason="the C fast path is not built")


def test_ci_builds_the_fast_path() -> None:
    """CI asks for it (.ci/run sets MAGDAGDON_REQUIRE_NATIVE): a failed build must not pass
    unnoticed as slower environments."""
    if os.environ.get("MAGDAGDON_REQUIRE_NATIVE"):
        assert fast.AVAILABLE


def test_the_environment_switches_it_off() -> None:
    code = (
        "from magdagdon.engine import fast as f; print(f.AVAILABLE, f.random_games('nightmare', 2))"
    )
    env = {**os.environ, "MAGDAGDON_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.startswith("False ([")  # and random games play in Python


np = pytest.importorskip("numpy")

PHASES = ["roll", "place", "magdagdon", "over"]
LEVELS = ["peaceful", "survival", "nightmare"]


def python_state(play: enc.EncodedGame) -> tuple[object, ...]:
    """The reference's state in the fast path's tuple (fast.FastGame.state)."""
    game = play.game
    dice = game.dice
    return (
        bytes(game.board.cells),
        LEVELS.index(game.difficulty.value),
        PHASES.index(game.phase.value),
        game.required,
        game.powers_used,
        game.turns,
        tuple(d.value for d in dice),
        tuple(d.cell for d in dice),
        tuple(game.staged),
        game.turn_actions,
        sum(1 << i for i in play.pending),
        game.reroll_slot,
    )


def agree(play: enc.EncodedGame, quick: fast.FastGame) -> None:
    state = python_state(play)
    assert quick.state()[:11] == state[:11]
    if play.game.dice:
        assert quick.state()[11] == state[11]
    obs = np.zeros(enc.OBS_SIZE, np.float32)
    quick.observe(obs)
    assert obs.tolist() == np.asarray(play.observation(), np.float32).tolist()
    assert quick.score() == play.score()
    assert quick.is_chance_node() == play.is_chance_node()
    assert quick.is_terminal() == play.is_terminal()
    assert quick.legal_actions() == play.legal_actions()
    if not play.is_chance_node() and not play.is_terminal():
        assert quick.dead_end() == play.game.dead_end


def play_both(play: enc.EncodedGame, quick: fast.FastGame, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        agree(play, quick)
        if play.is_terminal():
            return
        if play.is_chance_node():
            action = play.sample_outcome(rng)
        else:
            action = rng.choice(play.legal_actions())
        play.apply_action(action)
        quick.apply_action(action)
    agree(play, quick)


@needs_native
@pytest.mark.parametrize("seed", range(12))
def test_whole_random_games_agree(seed: int) -> None:
    rng = random.Random(seed)
    level = LEVELS[seed % 3]
    play_both(enc.EncodedGame(level), fast.FastGame(level), rng, 10_000)


@needs_native
def test_random_positions_agree_past_the_bound_too() -> None:
    rng = random.Random(5)
    for seed in range(60):
        game = random_position(seed, past_bound=seed % 2 == 1).search_copy()
        play = enc.EncodedGame(game.difficulty, game=game)
        play_both(play, fast.FastGame.from_game(game), rng, 12)


@needs_native
def test_dead_ends_past_the_bound_agree() -> None:
    """Past the bound a dead end may be left (take back) but not entered (stage)."""
    rng, found = random.Random(6), 0
    for seed in range(200):
        game = random_position(seed)
        stagings = [a for a in game.legal_actions() if a["type"] == "stage"]
        for action in stagings:
            trial = game.copy()
            trial.apply(action)
            if trial.dead_end:
                trial.turn_actions = TURN_ACTIONS
                trial = trial.search_copy()
                play = enc.EncodedGame(trial.difficulty, game=trial)
                play_both(play, fast.FastGame.from_game(trial), rng, 6)
                found += 1
                break
    assert found >= 5


@needs_native
def test_a_seeded_fast_game_meets_the_servers_dice() -> None:
    quick, rng = fast.FastGame("peaceful", seed=11), random.Random(0)
    ids: list[int] = []
    while not quick.is_terminal():
        if quick.is_chance_node():
            quick.roll_stream()
            continue
        ids.append(rng.choice(quick.legal_actions()))
        quick.apply_action(ids[-1])
    play = enc.EncodedGame("peaceful", seed=11)
    for action_id in ids:
        while play.is_chance_node():
            play.apply_action(play.stream_outcome())
        play.apply_action(action_id)
    assert play.score() == quick.score()
    server = Game.replay("peaceful", 11, play.game.actions)
    assert server.is_over and server.score().total == quick.score()


@needs_native
def test_random_games_are_reproducible_and_end() -> None:
    scores, decisions = fast.random_games("survival", 50, seed=3)
    assert (scores, decisions) == fast.random_games("survival", 50, seed=3)
    assert len(scores) == 50 and decisions >= 50 * 4  # a game has at least 4 turns
    assert all(-310 <= s <= 672 for s in scores)


@needs_native
def test_illegal_ids_are_refused() -> None:
    quick = fast.FastGame("nightmare")
    quick.apply_action(0)  # the chance node: outcome 0, four 1s
    with pytest.raises(ValueError):
        quick.apply_action(enc.CONFIRM)
    with pytest.raises(ValueError):
        quick.apply_action(enc.NUM_ACTIONS)


@needs_native
@pytest.mark.parametrize("seed", range(4))
def test_turn_level_games_agree(seed: int) -> None:
    rng = random.Random(seed)
    level = LEVELS[seed % 3]
    play = enc.EncodedGame(level, turn_level=True)
    quick = fast.FastGame(level, turn_level=True)
    while not play.is_terminal():
        assert quick.legal_actions() == play.legal_actions()
        assert quick.score() == play.score() and quick.state()[:11] == python_state(play)[:11]
        if play.is_chance_node():
            action = play.sample_outcome(rng)
        else:
            action = rng.choice(play.legal_actions())
            if play.game.phase.value == "place":
                codes, cells = quick.plans()
                for k in rng.sample(range(len(codes)), min(5, len(codes))):
                    trial = play.clone()
                    trial.apply_action(enc.PLAN + codes[k])
                    assert bytes(trial.game.board.cells) == cells[16 * k : 16 * k + 16]
        play.apply_action(action)
        quick.apply_action(action)
    assert quick.is_terminal() and quick.score() == play.score()
