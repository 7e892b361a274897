"""docs/library.md, the guide for bot writers: its code runs as written and prints what its
comments say (the blocks in order, as a reader would run them)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "library.md"


def test_the_guide_runs_and_prints_what_it_says() -> None:
    blocks = re.findall(r"^```python\n(.*?)^```$", GUIDE.read_text(encoding="utf-8"), re.M | re.S)
    assert len(blocks) >= 5
    namespace: dict[str, object] = {"__name__": "guide"}
    for code in blocks:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(GUIDE), "exec"), namespace)
        said = [line.partition("#")[2].strip() for line in code.splitlines() if "print(" in line]
        printed = out.getvalue().splitlines()
        assert len(printed) == len(said), (code, printed)
        for expected, got in zip(said, printed, strict=True):
            assert got == expected, (expected, got)
    assert {"GreedyBot", "CarefulBot"} <= set(namespace)
    greedy = re.search(r"^class GreedyBot.*?(?=^```)", GUIDE.read_text(), re.M | re.S)
    assert greedy is not None and len(greedy.group().strip().splitlines()) <= 30  # thirty lines
