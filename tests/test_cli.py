"""The command line: score and check, with clear errors for bad arguments."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from magdagdon.ai.fast import AVAILABLE
from magdagdon.ai.ntuple import decode_network
from magdagdon.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_score_prints_the_breakdown(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", "3456/3456/3456/3456")
    assert code == 0
    assert "total 544" in out
    assert "STRAIGHT +60" in out and "FOUR +40" in out
    assert out.count("| 18") == 4  # each row sums to 18
    assert "12 16 20 24" in out  # the column sums


def test_score_counts_ruins(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", "12X./..../..../....")
    assert code == 0 and "ruins 1 x 15 = -15" in out and "total -9" in out


def test_check_magdagdon(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "3.../..../..../....", "--dice", "1", "6", "6", "1")
    assert code == 0
    assert "required: 2" in out and "MAGDAGDON: no legal order" in out


def test_check_witness_in_nightmare(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "check",
        "12../.3X./..../....",
        "--dice",
        "1",
        "1",
        "4",
        "6",
        "--difficulty",
        "nightmare",
    )
    assert code == 0
    assert "required: 3" in out and "not MAGDAGDON" in out
    assert out.count(" on square ") == 3


def test_check_required_drops_near_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(
        capsys,
        "check",
        "1111/1111/1111/11..",
        "--dice",
        "1",
        "2",
        "3",
        "4",
        "--difficulty",
        "nightmare",
    )
    assert "required: 2" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["score", "12"], "invalid board"),
        (["score", "..../..../..../..7."], "'7' is not a square"),
        (["check", "..../..../..../....", "--dice", "7"], "'7' is not a die value"),
        (["check", "..../..../..../....", "--dice", "1", "2", "3", "4", "5"], "at most 4"),
        (["check", "..../..../..../...."], "--dice"),
        (["check", "..../..../..../....", "--dice", "1", "--difficulty", "easy"], "invalid choice"),
        (["train", "--search-games", "-1"], "must be at least 0"),
        (["train", "--games", "0"], "must be at least 1"),
        ([], "COMMAND"),
    ],
)
def test_bad_arguments_say_why(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err


def test_console_script_module_runs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "magdagdon.cli", "score", "1.../..../..../...."],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "total 2" in result.stdout


@pytest.mark.skipif(not AVAILABLE, reason="the C accelerator is not built")
def test_train_network_writes_the_network_its_curve_and_provenance(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out_dir, curve = tmp_path / "networks", tmp_path / "curve.svg"
    args = ["train", "--network", "--difficulty", "survival", "--games", "300", "--seed", "3"]
    code, _, err = run(capsys, *args, "--output", str(out_dir), "--curve", str(curve))
    assert code == 0, err
    assert decode_network((out_dir / "peaceful.nt").read_bytes())  # SURVIVAL uses PEACEFUL's
    assert "<svg" in curve.read_text()
    meta = json.loads((out_dir / "networks.json").read_text())
    entry = meta["networks"]["peaceful.nt"]
    assert entry["command"] == (
        "magdagdon train --network --difficulty survival --games 300 --seed 3 --learning td"
    )
    assert entry["games"] == 300 and meta["coach"] == {}
    assert not list(out_dir.glob("*.checkpoint"))
    code, _, err = run(capsys, "train", "--network", "--games", "300")
    assert code == 2 and "one --difficulty" in err


@pytest.mark.parametrize(
    "argv",
    [["serve"], ["migrate"], ["backup", "copy.db"], ["rotate-secret"], ["puzzles", "mine"]],
)
def test_the_servers_commands_say_what_to_install_without_its_libraries(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    argv: list[str],
) -> None:
    """Without the ``server`` extra, a command that needs it says so in one line (exit 2)."""
    from .test_architecture import SERVER_LIBRARIES

    monkeypatch.chdir(tmp_path)
    for name in SERVER_LIBRARIES:
        monkeypatch.setitem(sys.modules, name, None)  # as if not installed: import fails
    code, out, err = run(capsys, *argv)
    command = " ".join(a for a in argv if a != "copy.db")
    assert (code, out) == (2, "")
    assert err == (
        f"magdagdon {command} needs the server's packages (fastapi is missing): "
        "pip install 'magdagdon[server]'\n"
    )
    assert not list(tmp_path.iterdir())


def test_the_check_looks_for_every_package_of_the_server_extra() -> None:
    """``SERVER_IMPORTS`` (what the server's commands look for) names the modules of the
    ``server`` extra's packages, every one of them."""
    import re
    import tomllib
    from importlib.metadata import packages_distributions

    from magdagdon.cli import SERVER_IMPORTS

    project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    extras = project["project"]["optional-dependencies"]

    def name(requirement: str) -> str:
        return re.sub(r"[-_.]+", "-", re.split(r"[<>=!~\[; ]", requirement)[0]).lower()

    distributions = packages_distributions()
    found = {name(d) for module in SERVER_IMPORTS for d in distributions[module]}
    assert found == {name(r) for r in extras["server"]}
    assert not any(name(r) in found for r in project["project"]["dependencies"])
    assert "magdagdon[server,redis,gym,spiel,tui]" in extras["dev"]  # dev holds every extra


def test_train_search_games_default_scales_with_games() -> None:
    """The searching player's round was 2,000 games a difficulty whatever --games said, so a
    quick `train --games 20 --rounds 1` ran for many minutes: it is twice --games now (the
    shipped weights' 2,000 for the default 1,000), and --help says what each stage costs."""
    from magdagdon.cli import build_parser, search_games

    parser = build_parser()
    assert search_games(parser.parse_args(["train"])) == 2000
    assert search_games(parser.parse_args(["train", "--games", "20", "--rounds", "1"])) == 40
    assert search_games(parser.parse_args(["train", "--games", "20", "--search-games", "0"])) == 0
    assert search_games(parser.parse_args(["train", "--search-games", "7"])) == 7
    train = next(
        action.choices["train"]
        for action in parser._actions
        if isinstance(action.choices, dict) and "train" in action.choices
    )
    text = " ".join(train.format_help().split())
    assert "CPU s a game" in text and "twice --games" in text and "--search-games 0" in text


def test_a_short_training_is_short(tmp_path: Path) -> None:
    """`train --games 2 --rounds 1` on one difficulty: a few seconds, searching round
    included (4 games: it was 2,000, some 130 CPU seconds in NIGHTMARE)."""
    out = tmp_path / "weights.json"
    argv = ["train", "--games", "2", "--rounds", "1", "--difficulty", "nightmare"]
    result = subprocess.run(
        [sys.executable, "-m", "magdagdon.cli", *argv, "--output", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text())["search_games"] == 4
