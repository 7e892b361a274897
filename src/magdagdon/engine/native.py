"""Where the C parts are loaded: the engine's fast path and the strong player's inner loop
share one rule for when they are used."""

from __future__ import annotations

import importlib
import os
from types import ModuleType


def native(module: str) -> ModuleType | None:
    """The C module ``module`` (its dotted name), or None: not built (no C compiler when the
    package was installed), or ``MAGDAGDON_PURE_PYTHON`` set in the environment."""
    if os.environ.get("MAGDAGDON_PURE_PYTHON"):
        return None
    try:
        return importlib.import_module(module)
    except ImportError:
        return None
