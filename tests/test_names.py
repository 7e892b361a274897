"""Names in Unicode (magdagdon.names): NFKC, the invisible characters refused, and the
confusable skeleton of UTS #39 over Unicode's confusables.txt."""

from __future__ import annotations

import re
import sys
import unicodedata
from importlib.resources import files
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from magdagdon.names import (
    DEFAULT_IGNORABLE,
    is_default_ignorable,
    is_invisible,
    normalise,
    skeleton,
)
from magdagdon.web.schemas import NameUpdate

LOOK_ALIKES = [
    ("Pilot", "\u0420ilot"),  # Cyrillic Р
    ("Pilot", "Pil\u043et"),  # Cyrillic о
    ("Pilot", "P\u0456lot"),  # Cyrillic і
    ("Pilot", "Pi1ot"),  # the digit one for an l
    ("Kim", "Kirn"),  # rn for m
    ("Olga", "0lga"),  # the digit zero
    ("Ann Lee", "\u0410nn L\u0435e"),
    ("Ülle", "U\u0308lle"),  # composed or not
]


@pytest.mark.parametrize(("name", "other"), LOOK_ALIKES)
def test_look_alikes_have_one_skeleton(name: str, other: str) -> None:
    assert name != other and skeleton(name) == skeleton(other)


@pytest.mark.parametrize(
    ("name", "other"), [("Pilot", "Pilots"), ("Ann", "Anna"), ("Pilot", "pilot"), ("Ülle", "Ulle")]
)
def test_names_that_differ_have_their_own_skeletons(name: str, other: str) -> None:
    # Case is not confusability: "pilot" is told from "Pilot" at a glance.
    assert skeleton(name) != skeleton(other)


def test_full_width_letters_are_ascii_after_nfkc() -> None:
    """The data leaves compatibility characters to NFKC: the skeletons are of normal forms."""
    assert normalise("\uff30\uff49\uff4c\uff4f\uff54") == "Pilot"
    assert skeleton(normalise("\uff30\uff49\uff4c\uff4f\uff54")) == skeleton("Pilot")
    assert normalise("  Ann \u3000  Lee ") == "Ann Lee"  # ideographic space: whitespace


def test_the_skeleton_drops_default_ignorables() -> None:
    assert skeleton("Pi\u200dlot\ufe0f") == skeleton("Pilot")
    assert skeleton("\u3164") == ""


def test_the_data_file_is_whole() -> None:
    """Every mapping of confusables.txt is read: its closing count says how many."""
    text = files("magdagdon.names").joinpath("confusables.txt").read_text("utf-8-sig")
    total = re.search(r"^# total: (\d+)$", text, flags=re.MULTILINE)
    assert total is not None and "# Version: 17.0.0" in text
    mappings = [line for line in text.splitlines() if re.match(r"[0-9A-F]{4,6} ;", line)]
    assert len(mappings) == int(total.group(1)) > 6000
    assert files("magdagdon.names").joinpath("UNICODE-LICENSE.txt").is_file()


def test_every_characters_skeleton_is_its_own() -> None:
    """Repeating the skeleton settles every character (the standard's single pass leaves
    13 that do not: ``ҋ`` → ``й̦`` decomposes into ``и``, itself confusable)."""
    unsettled = []
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if unicodedata.category(char) in ("Cn", "Cs", "Co"):
            continue
        once = skeleton(char)
        if skeleton(once) != once:
            unsettled.append(f"U+{code:04X}")
    assert unsettled == []


@given(st.text(max_size=40))
def test_the_skeleton_is_idempotent(text: str) -> None:
    once = skeleton(text)
    assert skeleton(once) == once
    assert unicodedata.is_normalized("NFD", once)
    assert not any(is_default_ignorable(ch) for ch in once)


PROBES = [
    "\u3164",  # HANGUL FILLER
    "\u115f",  # HANGUL CHOSEONG FILLER
    "\u1160",  # HANGUL JUNGSEONG FILLER
    "\uffa0",  # HALFWIDTH HANGUL FILLER
    "\u200b",  # ZERO WIDTH SPACE
    "\u200c",  # ZERO WIDTH NON-JOINER
    "\u200d",  # ZERO WIDTH JOINER
    "\u200e",  # LEFT-TO-RIGHT MARK
    "\u202e",  # RIGHT-TO-LEFT OVERRIDE
    "\u2066",  # LEFT-TO-RIGHT ISOLATE
    "\u2060",  # WORD JOINER
    "\u00ad",  # SOFT HYPHEN
    "\u034f",  # COMBINING GRAPHEME JOINER
    "\ufe0f",  # VARIATION SELECTOR-16
    "\ufeff",  # ZERO WIDTH NO-BREAK SPACE
    "\U000e0041",  # TAG LATIN CAPITAL LETTER A
    "\U000e0100",  # VARIATION SELECTOR-17
]


@pytest.mark.parametrize("char", PROBES)
def test_invisible_characters(char: str) -> None:
    assert is_invisible(char) and is_default_ignorable(char)


def test_the_default_ignorables_are_what_unicode_says() -> None:
    """Each range is well formed and holds the categories the standard gives its members:
    format characters, the fillers (letters), marks (variation selectors) and reserved."""
    assert all(first <= last for first, last in DEFAULT_IGNORABLE)
    assert all(a[1] < b[0] for a, b in pairwise(DEFAULT_IGNORABLE))
    categories = {
        unicodedata.category(chr(code))
        for first, last in DEFAULT_IGNORABLE
        for code in range(first, last + 1)
    }
    assert categories <= {"Cf", "Lo", "Mn", "Cn"}
    letters = [c for c in range(0x110000) if is_default_ignorable(chr(c))]
    assert [f"{c:04X}" for c in letters if unicodedata.category(chr(c)) == "Lo"] == [
        "115F",
        "1160",
        "3164",
        "FFA0",
    ]
    assert not any(is_invisible(ch) for ch in "Pilot Ülle O'Brien-Smith_2 Majduška")


# --- the API's rules (NameUpdate) ------------------------------------------------------------

NAMEY = st.text(
    st.one_of(
        st.characters(categories=["L", "N", "Zs", "Mn", "Cf"]),
        st.sampled_from(" .'-_\u3164\uff30\uff49\u0420\u200d"),
    ),
    max_size=30,
)


def accepted(raw: str) -> str | None:
    """The name the API keeps for ``raw``, or None when it refuses it."""
    try:
        return NameUpdate(name=raw).name
    except ValidationError:
        return None


@given(NAMEY)
def test_accepted_names_are_stable(raw: str) -> None:
    """A name accepted is kept in NFKC with nothing invisible in it, and sent again it is
    accepted as it is: the name and its skeleton do not change."""
    name = accepted(raw)
    if name is None:
        return
    assert unicodedata.is_normalized("NFKC", name) and name == normalise(name)
    assert not any(is_invisible(ch) for ch in name)
    assert name.strip() and 1 <= len(name) <= 24
    assert accepted(name) == name
    assert skeleton(name) == skeleton(normalise(raw)) != ""


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ("\uff30\uff49\uff4c\uff4f\uff54", "Pilot"),
        ("  Ann   Lee ", "Ann Lee"),
        ("\ufb01sh", "fish"),
    ],
)
def test_the_api_keeps_the_nfkc_form(raw: str, kept: str) -> None:
    assert accepted(raw) == kept


@pytest.mark.parametrize("char", PROBES)
def test_the_api_refuses_invisible_characters_clearly(char: str) -> None:
    for raw in (char, f"Pi{char}lot", f"{char}Pilot", f"Pilot{char}"):
        with pytest.raises(ValidationError, match="invisible or formatting characters"):
            NameUpdate(name=raw)
