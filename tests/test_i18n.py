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
    """The page's catalog with the words of the modules that bring their own (i18n/<module>/,
    loaded with the module: the first visit does not carry them)."""
    data: dict[str, str] = json.loads((STATIC / "i18n" / f"{language}.json").read_text("utf-8"))
    for module in sorted(p for p in (STATIC / "i18n").iterdir() if p.is_dir()):
        more = json.loads((module / f"{language}.json").read_text("utf-8"))
        assert not set(more) & set(data), f"{module.name} repeats the page's words"
        data.update(more)
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
    "high_scores": ("HIGH SCORES", "PARIMAD SKOORID", "TOPPLISTA"),
    "title_high_scores": ("High scores", "Parimad skoorid", "Topplista"),
    "title_settings": ("Settings", "Seaded", "Inställningar"),
    "difficulty": ("Difficulty", "Raskusaste", "Svårighetsgrad"),
}


@pytest.mark.parametrize("key", list(GLOSSARY))
def test_game_terms_follow_the_glossary(key: str) -> None:
    for language, term in zip(LANGUAGES, GLOSSARY[key], strict=True):
        assert catalog(language)[key] == term


def button_keys() -> set[str]:
    """The keys whose words are a button's (or a link's drawn as one): the second argument of
    button() and power(), replayLink()'s words, an element of class button or chip made with
    el() and its text, a button's textContent, a question's yes, and index.html's buttons."""
    keys: set[str] = set()

    def quoted(code: str) -> set[str]:
        return set(re.findall(r'"([a-z_]+)"', code))

    for path in (STATIC / "js").glob("*.js"):
        text = path.read_text("utf-8")
        for words in re.findall(r'\b(?:button|power)\(\s*"[\w-]+",\s*(t\([^()]*\)|`[^`]*`)', text):
            keys |= quoted(words)
        made_power = r'powerButton\(\s*game,\s*t,\s*"[\w-]+",\s*(t\([^()]*\)|`[^`]*`)'
        for words in re.findall(made_power, text):
            keys |= quoted(words)
        keys |= set(re.findall(r'replayLink\([^,]+,\s*t\("([a-z_]+)"', text))
        made = (
            r'el\("(?:button|a)",\s*\{[^}]*class: "[^"]*\b(?:button|chip)\b[^"]*"'
            r"[^}]*text: (?:this\.)?t\(([^()]*)\)"
        )
        for words in re.findall(made, text):
            keys |= quoted(words)
        for words in re.findall(r"[bB]utton\.textContent = (?:this\.)?t\(([^()]*)\)", text):
            keys |= quoted(words)
        for line in text.splitlines():  # dialogs.ask(question, yes)
            if ".ask(" in line:
                keys |= set(re.findall(r'\bt\("([a-z_]+)"\)', line)[-1:])
    html = (STATIC / "index.html").read_text("utf-8")
    keys |= set(re.findall(r'<button[^>]*\bdata-i18n="([a-z_]+)"', html))
    return keys


def without_placeholders(text: str) -> str:
    return re.sub(r"\{\w+\}", "", text)


def test_button_keys_were_found() -> None:
    known = {"roll", "confirm", "new_game", "share", "review", "cancel", "save", "hint"}
    known |= {"high_scores", "settings", "replay_watch", "previous_day", "use_power", "tour_next"}
    known |= {"replay_play", "replay_play_game", "reroll_n", "accept_magdagdon", "try_again"}
    assert known <= button_keys(), sorted(known - button_keys())


@pytest.mark.parametrize("language", LANGUAGES)
def test_buttons_are_in_capitals(language: str) -> None:
    """One rule in every language (docs/design.md): the words of every button are in
    capitals, as the game's own ROLL, CONFIRM, NEW GAME; sheet titles in sentence case."""
    cat = catalog(language)
    for key in button_keys():
        for form in (key, f"{key}.one", f"{key}.other"):
            if form in cat:
                words = without_placeholders(cat[form])
                assert words == words.upper(), (form, cat[form])


# written as the glossary writes them, in a title too (with an Estonian or Swedish ending)
GAME_TERMS = re.compile(r"MAGDAGDON\w*|PEACEFUL\w*|SURVIVAL\w*|NIGHTMARE\w*|Majda Power\w*")


@pytest.mark.parametrize("language", LANGUAGES)
def test_titles_are_in_sentence_case(language: str) -> None:
    titles = {
        k: v for k, v in catalog(language).items() if k.startswith("title_") or k.endswith("_title")
    }
    assert len(titles) >= 10
    for key, text in titles.items():
        plain = GAME_TERMS.sub("x", text)
        assert text[0].isupper(), (key, text)
        assert plain[1:] == plain[1:].lower(), (key, text)


@pytest.mark.parametrize("language", LANGUAGES)
def test_what_each_difficulty_means_is_the_engines(language: str) -> None:
    """SETTINGS says what each difficulty means in the catalog's words (the client holds no
    rules): their numbers are the engine's, in the rules' order (the Majda Powers, the dice
    a turn, what the powers cost)."""
    from magdagdon.engine import Difficulty

    for difficulty in Difficulty:
        text = catalog(language)[f"difficulty_{difficulty.value}"]
        powers = [difficulty.powers] if difficulty.powers else []
        expected = [*powers, difficulty.minimum, *difficulty.penalties]
        assert [int(n) for n in re.findall(r"\d+", text)] == expected, (difficulty, text)
        assert all(f"−{p}" in text for p in difficulty.penalties), text


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


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_majda_powers_are_named_whole(language: str) -> None:
    """The word "Powers" stood alone in the Estonian and Swedish high scores and replay."""
    for key, text in catalog(language).items():
        if key.startswith("difficulty_"):
            continue  # the original rules' own words ("Power-straffen")
        alone = re.findall(r"(?<!Majda )\bPowers?\b", text)
        assert not alone, (key, text)


def test_the_swedish_words_for_a_roll_are_the_buttons() -> None:
    """The Swedish tour said "Slå" where the button says KASTA."""
    for key, text in catalog("sv").items():
        assert not re.search(r"\b[Ss]lå(r)?\b", text), (key, text)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_squares_place_is_in_lower_case_mid_sentence(language: str) -> None:
    """A square was "4 → Row 2, column 2" in hints and reviews, "row 3, column 4" in the replay."""
    text = catalog(language)["square_at"]
    assert text[0].islower(), text


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_start_pages_guard_says_the_catalogs_words(language: str) -> None:
    """js/boot.js says "connection_lost" when the catalog itself could not load: its copy of
    the words is each catalog's."""
    source = (STATIC / "js" / "boot.js").read_text("utf-8")
    words = re.search(rf'^\s*{language}: "([^"]*)",$', source, flags=re.M)
    assert words, f"boot.js has no words in {language}"
    assert words.group(1) == catalog(language)["connection_lost"]


def test_the_swedish_four_is_neuter_and_powers_are_majda_powers() -> None:
    """Swedish said "en FYRTAL … möjlig" (ett FYRTAL … möjligt) and "kraft" in the puzzles'
    themes where the game says Majda Power, and "nyckel" in leagues for the account's
    "lösennyckel" (issue 45, item 8)."""
    words = {**catalog("sv"), **json.loads((STATIC / "i18n" / "puzzles" / "sv.json").read_text())}
    for key, text in words.items():
        assert not re.search(r"\ben FYRTAL\b", text), (key, text)
        assert not re.search(r"\b[Kk]raft(en)?\b", text), (key, text)
        assert not re.search(r"(?<!lösen)\bnyckel", text), (key, text)  # a passkey is a lösennyckel


def test_swedish_names_the_daily_and_a_friends_challenge_apart() -> None:
    """Swedish called the daily "Utmaning nr 3" and a friend's challenge "utmaning" too
    ("Utmaning nr 3 tog slut" could be either); Estonian keeps them apart (päeva mäng,
    väljakutse). The daily is a "dagsspel" (issue 45, item 8)."""
    sv, en = catalog("sv"), catalog("en")
    for key, text in sv.items():
        english = en[key].lower()
        if "daily" in english and "challenge" not in english.replace("daily challenge", ""):
            assert not re.search(r"utmaning", text, re.I), (key, text)
    assert "dagsspel" in sv["daily_number"].lower()
    assert "utmaning" in sv["title_challenge"].lower()
