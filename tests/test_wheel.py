"""The package as a self-hoster installs it: a wheel built from the sources, installed with the
``server`` extra into a fresh virtual environment outside the checkout, serving a whole game
and simulating; and as a researcher installs it, with the ``gym`` and ``spiel`` extras, which
bring none of the server's packages.

The rest of the suite runs on an editable install, which reads every file from ``src/``:
only an installed wheel shows a file the package data leaves out (the strong player's
weights once were, so HINT and REVIEW answered 500).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest

from .utils.api import act, new_game, play_to_end
from .utils.server import server_process

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "magdagdon"
BUILD_ARTIFACTS = ("__pycache__", "*.pyc", "*.so", "*.pyd", "*.egg-info")


@dataclass
class Installed:
    """A wheel and the virtual environment it was installed into."""

    wheel: Path
    venv: Path
    home: Path
    """A directory outside the checkout, for the commands' working directory."""

    @property
    def magdagdon(self) -> str:
        """The installed ``magdagdon`` command."""
        return str(self.venv / "bin" / "magdagdon")

    def env(self, **extra: str) -> dict[str, str]:
        """An environment that cannot reach the checkout's sources."""
        env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
        return {**env, "HOME": str(self.home), **extra}

    def python(self, code: str) -> subprocess.CompletedProcess[str]:
        """Run ``code`` with the venv's Python, outside the checkout; its output."""
        return subprocess.run(
            [str(self.venv / "bin" / "python"), "-c", code],
            cwd=self.home,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=120,
        )

    def distributions(self) -> set[str]:
        """The names of the packages installed in the venv (normalised: lower case, ``-``)."""
        code = "import importlib.metadata as m; print(*(d.name for d in m.distributions()))"
        out = self.python(code)
        assert out.returncode == 0, out.stderr
        return {_normalised(name) for name in out.stdout.split()}

    def run(
        self, *args: str, timeout: float = 120, **extra: str
    ) -> subprocess.CompletedProcess[str]:
        """Run the installed ``magdagdon`` with ``args``; its output."""
        return subprocess.run(
            [self.magdagdon, *args],
            cwd=self.home,
            env=self.env(**extra),
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def _normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pip(python: Path | str, *args: str, cwd: Path) -> None:
    # pip's cache is kept: the dependencies come from it after the first run.
    subprocess.run(
        [str(python), "-m", "pip", "--disable-pip-version-check", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a copy of the sources."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    ignore = shutil.ignore_patterns(*BUILD_ARTIFACTS)
    shutil.copytree(ROOT / "src", source / "src", ignore=ignore)
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, source / name)
    dist = base / "dist"
    _pip(sys.executable, "wheel", "--no-deps", "--quiet", "-w", str(dist), str(source), cwd=base)
    (wheel,) = dist.glob("magdagdon-*.whl")
    return wheel


def _install(wheel: Path, base: Path, extras: str) -> Installed:
    """``wheel`` with ``extras`` (``"server"``, ``"gym,spiel"``) installed into a new venv."""
    venv = base / "venv"
    # a venv without pip of its own (ensurepip took a third of the time): this pip installs
    # into it
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    _pip(
        sys.executable,
        "--python",
        str(venv / "bin" / "python"),
        "install",
        "--quiet",
        # no bytecode written for every file of every dependency: Python compiles what the
        # tests import as they import it
        "--no-compile",
        f"{wheel}[{extras}]",
        cwd=base,
    )
    home = base / "home"
    home.mkdir()
    return Installed(wheel, venv, home)


@pytest.fixture(scope="module")
def installed(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The self-hoster's install: the wheel with the ``server`` extra."""
    return _install(built, tmp_path_factory.mktemp("server"), "server")


@pytest.fixture(scope="module")
def research(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """A researcher's install: the wheel with the Gymnasium and OpenSpiel extras."""
    return _install(built, tmp_path_factory.mktemp("research"), "gym,spiel")


def test_the_wheel_carries_every_file_of_the_package(installed: Installed) -> None:
    sources = {
        path.relative_to(PACKAGE.parent).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file()
        and not any(path.match(pattern) or pattern in path.parts for pattern in BUILD_ARTIFACTS)
    }
    with zipfile.ZipFile(installed.wheel) as wheel:
        carried = set(wheel.namelist())
    assert "magdagdon/ai/weights.json" in sources
    assert "magdagdon/ai/networks/nightmare.nt" in sources
    assert "magdagdon/ai/networks/networks.json" in sources
    assert "magdagdon/ai/networks/calibration.json" in sources
    assert "magdagdon/data/starter.jsonl.gz" in sources
    assert sources - carried == set()
    # the licence, with the copyright holder, and the Unicode data's beside its file
    licences = [name for name in carried if ".dist-info/licenses/" in name]
    assert any(name.endswith("/LICENSE") for name in licences), licences
    assert "magdagdon/names/UNICODE-LICENSE.txt" in carried
    with zipfile.ZipFile(installed.wheel) as wheel:
        text = wheel.read(next(n for n in licences if n.endswith("/LICENSE"))).decode()
    assert text.startswith("MIT License") and "Copyright (c) 2026 the MAGDAGDON authors" in text


def test_the_installed_package_is_not_the_checkout(installed: Installed) -> None:
    code = (
        "import magdagdon, magdagdon.ai.fast as f, magdagdon.engine.fast as g; "
        "print(magdagdon.__file__, f.AVAILABLE and g.AVAILABLE)"
    )
    done = installed.python(code)
    assert done.returncode == 0, done.stderr
    out = done.stdout.split()
    assert Path(out[0]).is_relative_to(installed.venv)
    if os.environ.get("MAGDAGDON_REQUIRE_NATIVE"):  # .ci/run: the wheel builds the C part too
        assert out[1] == "True"
    version = installed.wheel.name.split("-")[1]
    assert installed.run("--version").stdout.strip() == f"magdagdon {version}"


def test_the_installed_package_serves_a_whole_game(installed: Installed, tmp_path: Path) -> None:
    with (
        server_process(
            f"sqlite:///{tmp_path / 'magdagdon.db'}",
            command=[installed.magdagdon],
            cwd=installed.home,
            env=installed.env(),
        ) as server,
        httpx2.Client(base_url=server.url, timeout=60) as client,
    ):
        page = client.get("/")
        assert page.status_code == 200 and "MAGDAGDON" in page.text
        assert client.get("/js/app.js").status_code == 200
        assert client.get("/api/ready").json() == {"status": "ok"}
        view = new_game(client, "peaceful", seed=18)
        view = act(client, view, {"type": "roll"})
        hint = client.get(f"/api/games/{view['id']}/hint")
        assert hint.status_code == 200, hint.text
        assert hint.json()["hints_used"] == 1
        final = play_to_end(client, view)
        assert final["phase"] == "over"
        review = client.get(f"/api/games/{view['id']}/review")
        assert review.status_code == 200, review.text
        assert review.json()["score"] == final["final_score"]["total"]
        assert review.json()["turns"]
        # a new server has puzzles (the starter set, loaded on start) and grades them
        puzzle = client.get("/api/puzzles/next?difficulty=nightmare")
        assert puzzle.status_code == 200, puzzle.text
        given = puzzle.json()
        from magdagdon.engine import Game

        plans = Game.from_position(**given["position"]).turn_plans()
        ruin = [{"type": "accept_magdagdon", "cell": (given["view"]["ruin_choices"] or [0])[0]}]
        plan = plans[0] if plans else ruin
        graded = client.post(f"/api/puzzles/{given['id']}/attempts", json={"actions": plan})
        assert graded.status_code == 200, graded.text
        assert graded.json()["rated"] and graded.json()["best"]


def test_the_installed_package_simulates_with_the_strong_player(installed: Installed) -> None:
    done = installed.run("simulate", "--bot", "strong", "--games", "2", "--json")
    assert done.returncode == 0, done.stderr
    assert '"games": 2' in done.stdout


HINT_WITH_NETWORKS = """
from magdagdon.ai import coach
from magdagdon.ai.ntuple import NTupleModel
from magdagdon.ai.values import LINEAR, coach_table
from magdagdon.engine import Game

levels = [d for d, name in coach_table().items() if name != LINEAR]
player = coach.new_player()
for difficulty in levels:
    game = Game.new(difficulty, seed=1)
    game.roll()
    assert coach.hint(game, player).plan
print(len(levels), all(isinstance(player.evaluator(d).model, NTupleModel) for d in levels))
"""


def test_the_installed_coach_hints_with_the_networks(installed: Installed) -> None:
    """The networks are in the wheel and load there: the coach plays with them."""
    out = installed.python(HINT_WITH_NETWORKS)
    assert out.returncode == 0, out.stderr
    count, loaded = out.stdout.split()
    assert int(count) >= 1 and loaded == "True"


# The server's packages: the server extra's and the larger ones they bring in.
SERVER_PACKAGES = {
    "fastapi",
    "starlette",
    "anyio",
    "uvicorn",
    "uvloop",
    "httptools",
    "watchfiles",
    "websockets",
    "python-dotenv",
    "sqlalchemy",
    "alembic",
    "mako",
    "psycopg",
    "psycopg-binary",
    "pydantic",
    "pydantic-core",
    "pydantic-settings",
    "swagger-ui-bundle-v2",
    "brotli",
    "webauthn",
    "cryptography",
    "pyopenssl",
    "cbor2",
    "segno",
}


def test_the_research_extras_bring_none_of_the_servers_packages(
    installed: Installed, research: Installed
) -> None:
    """``pip install 'magdagdon[gym,spiel]'`` installs the engine, the bots and the
    reinforcement learning extras, and none of the server's packages (docs/design.md,
    "Packaging"); the self-hoster's ``[server]`` has them all."""
    assert installed.distributions() >= SERVER_PACKAGES
    packages = research.distributions()
    assert {"magdagdon", "gymnasium", "numpy", "open-spiel"} <= packages
    assert packages & SERVER_PACKAGES == set()
    with zipfile.ZipFile(research.wheel) as wheel:
        name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = wheel.read(name).decode()
    required = [
        _normalised(re.split(r"[<>=!~\[; ]", line.removeprefix("Requires-Dist: "))[0])
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist: ") and "extra ==" not in line
    ]
    assert required and not set(required) & SERVER_PACKAGES
    assert "Provides-Extra: server" in metadata


RESEARCH = """
import gymnasium, pyspiel
import magdagdon.gym, magdagdon.spiel

env = gymnasium.make("Magdagdon-v0", difficulty="survival", turn_level=True)
observation, info = env.reset(seed=1)
done = False
while not done:
    mask = info["action_mask"]
    observation, reward, terminated, truncated, info = env.step(int(mask.nonzero()[0][0]))
    done = terminated or truncated
state = pyspiel.load_game("python_magdagdon", {"difficulty": "nightmare"}).new_initial_state()
print(state.is_chance_node(), done)
"""


def test_a_research_install_simulates_and_plays_the_rl_games(research: Installed) -> None:
    done = research.run("simulate", "--bot", "strong", "--games", "2", "--json")
    assert done.returncode == 0, done.stderr
    assert '"games": 2' in done.stdout
    played = research.python(RESEARCH)
    assert played.returncode == 0, played.stderr
    assert played.stdout.split() == ["True", "True"]


@pytest.mark.parametrize("argv", [["serve"], ["migrate"], ["puzzles", "mine"]])
def test_without_the_server_extra_its_commands_say_what_to_install(
    research: Installed, argv: list[str]
) -> None:
    done = research.run(*argv, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"magdagdon {' '.join(argv)} needs the server's packages (fastapi is missing): "
        "pip install 'magdagdon[server]'\n"
    )
    assert not any(research.home.iterdir()), "nothing written"
