"""docs/rl.md: its code runs as written and prints what its comments say (the blocks in
order, as a reader would run them, with 200 training games instead of 5,000 to stay quick);
the bot it writes plays through ``magdagdon simulate``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pyspiel")

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "rl.md"


def test_the_guide_runs_and_its_bot_plays_in_the_simulator(tmp_path: Path) -> None:
    """Each block runs as a script of its own (a new process, as a reader who runs one
    block alone would: block 6 once needed block 5's imports), in order, in one folder."""
    text = GUIDE.read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```$", text, re.M | re.S)
    module = [b for b in blocks if b.startswith("# tdbot.py\n")]
    assert len(module) == 1 and len(blocks) >= 6
    (tmp_path / "tdbot.py").write_text(module[0], encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    for number, code in enumerate(blocks, 1):
        if code is module[0]:
            continue
        assert "EPISODES = 5000" not in code or code.count("EPISODES = 5000") == 1
        script = tmp_path / f"block{number}.py"
        script.write_text(code.replace("EPISODES = 5000", "EPISODES = 200"), encoding="utf-8")
        result = subprocess.run(
            [sys.executable, str(script)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, f"block {number}:\n{code}\n{result.stderr}"
        said = [line.partition("#")[2].strip() for line in code.splitlines() if "print(" in line]
        assert result.stdout.splitlines() == said, f"block {number}:\n{code}"
    assert (tmp_path / "td-weights.json").exists()
    command = re.search(r"^    PYTHONPATH=\. (magdagdon simulate .*)$", text, re.M)
    assert command is not None
    args = command.group(1).split()[1:]
    args[args.index("--games") + 1] = "2"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    cli = Path(sys.executable).with_name("magdagdon")
    result = subprocess.run(
        [str(cli), *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "tdbot:TDBot" in result.stdout and "heuristic" in result.stdout
