"""The service worker's list of the page's own files (sw.js) names every script a page may
import and every language's catalog and rules: a file missing from it would be missing offline,
in the installed game, and in a page left open across an upgrade (the server answers 404 for
an older release's files). (Its cache is named by the release:
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


def test_every_script_and_every_catalog_and_rules_are_cached() -> None:
    # docs.js is the API page's; a page of the game may import every other one, and switch to
    # any language, until it reloads
    scripts = {p.name for p in (STATIC / "js").glob("*.js")} - {"docs.js"}
    files = {f"/js/{name}" for name in scripts} | {"/css/app.css"}
    for language in ("en", "et", "sv"):
        files |= {f"/i18n/{language}.json", f"/rules/{language}.txt"}
    missing = files - shell()
    assert not missing, f"add to sw.js's SHELL: {sorted(missing)}"


def test_every_listed_file_exists() -> None:
    for path in shell():
        assert (STATIC / path.lstrip("/")).is_file(), path
