"""Training the strong player's weights: the regression, the seeds, reproducibility."""

from __future__ import annotations

import json
import random

import pytest

from magdagdon.ai.features import NAMES
from magdagdon.ai.simulate import game_seed
from magdagdon.ai.strong import load_models
from magdagdon.ai.train import dumps, ridge, train, training_seed
from magdagdon.engine import Difficulty, seed_bytes


def test_ridge_recovers_a_linear_rule() -> None:
    rng = random.Random(1)
    truth = [rng.uniform(-3, 3) for _ in NAMES]
    samples = []
    for _ in range(400):
        f = [rng.uniform(0, 4) for _ in NAMES]
        samples.append((f, 7.5 + sum(w * x for w, x in zip(truth, f, strict=True))))
    weights, bias = ridge(samples, l2=1e-6)
    assert bias == pytest.approx(7.5, abs=1e-3)
    assert weights == pytest.approx(truth, abs=1e-3)


def test_a_feature_never_seen_gets_no_weight() -> None:
    samples = [([1.0] + [0.0] * (len(NAMES) - 1), 3.0), ([2.0] + [0.0] * (len(NAMES) - 1), 5.0)]
    weights, bias = ridge(samples, l2=1e-9)
    assert weights[1:] == [0.0] * (len(NAMES) - 1)
    assert weights[0] == pytest.approx(2.0, abs=1e-3) and bias == pytest.approx(1.0, abs=1e-3)


def test_training_seeds_never_meet_evaluation_seeds() -> None:
    """Evaluation seeds are ints (8 bytes below 2**64); training seeds are longer byte strings."""
    train_seeds = {training_seed(s, r, i) for s in (0, 1) for r in range(3) for i in range(50)}
    assert all(len(s) > 8 for s in train_seeds)
    evaluation = {seed_bytes(game_seed(s, i)) for s in (0, 1, 7) for i in range(1000)}
    assert all(len(s) == 8 for s in evaluation)
    assert not train_seeds & evaluation


def test_training_is_reproducible_and_loadable() -> None:
    first = train(3, 2, seed=11, difficulties=(Difficulty.NIGHTMARE,))
    second = train(3, 2, seed=11, difficulties=(Difficulty.NIGHTMARE,), processes=2)
    assert dumps(first) == dumps(second)
    other = train(3, 1, seed=12, difficulties=(Difficulty.NIGHTMARE,))
    assert other["models"] != first["models"]
    models = load_models(dumps(first))
    assert set(models) == {Difficulty.NIGHTMARE}
    assert json.loads(dumps(first))["features"] == list(NAMES)


def test_the_searching_players_round_is_reproducible_and_refits() -> None:
    """The last round plays the searching player and its samples alone give the weights."""
    level = (Difficulty.NIGHTMARE,)
    first = train(2, 1, seed=11, difficulties=level, search_games=2)
    second = train(2, 1, seed=11, difficulties=level, search_games=2, processes=2)
    assert dumps(first) == dumps(second)
    assert first["search_games"] == 2
    without = train(2, 1, seed=11, difficulties=level)
    assert without["search_games"] == 0
    assert first["models"] != without["models"]


def test_the_shipped_weights_come_from_the_commands_defaults() -> None:
    """`magdagdon train --seed 0` with no other count fits the shipped file (README)."""
    from magdagdon.cli import TRAIN_GAMES, build_parser, search_games

    args = build_parser().parse_args(["train"])
    meta = next(iter(load_models().values())).meta
    assert args.games is None  # --network has its own default
    assert (meta["games_per_round"], meta["rounds"], meta["search_games"], meta["seed"]) == (
        TRAIN_GAMES,
        args.rounds,
        search_games(args),
        0,
    )
