"""magdagdon.gym.CandidateEnv: the turn level as a bounded list of candidates with a masked
index action (issue 47), for policy gradients: the candidates are the legal turn-level ids
(all of them when they fit), their features say what each does, the reward is the points the
features promised, seeded games are the server's."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from magdagdon.engine import Board, Game, score_board
from magdagdon.engine import encoding as enc

gymnasium = pytest.importorskip("gymnasium")
np = pytest.importorskip("numpy")
mgym = pytest.importorskip("magdagdon.gym")
env_checker = pytest.importorskip("gymnasium.utils.env_checker")

LEVELS = ["peaceful", "survival", "nightmare"]


def features(env: Any, obs: Any) -> Any:
    """The rows of the slots in an observation of ``env``."""
    return obs[enc.OBS_SIZE :].reshape(env.candidates, mgym.CANDIDATE_FEATURES)


@pytest.mark.parametrize("difficulty", LEVELS)
def test_gymnasiums_checker_passes(difficulty: str) -> None:
    for mode in ("ansi", "rgb_array"):
        env = gymnasium.make(
            "magdagdon.gym:MagdagdonCandidates-v0", difficulty=difficulty, render_mode=mode
        )
        env_checker.check_env(env.unwrapped)


def test_board_scores_are_the_engines() -> None:
    rng = random.Random(3)
    boards = np.array([[rng.randrange(8) for _ in range(16)] for _ in range(300)], np.uint8)
    boards[:20] = np.tile([3, 4, 5, 6], 4)  # straights and fours
    scores = mgym.board_scores(boards)
    for board, score in zip(boards, scores, strict=True):
        assert score == score_board(Board([int(v) for v in board])).total


@pytest.mark.parametrize("difficulty", LEVELS)
def test_the_candidates_are_the_legal_ids_and_keep_their_word(difficulty: str) -> None:
    """Random games: the slots hold legal turn-level ids, every one of them when they fit in
    the bound, else every power and RUIN and the plans that score the most; the most points
    first; a slot's points are its reward, its afterstate the board it leaves, its powers the
    powers it spends; the return is the final score, and the game replays on the engine."""
    env = gymnasium.make("magdagdon.gym:MagdagdonCandidates-v0", difficulty=difficulty)
    inner = env.unwrapped.inner
    rng = np.random.default_rng(5)
    seen_truncated = seen_power = False
    for seed in range(6):
        obs, info = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            mask, ids = info["action_mask"], info["candidates"]
            n = int(mask.sum())
            assert mask[:n].all() and not mask[n:].any() and (ids[n:] == -1).all()
            legal = set(inner.legal_ids())
            assert set(ids[:n].tolist()) <= legal and len(set(ids[:n].tolist())) == n
            if len(legal) <= env.unwrapped.candidates:
                assert set(ids[:n].tolist()) == legal
            else:
                seen_truncated = True
                assert {i for i in legal if i < enc.PLAN} <= set(ids[:n].tolist())
                every, boards = inner.afterstates()  # every plan (and RUIN), and its board
                gained = mgym.board_scores(boards) - mgym.board_scores(inner.board()[None])[0]
                kept = np.isin(every, ids[:n])
                assert gained[kept].min() >= gained[~kept].max()  # the plans that score most
            cand = features(env.unwrapped, obs)[:n]
            points = cand[:, mgym.CAND_POINTS]
            assert (np.diff(points) <= 1e-6).all()  # the most points first
            assert (cand[:, mgym.CAND_PRESENT] == 1).all() and (
                cand[:, mgym.CAND_KIND :][:, :5].sum(1) == 1
            ).all()
            slot = int(rng.choice(np.flatnonzero(mask)))
            chosen = int(ids[slot])
            power = enc.DECREASE <= chosen < enc.RUIN
            seen_power |= power
            assert cand[slot, mgym.CAND_POWERS] == power
            powers_before = inner.powers_used()
            obs, reward, terminated, truncated, info = env.step(slot)
            assert reward == pytest.approx(points[slot] * 100)
            assert inner.powers_used() == powers_before + power
            if not power:  # a plan or a RUIN: the board it left
                left_board = mgym._SQUARE_FEATURE[inner.board()]
                assert (cand[slot, :16] == left_board).all()
            total, done = total + float(reward), terminated or truncated
        assert total == info["score"] == env.unwrapped.replay().score()
    assert seen_truncated
    assert seen_power or difficulty == "nightmare"


def test_a_seed_is_the_servers_game_and_lists_the_same_candidates() -> None:
    env = mgym.CandidateEnv("survival")
    first, info = env.reset(seed=11)
    ids = info["candidates"].copy()
    again, info = env.reset(seed=11)
    assert (first == again).all() and (info["candidates"] == ids).all()
    server = Game.new("survival", seed=11)
    server.roll()
    assert (first[: enc.OBS_SIZE] == np.array(enc.observation(server), np.float32)).all()


def test_an_empty_slot_changes_nothing_and_outside_the_space_is_refused() -> None:
    env = mgym.CandidateEnv("nightmare")
    obs, info = env.reset(seed=2)
    while info["action_mask"].all():  # a decision with an empty slot
        obs, _, _, _, info = env.step(0)
    empty = int(np.flatnonzero(~info["action_mask"])[0])
    again, reward, *_, info = env.step(empty)
    assert (again == obs).all() and reward == 0 and info["illegal"]
    with pytest.raises(ValueError, match="action space"):
        env.step(env.candidates)
    with pytest.raises(TypeError, match="whole number"):
        env.step("0")
    assert not env.step(np.array([0]))[4].get("illegal")
    with pytest.raises(ValueError, match="at least 24"):
        mgym.CandidateEnv("nightmare", candidates=8)


def test_the_bound_is_a_parameter_and_the_observation_is_small() -> None:
    env = gymnasium.make("MagdagdonCandidates-v0", difficulty="peaceful", candidates=32)
    obs, info = env.reset(seed=1)
    assert env.action_space.n == 32 and info["action_mask"].shape == (32,)
    assert obs.shape == (enc.OBS_SIZE + 32 * mgym.CANDIDATE_FEATURES,)
    assert mgym.CandidateEnv().observation_space.shape == (269 + 64 * 25,)  # 1,869 numbers


def test_it_is_quick() -> None:
    """A policy gradient's steps are mostly the environment's at this size: some thousands a
    CPU second here (bounded generously: a loaded machine)."""
    env = mgym.CandidateEnv("peaceful")
    rng = np.random.default_rng(0)
    steps, start = 0, time.process_time()
    for seed in range(20):
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            _, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            steps += 1
    assert steps / (time.process_time() - start) > 500
