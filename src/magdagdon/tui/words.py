"""The terminal game's words: the browser client's English catalog, so both say the same.

>>> t("place_at_least", n=1), t("place_at_least", n=3)
('Place at least 1 die.', 'Place at least 3 dice.')
>>> t("powers_left", n=2, cost=20)
'2 Majda Powers left, the next costs 20 points'
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any

from ..engine import Bonus


@cache
def catalog() -> dict[str, str]:
    """The English catalog of the browser client (``web/static/i18n/en.json``)."""
    text = files("magdagdon").joinpath("web/static/i18n/en.json").read_text(encoding="utf-8")
    data: dict[str, str] = json.loads(text)
    return data


def t(key: str, **params: Any) -> str:
    """The text of ``key`` with its ``{placeholders}`` filled; with ``n``, the plural form
    (``key.one`` or ``key.other``) when the catalog has one."""
    words = catalog()
    if key not in words and "n" in params:
        key = f"{key}.{'one' if params['n'] == 1 else 'other'}"
    return words[key].format(**params)


def bonus_text(bonus: Bonus | None) -> str:
    """A line's combination as the game names it: ``STRAIGHT +60`` (empty without one)."""
    return f"{t(f'bonus_{bonus.value}')} +{bonus.points}" if bonus else ""


def square_at(square: int) -> str:
    """A square as the client names it: ``Row 2, column 3``."""
    return t("square_at", row=square // 4 + 1, col=square % 4 + 1)
