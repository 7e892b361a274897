"""The strong player's fitted weights: one linear model per difficulty, shipped in
``weights.json`` (made by :mod:`magdagdon.ai.train`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from lzma import LZMAError
from typing import Any, Final

from ..engine import Difficulty
from .features import NAMES


@dataclass(frozen=True)
class Model:
    """The fitted weights of one difficulty, in :data:`~magdagdon.ai.features.NAMES` order."""

    difficulty: Difficulty
    weights: tuple[float, ...]
    bias: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def power_value(self, empty: int) -> float:
        """What holding one more power is worth on a board with ``empty`` empty squares."""
        i, j = NAMES.index("powers_left"), NAMES.index("powers_left_x_empty")
        return self.weights[i] + self.weights[j] * empty / 16


WEIGHTS_FILE: Final = "weights.json"


def load_models(text: str | None = None) -> dict[Difficulty, Model]:
    """The models shipped in ``weights.json`` (or parsed from ``text``)."""
    if text is None:
        text = resources.files(__package__).joinpath(WEIGHTS_FILE).read_text(encoding="utf-8")
    data = json.loads(text)
    names = data["features"]
    if list(names) != list(NAMES):
        raise ValueError("the weights file was fitted on other features: run `magdagdon train`")
    meta = {k: v for k, v in data.items() if k != "models"}
    return {
        Difficulty(name): Model(
            Difficulty(name), tuple(float(w) for w in m["weights"]), float(m["bias"]), meta
        )
        for name, m in data["models"].items()
    }


@cache
def shipped_model(difficulty: Difficulty) -> Model:
    """The shipped model of a difficulty."""
    return load_models()[difficulty]


def models_problem() -> str | None:
    """Why the shipped linear models cannot be loaded (a file missing from an install, fitted
    on other features, a difficulty left out), or None when every difficulty's loads. (The
    coach's: :func:`magdagdon.ai.strong.models_problem`, the n-tuple networks too.)"""
    try:
        for difficulty in Difficulty:
            shipped_model(difficulty)  # cached once loaded; a failure is tried again
    except (OSError, ValueError, KeyError, LZMAError) as exc:
        return f"the strong player's weights cannot be loaded: {type(exc).__name__}: {exc}"
    return None
