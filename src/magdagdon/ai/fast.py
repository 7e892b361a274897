"""The optional C accelerator of the strong player's inner loop (``magdagdon.ai._fast``).

The C module computes the learned value of a board (:class:`~.features.LinearValue`); for
one board, the best next afterstate of every roll (the work of one chance node of
:meth:`~.evaluator.Evaluator.roll_values`); and the exact value of a board with at most four
empty squares and no power left (:meth:`~.evaluator.Evaluator.value`), remembered in a cache of
its own (exact values do not depend on the weights). It gives the same doubles as the
pure-Python code, bit for bit, so a player plays the same moves with it and without it, only
faster (the tests compare both on many boards).

It is built when the package is installed with a C compiler at hand; without one, or with
``MAGDAGDON_PURE_PYTHON=1`` in the environment, :data:`AVAILABLE` is False and the Python
code runs.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from types import ModuleType
from typing import Final

from ..engine import BONUS_POINTS, EMPTY, RUIN, RUIN_PENALTY, Bonus
from ..engine.native import native
from .features import NAMES
from .ntuple import SIZE as NT_SIZE
from .ntuple import SIZE_MASKED as NT_SIZE_MASKED
from .rolls import ROLLS

_native: ModuleType | None = native("magdagdon.ai._fast")

AVAILABLE: Final = _native is not None
"""Whether the C accelerator is built and switched on."""

_LINE_NAMES = (
    *(f"{kind}_need{k}" for kind in ("straight", "four", "two_pairs") for k in range(1, 5)),
    *(f"{kind}_need{k}_ways" for kind in ("straight", "four", "two_pairs") for k in range(1, 5)),
    "open_line_no_bonus",
)
_PARAM_NAMES = (
    "free",
    "dead",
    "tight1",
    "tight2",
    "tight3",
    "allowed_value_sum",
    "frontier",
    "values_unplaceable",
    "values_one_square",
    "empty",
    "empty_squared",
    "powers_left",
    "powers_left_x_empty",
)


PARAM_LAYOUT: Final = (
    *_PARAM_NAMES,
    "bias",
    "ruin_penalty",
    *(f"empty_is_{k}" for k in range(1, 16)),
)
"""The order :class:`NativeValue` packs the params in (the C module's ``P_*`` layout)."""


def check_layout(module: ModuleType) -> None:
    """Raise RuntimeError unless the C module states the layouts this module packs (its params
    and line weights), the engine's square codes and the number of rolls: a contract between
    two files that would otherwise fail silently, as wrong values."""
    stated = {
        "params": (tuple(module.PARAMS.split()), PARAM_LAYOUT),
        "line weights": (tuple(module.LINE_WEIGHTS.split()), _LINE_NAMES),
        "NPARAMS": (module.NPARAMS, len(PARAM_LAYOUT)),
        "NLINE_WEIGHTS": (module.NLINE_WEIGHTS, len(_LINE_NAMES)),
        "NROLLS": (module.NROLLS, len(ROLLS)),
        "NT_SIZE": (module.NT_SIZE, NT_SIZE),
        "NT_SIZE_MASKED": (module.NT_SIZE_MASKED, NT_SIZE_MASKED),
        "EMPTY": (module.EMPTY, EMPTY),
        "RUIN": (module.RUIN, RUIN),
    }
    wrong = [name for name, (c, python) in stated.items() if c != python]
    if wrong:
        raise RuntimeError(
            f"magdagdon.ai._fast disagrees with magdagdon.ai.fast on {', '.join(wrong)}: "
            "rebuild the extension (pip install -e .) or update both files together"
        )


if _native is not None:
    check_layout(_native)


class NativeValue:
    """A learned value computed by the C module: the line table and the weights, packed."""

    def __init__(self, weights: Sequence[float], bias: float) -> None:
        """Pack ``weights`` (in :data:`~.features.NAMES` order) and ``bias`` for the C code."""
        if _native is None:
            raise RuntimeError("the C accelerator is not available")
        self._module = _native
        w = dict(zip(NAMES, weights, strict=True))
        line = array("d", [w[n] for n in _LINE_NAMES]).tobytes()
        self.table = _native.line_table(
            line,
            BONUS_POINTS[Bonus.STRAIGHT],
            BONUS_POINTS[Bonus.FOUR],
            BONUS_POINTS[Bonus.TWO_PAIRS],
        )
        named = {**w, "bias": float(bias), "ruin_penalty": float(RUIN_PENALTY)}
        self.params = array("d", [named[n] for n in PARAM_LAYOUT]).tobytes()

    def value(self, cells: Sequence[int], powers_left: int) -> float:
        """The learned value of a board (as :class:`~.features.LinearValue` computes it)."""
        result: float = self._module.value(bytes(cells), powers_left, self.table, self.params)
        return result

    def best_rolls(
        self,
        cells: Sequence[int],
        powers_left: int,
        required: int,
        minimum: int = 0,
        exact_empty: int = 0,
    ) -> tuple[tuple[float, ...], int]:
        """Per roll (in :data:`~.rolls.ROLLS` order): the value of its best next afterstate
        placing at least ``required`` dice (-inf when it cannot be placed); and the number
        of staged sets looked at. Next afterstates with 1 to ``exact_empty`` empty squares
        (at most 4, with no power left) get their :meth:`exact` value, the others their
        learned value."""
        tops, work = self._module.best_rolls(
            bytes(cells), powers_left, required, self.table, self.params, minimum, exact_empty
        )
        return tops, work

    def exact(self, cells: Sequence[int], minimum: int) -> float:
        """The expected final score of a board with 1 to 4 empty squares and no power left,
        every turn played best to the end (``minimum`` dice a turn)."""
        result: float = self._module.exact(bytes(cells), minimum, self.table, self.params)
        return result


class NativeNTuple:
    """An n-tuple network's learned value computed by the C module (the same bits as
    :class:`~.ntuple.NTupleValue`), with the same searches as :class:`NativeValue`."""

    def __init__(self, weights: array[float], power_a: float, power_b: float) -> None:
        """Pack a network's float32 ``weights`` and the worth of a power held."""
        if _native is None:
            raise RuntimeError("the C accelerator is not available")
        self._module = _native
        self.network = weights.tobytes()
        self.power_a = power_a
        self.power_b = power_b
        # full boards are scored through the linear code's tables (the exact endgame's
        # leaves): any weights give the same scores there
        self._scoring = _scoring()

    def value(self, cells: Sequence[int], powers_left: int) -> float:
        """The learned value of a board (as :class:`~.ntuple.NTupleValue` computes it)."""
        result: float = self._module.nt_learned(
            bytes(cells), powers_left, self.network, self.power_a, self.power_b
        )
        return result

    def best_rolls(
        self,
        cells: Sequence[int],
        powers_left: int,
        required: int,
        minimum: int = 0,
        exact_empty: int = 0,
    ) -> tuple[tuple[float, ...], int]:
        """As :meth:`NativeValue.best_rolls`, with the network's learned value."""
        table, params = self._scoring.table, self._scoring.params
        tops, work = self._module.nt_best_rolls(
            bytes(cells),
            powers_left,
            required,
            self.network,
            self.power_a,
            self.power_b,
            table,
            params,
            minimum,
            exact_empty,
        )
        return tops, work

    def exact(self, cells: Sequence[int], minimum: int) -> float:
        """As :meth:`NativeValue.exact` (exact values do not depend on the weights)."""
        return self._scoring.exact(cells, minimum)


def nt_best(
    cells: Sequence[int], dice: tuple[int, int, int, int], required: int, network: bytes
) -> tuple[float, bytes]:
    """The best afterstate of a roll by score + the network's value (a RUIN when it cannot be
    placed), as the training's self-play chooses it: (its value, its board)."""
    if _native is None:
        raise RuntimeError("the C accelerator is not available")
    value, after = _native.nt_best(bytes(cells), dice, required, network)
    return value, after


_scorer: list[NativeValue] = []


def _scoring() -> NativeValue:
    """A linear value of zero weights, built once: its tables score full boards."""
    if not _scorer:
        _scorer.append(NativeValue([0.0] * len(NAMES), 0.0))
    return _scorer[0]


__all__ = ["AVAILABLE", "PARAM_LAYOUT", "NativeNTuple", "NativeValue", "check_layout", "nt_best"]
