"""The service worker's list of the page's own files (sw.js) names every script and catalog the
page can load: a file missing from it would be missing offline and in the installed game."""

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


def test_every_script_and_catalog_is_cached() -> None:
    files = {f"/js/{p.name}" for p in (STATIC / "js").glob("*.js") if p.name != "docs.js"}
    files |= {f"/i18n/{p.name}" for p in (STATIC / "i18n").glob("*.json")}
    missing = files - shell()
    assert not missing, f"add to sw.js's SHELL (and rename its CACHE): {sorted(missing)}"


def test_every_listed_file_exists() -> None:
    for path in shell() - {"/"}:
        assert (STATIC / path.lstrip("/")).is_file(), path
