"""The terminal game's words: the browser client's English catalog, so both say the same;
and where a line of them may break (:func:`wrap_phrases`).

>>> t("place_at_least", n=1), t("place_at_least", n=3)
('Place at least 1 die.', 'Place at least 3 dice.')
>>> t("powers_left", n=2, cost=20)
'2 Majda Powers left, the next costs 20 points'
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib.resources import files
from typing import Any, Final

from rich.cells import cell_len

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


def square_at(square: int, *, starts: bool = False) -> str:
    """A square as the client names it in a sentence: ``row 2, column 3`` (``starts``: at the
    start of one, ``Row 2, column 3``)."""
    name = t("square_at", row=square // 4 + 1, col=square % 4 + 1)
    return name[:1].upper() + name[1:] if starts else name


NBSP: Final = "\u00a0"
_TOGETHER: Final = (
    # a name and its number: "column 3", "die 2", "dice 1, 3", "Turn 4", "place 5"
    (
        re.compile(r"\b(row|column|die|dice|square|turn|seed|score|powers|place) (?=\d)", re.I),
        "\\1" + NBSP,
    ),
    (re.compile(r"(\d), (?=\d|column" + NBSP + r"\d)"), "\\1," + NBSP),  # "Row 1, column 2"
    (re.compile(r"(\d) → (?=row" + NBSP + r"\d)", re.I), "\\1" + NBSP + "→" + NBSP),  # "5 → row 1"
    (re.compile(r" (?=[+−-]\d)"), NBSP),  # "die 2 +1", "(next −70)"
    (re.compile(r"(\d) (?=points?\b)"), "\\1" + NBSP),  # "70 points"
    (re.compile(r" \("), NBSP + "("),  # "Powers 1 (next −70)", "RUIN. (m)"
    (re.compile(r"→ "), "→" + NBSP),  # a line may begin with "→ CONFIRM", never end with "→"
    (re.compile(r" · "), NBSP + "· "),  # and may end with "·", never begin with it
)
"""Where :func:`wrap_phrases` never breaks a line: each pattern and its replacement, with
no-break spaces."""


def keep_together(text: str) -> str:
    """The text with no-break spaces inside the names a line must not split.

    >>> keep_together("place 5 → row 1, column 2 → CONFIRM").split(" ")
    ['place\xa05\xa0→\xa0row\xa01,\xa0column\xa02', '→\xa0CONFIRM']
    """
    for pattern, joined in _TOGETHER:
        text = pattern.sub(joined, text)
    return text


def wrap_phrases(text: str, width: int) -> list[str]:
    """The lines of ``text`` at most ``width`` cells wide (any width if ``width`` is 0),
    broken only between phrases: never inside a name such as "column 3" or "die 2"
    (:func:`keep_together`). A phrase wider than a whole line is broken at its no-break
    spaces, a word wider than a line where it must be.

    >>> wrap_phrases("HINT: place 5 → row 1, column 2 → CONFIRM", 30)
    ['HINT:', 'place 5 → row 1, column 2', '→ CONFIRM']
    """
    lines = [_wrap(paragraph, " ", width) for paragraph in keep_together(text).split("\n")]
    return [line.replace(NBSP, " ") for paragraph in lines for line in paragraph]


def _wrap(text: str, space: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells, broken at ``space`` (at no-break spaces
    inside a longer phrase, anywhere inside a longer word)."""
    lines: list[str] = []
    line = ""
    for word in text.split(space):
        if not line:
            line = word
        elif width <= 0 or cell_len(line) + 1 + cell_len(word) <= width:
            line += space + word
        else:
            lines.append(line)
            line = word
        if 0 < width < cell_len(line):
            if space == " ":
                *folded, line = _wrap(line, NBSP, width)
            else:
                *folded, line = [line[i : i + width] for i in range(0, len(line), width)]
            lines += folded
    lines.append(line)
    return lines
