"""The service worker's list of the page's own files (sw.js) names every script the game's page
may import, and the catalog and rules of the page's language: a file missing from it would be
missing offline, in the installed game, and in a page left open across an upgrade (the server
answers 404 for an older release's files). (Its cache is named by the release:
tests/browser/test_browser_upgrade.py.)"""

from __future__ import annotations

import re
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "src" / "magdagdon" / "web" / "static"


def shell() -> set[str]:
    """The paths in sw.js's SHELL list."""
    source = (STATIC / "sw.js").read_text()
    listed = re.search(r"const SHELL = \[(.*?)\];", source, flags=re.S)
    assert listed, "sw.js has no SHELL list"
    return set(re.findall(r'"(/[^"]*)"', listed.group(1)))


def test_every_script_and_the_pages_catalog_and_rules_are_cached() -> None:
    # docs.js is the API page's, replay.js the replay viewer's page (which needs the network for
    # its game anyway). The screens imported when first opened (account, challenges, leagues,
    # puzzles, my games, past dailies, live rooms) are not: the first visit does not pay for
    # them (issues 34 and 35), they are cached once opened, and after an upgrade the server
    # still answers an older page for them (store/releases.py)
    later = {
        "account.js",
        "challenges.js",
        "leagues.js",
        "puzzles.js",
        "mygames.js",
        "pastdailies.js",
        "rooms.js",
        "askname.js",
    }
    scripts = {p.name for p in (STATIC / "js").glob("*.js")} - {"docs.js", "replay.js"} - later
    files = {f"/js/{name}" for name in scripts}
    files |= {"/i18n/{lang}.json", "/rules/{lang}.txt", "/css/app.css"}
    missing = files - shell()
    assert not missing, f"add to sw.js's SHELL: {sorted(missing)}"
    assert not {f"/js/{name}" for name in later} & shell()
    assert not {"/css/friends.css", "/css/puzzles.css", "/css/rooms.css"} & shell()


def test_every_listed_file_exists() -> None:
    for path in shell():
        for language in ("en", "et", "sv"):
            assert (STATIC / path.lstrip("/").replace("{lang}", language)).is_file(), path
