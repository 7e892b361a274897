"""Players' names in Unicode: the normal form a name is kept in, the invisible characters a
name may not hold, and the confusable skeleton that tells look-alike names apart (Unicode
Technical Standard #39, "Unicode Security Mechanisms").

The skeleton's data is Unicode's own ``confusables.txt`` (UTS #39 version 17.0.0), shipped
unchanged beside this module with its licence (``UNICODE-LICENSE.txt``). The libraries on
PyPI were weighed first: ``confusable-homoglyphs`` answers whether a string mixes scripts
and lists each character's homoglyphs, but computes no skeleton; ``confusables`` compares
two strings pairwise and "normalises" into several candidate spellings with additions of its
own (``a`` → ``@``), from the 2020 data (13.0), so neither gives the one key per name that a
unique index needs; ICU's ``SpoofChecker`` does (PyICU and the like), at the price of the
whole ICU library for one function. The skeleton itself is a few lines over the data.

Default_Ignorable_Code_Point is not in :mod:`unicodedata`; its ranges are below, as
``DerivedCoreProperties.txt`` lists them (the same in Unicode 15.0 and 17.0).
"""

from __future__ import annotations

import unicodedata
from functools import cache
from importlib.resources import files
from typing import Final

DEFAULT_IGNORABLE: Final = (
    (0x00AD, 0x00AD),  # SOFT HYPHEN
    (0x034F, 0x034F),  # COMBINING GRAPHEME JOINER
    (0x061C, 0x061C),  # ARABIC LETTER MARK
    (0x115F, 0x1160),  # HANGUL CHOSEONG FILLER, HANGUL JUNGSEONG FILLER
    (0x17B4, 0x17B5),  # KHMER VOWEL INHERENT AQ, AA
    (0x180B, 0x180F),  # MONGOLIAN FREE VARIATION SELECTORS, VOWEL SEPARATOR
    (0x200B, 0x200F),  # ZERO WIDTH SPACE .. RIGHT-TO-LEFT MARK (ZWNJ, ZWJ)
    (0x202A, 0x202E),  # LEFT-TO-RIGHT EMBEDDING .. RIGHT-TO-LEFT OVERRIDE
    (0x2060, 0x206F),  # WORD JOINER .. NOMINAL DIGIT SHAPES (the isolates)
    (0x3164, 0x3164),  # HANGUL FILLER
    (0xFE00, 0xFE0F),  # VARIATION SELECTOR-1..16
    (0xFEFF, 0xFEFF),  # ZERO WIDTH NO-BREAK SPACE
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER
    (0xFFF0, 0xFFF8),  # reserved
    (0x1BCA0, 0x1BCA3),  # SHORTHAND FORMAT LETTER OVERLAP .. UP STEP
    (0x1D173, 0x1D17A),  # MUSICAL SYMBOL BEGIN BEAM .. END PHRASE
    (0xE0000, 0xE0FFF),  # tags, VARIATION SELECTOR-17..256, reserved
)
"""Unicode's Default_Ignorable_Code_Point: characters shown as nothing at all, first and last
of each range."""

_SKELETON_PASSES: Final = 4


def is_default_ignorable(char: str) -> bool:
    """Whether a character is Default_Ignorable_Code_Point (drawn as nothing)."""
    code = ord(char)
    return any(first <= code <= last for first, last in DEFAULT_IGNORABLE)


def is_invisible(char: str) -> bool:
    """Whether a character is invisible or formatting: a format character (category Cf:
    zero-width joiners, direction marks and overrides, ...) or default-ignorable (the Hangul
    fillers, variation selectors, ...)."""
    return unicodedata.category(char) == "Cf" or is_default_ignorable(char)


def normalise(name: str) -> str:
    """A name as it is kept: NFKC (full-width letters become ASCII, ligatures letters, ...),
    with the whitespace at its ends trimmed and each run of whitespace made one space.

    >>> normalise("  Ｐｉｌｏｔ\\u3000 ｏｎｅ ")
    'Pilot one'
    """
    return " ".join(unicodedata.normalize("NFKC", name).split())


@cache
def _prototypes() -> dict[int, str | None]:
    """confusables.txt as a :meth:`str.translate` table (each character to its prototype),
    the default-ignorable characters mapped to nothing."""
    table: dict[int, str | None] = {}
    text = files(__name__).joinpath("confusables.txt").read_text("utf-8-sig")
    for line in text.splitlines():
        data = line.split("#", 1)[0].strip()
        if not data:
            continue
        source, target, *_ = (field.strip() for field in data.split(";"))
        table[int(source, 16)] = "".join(chr(int(code, 16)) for code in target.split())
    for first, last in DEFAULT_IGNORABLE:
        table.update(dict.fromkeys(range(first, last + 1)))
    return table


def skeleton(text: str) -> str:
    """The confusable skeleton of UTS #39: two strings that look alike have the same one
    (``"Pilot"`` with a Latin or a Cyrillic ``P``, ``"rn"`` and ``"m"``, ``"l"`` and ``"1"``).

    NFD, the default-ignorable characters removed, each character replaced by its
    prototype from confusables.txt, NFD again; repeated until nothing changes. (Once is the
    standard's definition, and all but 13 characters settle then: a few prototypes, such
    as ``ҋ``'s ``й̦``, decompose into characters of their own prototypes. Repeating makes
    the skeleton its own skeleton; strings with one skeleton still have one.) Compare the
    skeletons of NFKC-normalised strings (:func:`normalise`): the data leaves the
    compatibility characters, full-width letters among them, to NFKC.

    >>> skeleton("Pilot") == skeleton("\\u0420ilot") != skeleton("Pilot2")
    True
    >>> skeleton("Kim")
    'Kirn'
    """
    table = _prototypes()
    current = unicodedata.normalize("NFD", text)
    for _ in range(_SKELETON_PASSES):
        mapped = unicodedata.normalize("NFD", current.translate(table))
        if mapped == current:
            break
        current = mapped
    return current
