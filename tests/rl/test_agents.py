"""benchmarks.agents, the table of agents to beat, on a tiny budget: its shape, its games are
the simulator's (the same seeds, whichever way an agent plays), and a row whose optional
dependency is missing is skipped with a word."""

from __future__ import annotations

import importlib.util
import re
from typing import Any

import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pyspiel")

from benchmarks import agents
from magdagdon.ai.simulate import game_seed, run_games

TINY = ["--games", "2", "--costly-games", "2", "--td-episodes", "20", "--mcts-simulations", "4"]


def test_the_table_has_a_row_per_agent_and_difficulty_on_the_simulators_seeds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = agents.main(
        [
            *TINY,
            *("--only", "random", "td", "mcts"),
            *("--bot", "tests.ai.example_bot:FirstPlanBot"),
            *("--difficulties", "nightmare", "survival", "--markdown"),
        ]
    )
    out = capsys.readouterr().out
    assert [(r.agent, r.difficulty) for r in rows] == [
        (agent, difficulty)
        for agent in ("random", "td (the guide's)", "OpenSpiel MCTS", "first-plan")
        for difficulty in ("nightmare", "survival")
    ]
    for row in rows:
        assert row.games == 2 and row.decisions > 0 and row.decision_seconds >= 0
        assert row.ci95 >= 0 and row.budget and row.command
    by = {(r.agent, r.difficulty): r for r in rows}
    for difficulty in ("nightmare", "survival"):  # the simulator's games, the same seeds
        expected = [r.score for r in run_games("random", difficulty, 2, seed=0)]
        assert by["random", difficulty].scores == expected
        assert by["random", difficulty].command == (
            f"magdagdon simulate --bot random --difficulty {difficulty} --games 2"
        )
        plans = [r.score for r in run_games("tests.ai.example_bot:FirstPlanBot", difficulty, 2, 0)]
        assert by["first-plan", difficulty].scores == plans
    assert "20 training games" in by["td (the guide's)", "nightmare"].budget
    assert "4 simulations a decision" in by["OpenSpiel MCTS", "nightmare"].budget
    tables = re.findall(r"^### (\w+)\n\n(\|.*\|)\n\|---", out, re.M)
    assert [name for name, _ in tables] == ["NIGHTMARE", "SURVIVAL"]
    assert all("mean ± 95% CI" in head and "command" in head for _, head in tables)
    assert len([line for line in out.splitlines() if line.startswith("| ")]) == 2 * (1 + 4)


def test_rows_of_fewer_games_are_compared_on_the_seeds_all_played() -> None:
    rows = [
        agents.Row("a", "nightmare", "", "", [10, 20, 90], 3, 0.0),
        agents.Row("b", "nightmare", "", "", [30, 40], 2, 0.0),
    ]
    assert agents.shared(rows) == "On the first 2 seeds, which every row played: a 15.0, b 35.0."
    assert agents.shared(rows[:1]) == ""


def test_mcts_meets_the_seeds_dice_and_game_i_does_not_depend_on_the_run() -> None:
    first = agents.mcts_game("nightmare", 1, simulations=3, rollouts=1, uct_c=2.0)
    again = agents.mcts_game("nightmare", 1, simulations=3, rollouts=1, uct_c=2.0)
    assert first[0] == again[0] and len(first[1]) == len(again[1]) > 0


def test_the_environments_reset_seed_is_the_simulators_game() -> None:
    import gymnasium

    import magdagdon.gym  # noqa: F401

    for turn_level in (False, True):
        env = gymnasium.make("Magdagdon-v0", difficulty="survival", turn_level=turn_level)
        for index in range(3):
            obs, _ = env.reset(seed=game_seed(0, index))
            assert agents.same_dice("survival", index, obs)
            assert not agents.same_dice("survival", index + 1, obs)


def test_the_coachs_budget_is_the_value_it_plays_each_difficulty_with() -> None:
    for difficulty in ("peaceful", "survival", "nightmare"):
        word = agents.coach_budget(difficulty)
        assert word.startswith("shipped ") and word.endswith(" + search")


def test_the_guides_agent_is_read_from_the_guide() -> None:
    tdbot, episodes = agents.guide_tdbot()
    assert episodes == 5000
    assert tdbot.TDBot.name == "td" and callable(tdbot.train)


def test_a_missing_optional_dependency_skips_its_row_with_a_word(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    found = importlib.util.find_spec

    def without_sb3(name: str, *args: Any) -> Any:
        return None if name == "sb3_contrib" else found(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", without_sb3)
    rows = agents.main([*TINY, "--only", "ppo", "random", "--difficulties", "nightmare"])
    out = capsys.readouterr().out
    assert [r.agent for r in rows] == ["random"]
    assert re.search(r"^ppo: skipped \((torch|sb3_contrib) is not installed: .*\)$", out, re.M)


def test_maskable_ppo_plays_the_seeds_when_installed(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sb3_contrib")
    (row,) = agents.main(
        [*TINY, "--only", "ppo", "--ppo-steps", "64", "--difficulties", "nightmare"]
    )
    assert row.games == 2 and row.decisions > 0 and "die-level steps" in row.budget
    assert "ppo: skipped" not in capsys.readouterr().out


def test_maskable_ppo_plays_the_candidate_form_when_installed() -> None:
    """The turn level as candidates (MagdagdonCandidates-v0): a policy gradient's row, its
    games on the evaluation seeds (the first observation checked as the simulator's)."""
    pytest.importorskip("sb3_contrib")
    argv = [*TINY, "--only", "ppo", "--ppo-steps", "64", "--ppo-level", "candidates"]
    (row,) = agents.main([*argv, "--difficulties", "nightmare"])
    assert row.games == 2 and row.agent == "MaskablePPO (turn level, candidates)"
    assert "turn-level (candidates) steps" in row.budget and "--ppo-level candidates" in row.command
    (row,) = agents.main([*argv, "--ppo-policy", "scorer", "--difficulties", "nightmare"])
    assert row.games == 2 and row.agent.endswith("shared scorer")
    assert "--ppo-policy scorer" in row.command
