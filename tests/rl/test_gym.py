"""magdagdon.gym: Gymnasium's own checker on every difficulty and both action levels, the
returns equal the engine's final scores, seeded games are the server's, rendering."""

from __future__ import annotations

import doctest
from typing import Any

import pytest

from magdagdon.engine import Game, fast

gymnasium = pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")
mgym = pytest.importorskip("magdagdon.gym")
env_checker = pytest.importorskip("gymnasium.utils.env_checker")

LEVELS = ["peaceful", "survival", "nightmare"]


@pytest.mark.parametrize("difficulty", LEVELS)
@pytest.mark.parametrize("turn_level", [False, True])
def test_gymnasiums_checker_passes(difficulty: str, turn_level: bool) -> None:
    for mode in ("ansi", "rgb_array"):
        env = gymnasium.make(
            "Magdagdon-v0", difficulty=difficulty, turn_level=turn_level, render_mode=mode
        )
        env_checker.check_env(env.unwrapped)


def play(env: Any, seed: int, rng: Any) -> tuple[float, dict[str, Any]]:
    obs, info = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        assert env.observation_space.contains(obs)
        mask = env.unwrapped.action_masks()
        assert (mask == info["action_mask"]).all()
        action = rng.choice(np.flatnonzero(mask))
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        done = terminated or truncated
        assert not truncated
    return total, info


@pytest.mark.parametrize("turn_level", [False, True])
@pytest.mark.parametrize("use_fast", [False, None])
def test_returns_are_the_engines_final_scores_of_the_servers_games(
    turn_level: bool, use_fast: bool | None
) -> None:
    rng = np.random.default_rng(1)
    for k, difficulty in enumerate(LEVELS):
        env = gymnasium.make(
            "Magdagdon-v0", difficulty=difficulty, turn_level=turn_level, use_fast=use_fast
        )
        seed = 100 + k
        total, info = play(env, seed, rng)
        assert total == info["score"]
        replayed = env.unwrapped.replay()
        assert replayed.is_terminal() and replayed.score() == total
        server = Game.replay(difficulty, seed, replayed.game.actions)
        assert server.is_over and server.score().total == total


def test_the_fast_path_and_python_give_the_same_episodes() -> None:
    if not fast.AVAILABLE:
        pytest.skip("the C fast path is not built")
    quick = gymnasium.make("Magdagdon-v0", difficulty="peaceful", use_fast=True)
    slow = gymnasium.make("Magdagdon-v0", difficulty="peaceful", use_fast=False)
    for seed in range(3):
        a, b = quick.reset(seed=seed), slow.reset(seed=seed)
        rng, done = np.random.default_rng(seed), False
        while not done:
            assert (a[0] == b[0]).all() and (a[-1]["action_mask"] == b[-1]["action_mask"]).all()
            action = rng.choice(np.flatnonzero(a[-1]["action_mask"]))
            a, b = quick.step(action), slow.step(action)
            assert a[1:4] == b[1:4]
            done = a[2]


def test_an_illegal_action_changes_nothing() -> None:
    env = gymnasium.make("Magdagdon-v0", difficulty="nightmare")
    obs, info = env.reset(seed=4)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    again, reward, terminated, truncated, info = env.step(illegal)
    assert (again == obs).all() and reward == 0 and not terminated and not truncated
    assert info["illegal"]


@pytest.mark.parametrize("action", ["3", 1.7, 3.0, True, None, [3]])
def test_an_action_that_is_no_whole_number_is_refused(action: Any) -> None:
    """As the Discrete space holds only whole numbers (it was cast with int() before)."""
    env = gymnasium.make("Magdagdon-v0", difficulty="nightmare").unwrapped
    _, info = env.reset(seed=4)
    legal = int(np.flatnonzero(info["action_mask"])[0])
    with pytest.raises(TypeError, match="whole number"):
        env.step(action)
    for same in (legal, np.int64(legal), np.array(legal)):  # an int, NumPy's, a 0-d array
        again = env.unwrapped
        again.reset(seed=4)
        assert not again.step(same)[4].get("illegal")


@pytest.mark.parametrize("turn_level", [False, True])
def test_an_action_outside_the_action_space_is_refused(turn_level: bool) -> None:
    """-1 and 10**9 are no ids of the Discrete space: a ValueError, as "3" is a TypeError
    (they were once taken for illegal moves, which are ids of the space)."""
    env = gymnasium.make("Magdagdon-v0", difficulty="nightmare", turn_level=turn_level)
    _, info = env.reset(seed=4)
    size = int(env.action_space.n)
    for outside in (-1, 10**9, size, np.int64(-1), np.array([size])):
        with pytest.raises(ValueError, match="action space"):
            env.step(outside)
    for bad in (np.array([1.0]), np.array([True]), np.array([1, 2])):
        with pytest.raises(TypeError, match="whole number"):
            env.step(bad)
    illegal = int(np.flatnonzero(~info["action_mask"])[-1])  # in the space, not legal now
    assert env.step(illegal)[4]["illegal"]


@pytest.mark.parametrize("shape", [(1,), (1, 1)])
def test_a_one_element_integer_array_is_an_action(shape: tuple[int, ...]) -> None:
    """As Gymnasium's wrappers and vector code may pass one: np.array([id]) plays the id."""
    env = gymnasium.make("Magdagdon-v0", difficulty="nightmare")
    twin = gymnasium.make("Magdagdon-v0", difficulty="nightmare")
    _, info = env.reset(seed=4)
    twin.reset(seed=4)
    legal = int(np.flatnonzero(info["action_mask"])[0])
    for dtype in (np.int64, np.int32, np.uint8):
        played = env.step(np.full(shape, legal, dtype=dtype))
        expected = twin.step(legal)
        assert not played[4].get("illegal")
        assert (played[0] == expected[0]).all() and played[1:4] == expected[1:4]
        legal = int(np.flatnonzero(played[4]["action_mask"])[0])


def test_it_is_made_without_importing_it_and_in_vectors() -> None:
    env = gymnasium.make("magdagdon.gym:Magdagdon-v0", difficulty="survival", turn_level=True)
    assert env.action_space.n == 158 + 17**4
    vec = mgym.make_vec(4, difficulty="nightmare")
    obs, infos = vec.reset(seed=7)
    assert obs.shape == (4, 269) and infos["action_mask"].shape == (4, 158)
    actions = [int(np.flatnonzero(m)[0]) for m in infos["action_mask"]]
    obs, rewards, terminated, truncated, infos = vec.step(np.array(actions))
    assert obs.shape == (4, 269) and rewards.shape == (4,)
    assert not terminated.any() and not truncated.any()


def test_rendering() -> None:
    env = gymnasium.make("Magdagdon-v0", difficulty="peaceful", render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert text.splitlines()[0].startswith("PEACEFUL turn 1 PLACE score 0 powers 3 required 2")
    assert text.splitlines()[-1] == "tray: 4 1 3 6"
    picture = gymnasium.make("Magdagdon-v0", render_mode="rgb_array")
    picture.reset(seed=3)
    image = picture.render()
    assert image.dtype == np.uint8 and image.shape == (164, 128, 3)


@pytest.mark.skipif(not fast.AVAILABLE, reason="the C fast path is not built")
def test_rendering_on_the_fast_path_draws_the_position_without_replaying(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """render() drew the fast path's game by replaying it from the start (4 ms at step 20,
    17 ms at step 180): it now draws the position, the same text and picture as the
    pure-Python engine's, at every step of a whole game (pending REROLLs included)."""
    envs = {
        (mode, use_fast): gymnasium.make(
            "Magdagdon-v0", difficulty="survival", render_mode=mode, use_fast=use_fast
        )
        for mode in ("ansi", "rgb_array")
        for use_fast in (True, False)
    }
    monkeypatch.setattr(
        mgym.MagdagdonEnv, "replay", lambda self: pytest.fail("render() replayed the game")
    )
    infos = {key: env.reset(seed=8)[1] for key, env in envs.items()}
    rng, done, steps = np.random.default_rng(8), False, 0
    while not done:
        text = envs["ansi", True].render()
        assert text == envs["ansi", False].render()
        assert np.array_equal(envs["rgb_array", True].render(), envs["rgb_array", False].render())
        legal = np.flatnonzero(infos["ansi", True]["action_mask"])
        action = legal[rng.integers(len(legal))]
        for key, env in envs.items():
            _, _, done, _, infos[key] = env.step(action)
        steps += 1
    assert steps > 40


def test_the_modules_examples_run() -> None:
    assert doctest.testmod(mgym).failed == 0


def test_afterstates_are_the_boards_the_turn_ending_ids_leave() -> None:
    for use_fast in (False, None):
        env = gymnasium.make(
            "Magdagdon-v0", difficulty="nightmare", turn_level=True, use_fast=use_fast
        )
        _, info = env.reset(seed=5)
        rng, done, seen = np.random.default_rng(5), False, 0
        while not done:
            ids, boards = env.unwrapped.afterstates()
            assert set(ids) <= set(np.flatnonzero(info["action_mask"]))
            k = int(rng.integers(len(ids)))
            _, _, done, _, info = env.step(ids[k])
            replayed = env.unwrapped.replay().game
            assert list(replayed.board.cells) == boards[k].tolist()
            seen += 1
        assert seen >= 6
