"""The simulator: reproducible runs, the summary's keys, paired comparisons, processes, plots."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from magdagdon.ai.registry import make_player
from magdagdon.ai.simulate import GameResult, histogram_svg, paired, run_games, summarize
from magdagdon.ai.strong import load_models
from magdagdon.cli import main
from magdagdon.engine import DiceStream, Difficulty

from ..test_cli import run

KEYS = {
    "bot",
    "difficulty",
    "games",
    "seed",
    "mean",
    "ci95",
    "sd",
    "ruins_per_game",
    "ms_per_decision_p50",
    "ms_per_decision_p99",
    "percentiles",
    "bonuses_per_game",
    "powers_per_game",
}


def test_runs_are_reproducible_and_processes_change_nothing() -> None:
    one = run_games("random", "survival", 12, seed=3)
    again = run_games("random", "survival", 12, seed=3)
    two = run_games("random", "survival", 12, seed=3, processes=2)

    def strip(results: list[GameResult]) -> list[tuple[int, int, int, int]]:
        return [(r.index, r.score, r.turns, r.ruins) for r in results]

    assert strip(one) == strip(again) == strip(two)
    assert strip(one) != strip(run_games("random", "survival", 12, seed=4))


def test_summary_has_the_documented_keys() -> None:
    summary = summarize(run_games("greedy", "peaceful", 10, seed=1), "greedy", "peaceful", 1)
    assert set(summary) >= KEYS
    assert summary["games"] == 10 and summary["ci95"] > 0
    assert (
        summary["percentiles"]["p5"]
        <= summary["percentiles"]["p50"]
        <= summary["percentiles"]["p95"]
    )


def test_paired_comparison_uses_the_same_dice() -> None:
    a = run_games("greedy", "nightmare", 15, seed=2)
    b = run_games("random", "nightmare", 15, seed=2)
    diff = paired(a, b)
    assert diff["games"] == 15
    assert diff["mean_difference"] == sum(x.score - y.score for x, y in zip(a, b, strict=True)) / 15
    # both bots met the same first roll in every game: the stream depends on (seed, turn, slot)
    from magdagdon.ai.simulate import game_seed

    assert DiceStream(game_seed(2, 0)).roll(0) == DiceStream(game_seed(2, 0)).roll(0)


def test_histogram_is_an_svg_with_one_series_per_bot() -> None:
    svg = histogram_svg({"greedy": [100, 120, 130], "random": [10, 40, -20]})
    assert svg.startswith("<svg") and svg.count("mean") == 2


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "simulate",
        "--bot",
        "greedy",
        "--difficulty",
        "nightmare",
        "--games",
        "8",
        "--seed",
        "0",
        "--json",
        "--vs",
        "random",
    )
    assert code == 0
    data = json.loads(out)
    assert set(data) >= KEYS and data["bot"] == "greedy" and data["games"] == 8
    assert data["vs"]["bot"] == "random" and "mean_difference" in data["paired"]


def test_cli_table_and_plot(tmp_path: Path) -> None:
    plot = tmp_path / "scores.svg"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "magdagdon.cli",
            "simulate",
            "--bot",
            "random",
            "--games",
            "6",
            "--difficulty",
            "survival",
            "--plot",
            str(plot),
            "--processes",
            "2",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "mean ± 95% CI" in result.stdout and "ruins per game" in result.stdout
    assert plot.read_text().startswith("<svg")


def test_cli_rejects_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "simulate", "--bot", "oracle")[0] == 2
    assert run(capsys, "simulate", "--games", "0")[0] == 2


@pytest.mark.slow  # (make check leaves it out)
def test_the_strong_player_beats_greedy_on_the_same_dice(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Thirty paired NIGHTMARE games: strong is about 120 points a game better (BENCHMARKS.md);
    a broken search or model would not be."""
    code, out, _ = run(
        capsys,
        "simulate",
        "--bot",
        "strong",
        "--vs",
        "greedy",
        "--difficulty",
        "nightmare",
        "--games",
        "30",
        "--seed",
        "3",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert data["bot"] == "strong" and data["paired"]["mean_difference"] > 40


@pytest.mark.slow
def test_cli_train_writes_weights_the_strong_player_loads(tmp_path: Path) -> None:
    out = tmp_path / "weights.json"
    code = main(
        [
            "train",
            "--games",
            "2",
            "--rounds",
            "1",
            "--search-games",  # the searching player's round too, as short (default 2,000)
            "2",
            "--difficulty",
            "nightmare",
            "--output",
            str(out),
        ]
    )
    assert code == 0
    models = load_models(out.read_text())
    assert list(models) == [Difficulty.NIGHTMARE]
    assert json.loads(out.read_text())["search_games"] == 2


def test_any_player_object_runs_with_the_same_statistics() -> None:
    """run_games takes any object following the Player protocol, in one process or several
    (pickled to each), with the same results on the same seeds."""
    from .example_bot import FirstPlanBot

    one = run_games(FirstPlanBot(), "survival", 6, seed=3)
    two = run_games(FirstPlanBot(), "survival", 6, seed=3, processes=2)
    assert [r.score for r in one] == [r.score for r in two]
    assert summarize(one, "first-plan", "survival", 3)["games"] == 6
    by_spec = run_games("tests.ai.example_bot:FirstPlanBot", "survival", 6, seed=3, processes=2)
    assert [r.score for r in by_spec] == [r.score for r in one]


def test_simulate_loads_a_bot_by_module_and_class(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "simulate",
        "--bot",
        "tests.ai.example_bot:FirstPlanBot",
        "--vs",
        "greedy",
        "--games",
        "4",
        "--difficulty",
        "nightmare",
        "--json",
    )
    summary = json.loads(out)
    assert code == 0 and summary["games"] == 4 and summary["vs"]["bot"] == "greedy"
    assert "paired" in summary
    assert make_player("tests.ai.example_bot:Nameless").name == "tests.ai.example_bot:Nameless"
    for spec, reason in [
        ("tests.ai.example_bot:NoPlayer", "no turn"),
        ("tests.ai.no_such_module:Bot", "cannot load"),
        ("oracle", "unknown player"),
    ]:
        with pytest.raises(ValueError, match=reason):
            make_player(spec)
        code, _, err = run(capsys, "simulate", "--bot", spec, "--games", "1")
        assert code == 2 and reason in err
