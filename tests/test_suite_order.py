"""How the suite shares the machine among pytest-xdist's workers: the order its modules go out
(``tests/conftest.py``: packages and their modules longest first, each module's tests in
pytest-randomly's order), and the ports each worker's servers take (``tests/utils/server.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest

from .conftest import expected_seconds, longest_first
from .utils import ui
from .utils.server import PORTS_EACH, PORTS_FROM, RANGES, first_port

TESTS = Path(__file__).parent


@dataclass
class Item:
    """What :func:`longest_first` reads of a test: its file and its marks."""

    path: Path
    name: str
    marks: set[str] = field(default_factory=set)

    def get_closest_marker(self, name: str) -> Any:
        return name if name in self.marks else None


def test_packages_and_modules_go_longest_first_each_modules_tests_in_their_order() -> None:
    items = [
        Item(TESTS / "engine" / "test_board.py", "b1"),
        Item(TESTS / "api" / "test_small.py", "s2"),
        Item(TESTS / "api" / "test_small.py", "s1"),
        Item(TESTS / "browser" / "test_one.py", "o1"),
        Item(TESTS / "api" / "test_big.py", "g3"),
        Item(TESTS / "api" / "test_big.py", "g1"),
        Item(TESTS / "api" / "test_big.py", "g2", {"process"}),
        Item(TESTS / "test_docs.py", "d1"),
    ]
    longest_first(cast(list[pytest.Item], items))
    # api: 1.3 + 1.3 + 3 + 1.3 + 1.3; browser 3.5; the top package 1; the engine 0.2
    assert [item.name for item in items] == ["g3", "g1", "g2", "s2", "s1", "o1", "d1", "b1"]


def test_a_test_that_starts_a_process_is_expected_to_take_seconds() -> None:
    def seconds(*parts: str, marks: frozenset[str] = frozenset()) -> float:
        item = Item(TESTS.joinpath(*parts), "t", set(marks))
        return expected_seconds(cast(pytest.Item, item))

    assert seconds("engine", "test_board.py") == 0.2
    assert seconds("test_docs.py") == 1.0
    assert seconds("test_readme.py", marks=frozenset({"slow"})) == 3.0
    assert seconds("browser", "test_play.py", marks=frozenset({"process"})) == 3.5
    assert seconds("crossbrowser", "test_webkit.py", marks=frozenset({"process"})) == 8.0


@pytest.mark.parametrize("workers", [1, 2, 3, 4, 6])
def test_each_worker_and_each_run_has_ports_of_its_own(workers: int) -> None:
    """The workers of a run take ranges apart; two runs on one machine (a developer's beside
    CI's) take ranges apart unless their ids fall on the same slot; every range lies below the
    kernel's ephemeral ports."""
    runs: dict[int, set[int]] = {}
    for n in range(200):
        run = f"run-{n}"
        firsts = {first_port(f"gw{w}", run, workers) for w in range(workers)}
        assert len(firsts) == workers
        slot = min(firsts)
        assert runs.setdefault(slot, firsts) == firsts  # the same slot, the same ranges
    assert len(runs) == RANGES // max(2, workers)
    taken = [first for firsts in runs.values() for first in firsts]
    assert len(taken) == len(set(taken))  # no two slots share a range
    assert all(f >= PORTS_FROM and f + PORTS_EACH <= 32768 for f in taken)


def test_screenshots_can_be_left_out(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``MAGDAGDON_SCREENSHOTS=off`` (``.ci/run``) takes none; otherwise each is saved."""
    taken: list[str] = []

    class Page:
        def screenshot(self, path: str, full_page: bool) -> None:
            taken.append(path)

    monkeypatch.setattr(ui, "SCREENSHOTS", tmp_path)
    monkeypatch.setenv("MAGDAGDON_SCREENSHOTS", "off")
    assert ui.screenshot(Page(), "a") == tmp_path / "a.png" and taken == []
    monkeypatch.setenv("MAGDAGDON_SCREENSHOTS", str(tmp_path))
    ui.screenshot(Page(), "b")
    assert taken == [str(tmp_path / "b.png")]
