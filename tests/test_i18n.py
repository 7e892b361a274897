"""Translations: every catalog has every key the client uses; glossary terms; rules texts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .utils.codes import error_codes

STATIC = Path(__file__).resolve().parent.parent / "src" / "magdagdon" / "web" / "static"
LANGUAGES = ("en", "et", "sv")


def catalog(language: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((STATIC / "i18n" / f"{language}.json").read_text("utf-8"))
    return data


def used_keys() -> set[str]:
    """Every translation key the page and its scripts ask for (plural keys as their base)."""
    keys: set[str] = set()
    for path in (STATIC / "js").glob("*.js"):
        text = path.read_text("utf-8")
        keys |= set(re.findall(r"\bt\(\s*\"([a-z_]+)\"", text))
        keys |= set(re.findall(r"t\([^()]*\?\s*\"([a-z_]+)\"\s*:\s*\"[a-z_]+\"", text))
        keys |= set(re.findall(r"t\([^()]*\?\s*\"[a-z_]+\"\s*:\s*\"([a-z_]+)\"", text))
        if "t(`bonus_${" in text:
            keys |= {"bonus_straight", "bonus_four", "bonus_two_pairs"}
    html = (STATIC / "index.html").read_text("utf-8")
    keys |= set(re.findall(r'data-i18n(?:-label)?="([a-z_]+)"', html))
    return keys


def has(cat: dict[str, str], key: str) -> bool:
    return key in cat or (f"{key}.one" in cat and f"{key}.other" in cat)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_used_key_is_translated(language: str) -> None:
    cat = catalog(language)
    missing = sorted(k for k in used_keys() if not has(cat, k))
    assert not missing, f"{language} lacks {missing}"


def test_used_keys_were_found() -> None:
    keys = used_keys()
    assert len(keys) > 80 and {"roll", "confirm", "dead_end", "place_at_least"} <= keys


@pytest.mark.parametrize("language", ["et", "sv"])
def test_catalogs_have_the_same_keys(language: str) -> None:
    assert set(catalog(language)) == set(catalog("en"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_placeholders_match_english(language: str) -> None:
    english = catalog("en")
    for key, text in catalog(language).items():
        assert set(re.findall(r"\{(\w+)\}", text)) == set(re.findall(r"\{(\w+)\}", english[key])), (
            key
        )
        assert text.strip(), key


GLOSSARY = {
    "roll": ("ROLL", "VEERETA", "KASTA"),
    "confirm": ("CONFIRM", "KINNITA", "BEKRÄFTA"),
    "decrease": ("DECREASE −1", "VÄHENDA −1", "MINSKA −1"),
    "increase": ("INCREASE +1", "SUURENDA +1", "ÖKA +1"),
    "reroll": ("REROLL", "VEERETA UUESTI", "KASTA OM"),
    "settings": ("SETTINGS", "SEADED", "INSTÄLLNINGAR"),
    "square_ruin": ("RUIN", "VARE", "RUIN"),
    "bonus_straight": ("STRAIGHT", "SIRGE", "STEGE"),
    "bonus_four": ("FOUR", "NELIK", "FYRTAL"),
    "bonus_two_pairs": ("TWO PAIRS", "KAKS PAARI", "TVÅ PAR"),
    "high_scores": ("High scores", "Parimad skoorid", "Topplista"),
    "difficulty": ("Difficulty", "Raskusaste", "Svårighetsgrad"),
}


@pytest.mark.parametrize("key", list(GLOSSARY))
def test_game_terms_follow_the_glossary(key: str) -> None:
    for language, term in zip(LANGUAGES, GLOSSARY[key], strict=True):
        assert catalog(language)[key] == term


@pytest.mark.parametrize("language", LANGUAGES)
def test_game_terms_stay_english(language: str) -> None:
    text = " ".join(catalog(language).values())
    assert "MAGDAGDON" in text and "Majda Power" in text


@pytest.mark.parametrize(("language", "first"), [("et", "EESMÄRK"), ("sv", "MÅL"), ("en", "GOAL")])
def test_rules_text_starts_at_the_first_section(language: str, first: str) -> None:
    text = (STATIC / "rules" / f"{language}.txt").read_text("utf-8")
    assert text.startswith(first)
    assert "Mängige numbrit" not in text and "Rulings" not in text
    assert not re.search(r"\bR\d+\b", text), "a ruling's number on a rules screen"


def test_rules_texts_are_built_from_the_docs() -> None:
    """The rules screens are what scripts/build_rules.py makes of docs/rules.md and the
    original texts in docs/rules/ (run it after changing them)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "build_rules", Path(__file__).resolve().parent.parent / "scripts" / "build_rules.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for language, text in module.texts().items():
        assert (STATIC / "rules" / f"{language}.txt").read_text("utf-8") == text, language


def test_words_a_new_player_reported() -> None:
    """Issue #14: the About text states the minimum (at least two dice, three in NIGHTMARE);
    Estonian counts RUINS in the partitive ("6 VARET"); Swedish reviews say "Tur", as the
    game does."""
    assert "at least two" in catalog("en")["about_text"]
    assert "place four dice" not in catalog("en")["about_text"]
    assert catalog("et")["ruins_n.other"] == "{n} VARET"
    assert catalog("sv")["review_turn"].startswith("Tur ")
    assert catalog("sv")["turn"] == "Tur"


def api_error_codes() -> set[str]:
    """Every error code the server can answer: those written in its source, and the HTTP
    ones its error handler names."""
    return error_codes() | {"not_found", "method_not_allowed"}


@pytest.mark.parametrize("language", ["en", "et", "sv"])
def test_every_api_error_code_is_translated(language: str) -> None:
    """The server's messages are English; the client says them in the player's language by
    their stable code (issue #14)."""
    codes = api_error_codes()
    assert len(codes) > 25
    missing = sorted(code for code in codes if f"error_{code}" not in catalog(language))
    assert not missing, missing
