"""Which value a player plays each difficulty with: one table.

Every player that values afterstates asks here: the coach (hints, reviews, the daily's par,
puzzles), ``magdagdon simulate --bot strong`` (the coach's values), ``--bot ntuple`` (the
difficulty's network) and ``--bot linear`` (the linear model). The coach's column is the
``coach`` table of ``ai/networks/networks.json``: per difficulty a shipped network file, or
``"linear"`` for the linear model of ``weights.json``, so shipping a better value is one line
of data and a file.

>>> coach_table()[Difficulty.NIGHTMARE]
'nightmare.nt'
>>> type(value_model(Difficulty.PEACEFUL, "linear")).__name__
'Model'
"""

from __future__ import annotations

import lzma
import struct
from functools import cache
from typing import Final

from ..engine import Difficulty
from .model import Model, shipped_model
from .model import models_problem as linear_models_problem
from .ntuple import NTupleModel, check_network, load_network, network_file, provenance

VALUES: Final = ("coach", "network", "linear")
"""What a player may ask for: the coach's value, the difficulty's network, the linear model."""
LINEAR: Final = "linear"
"""The coach table's word for the linear model."""


@cache
def coach_table() -> dict[Difficulty, str]:
    """Per difficulty, the value the coach plays it with: a network file of ``ai/networks``,
    or :data:`LINEAR` (ValueError if ``networks.json`` leaves a difficulty out)."""
    table = provenance()["coach"]
    missing = [d.value for d in Difficulty if d.value not in table]
    if missing:
        raise ValueError(f"networks.json: the coach table names no value for {missing}")
    return {d: str(table[d.value]) for d in Difficulty}


def value_model(difficulty: Difficulty, value: str = "coach") -> Model | NTupleModel:
    """The value a player asking for ``value`` (one of :data:`VALUES`) plays ``difficulty``
    with: the coach's (:func:`coach_table`), the difficulty's network
    (:func:`~.ntuple.network_file`), or the linear model."""
    if value not in VALUES:
        raise ValueError(f"unknown value {value!r}: {', '.join(VALUES)}")
    if value == "linear":
        return shipped_model(difficulty)
    name = coach_table()[difficulty] if value == "coach" else network_file(difficulty)
    return shipped_model(difficulty) if name == LINEAR else load_network(name, difficulty)


def values_problem() -> str | None:
    """Why a value the coach plays with cannot be loaded (the linear models, the coach table,
    a network it names), or None: what ``/api/ready`` and ``magdagdon serve`` check."""
    problem = linear_models_problem()
    if problem:
        return problem
    try:
        for difficulty in Difficulty:
            name = coach_table()[difficulty]
            if name != LINEAR:
                check_network(name)  # remembered once it passed; a failure is tried again
    except (OSError, ValueError, KeyError, lzma.LZMAError, struct.error) as exc:
        return f"the coach's values cannot be loaded: {type(exc).__name__}: {exc}"
    return None


__all__ = ["LINEAR", "VALUES", "coach_table", "value_model", "values_problem"]
