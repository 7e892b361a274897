"""The service worker's list of the page's own files (sw.js) names every script, and the catalog
and rules of the page's language: a file missing from it would be missing offline and in the
installed game. (Its cache is named by the release: tests/browser/test_browser_upgrade.py.)"""

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
    scripts = (STATIC / "js").glob("*.js")
    # docs.js is the API page's; the replay viewer needs the network for its game anyway, and
    # so does the account screen (every step of it is a request)
    offline = {p.name for p in scripts} - {"docs.js", "replay.js", "account.js"}
    files = {f"/js/{name}" for name in offline}
    files |= {"/i18n/{lang}.json", "/rules/{lang}.txt", "/css/app.css"}
    missing = files - shell()
    assert not missing, f"add to sw.js's SHELL: {sorted(missing)}"


def test_every_listed_file_exists() -> None:
    for path in shell():
        for language in ("en", "et", "sv"):
            assert (STATIC / path.lstrip("/").replace("{lang}", language)).is_file(), path
