"""The repository explains itself: docs/rules.md has every ruling the code and tests cite,
docs/design.md lists the API, settings and error codes as built, and nothing refers to
documents outside the repository."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from magdagdon.settings import Settings
from magdagdon.web.app import create_app

from .utils.codes import error_codes

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
RULES = (DOCS / "rules.md").read_text("utf-8")
DESIGN = (DOCS / "design.md").read_text("utf-8")

# Not the repository's own text: version control, environments, caches, build output.
SKIPPED_DIRS = {"__pycache__", "node_modules", "build", "dist", "test-artifacts"}
BINARY_SUFFIXES = {".so", ".db", ".png", ".ico", ".woff2"}
CITING_SUFFIXES = {".py", ".pyi", ".c", ".js", ".html", ".md"}

# The documents that used to live beside the checkout, by the ways they were named: the folder
# one level up, a path joined with that folder's name, and the outside documents' file names
# in capitals (the repository's own are docs/rules.md and docs/design.md, in lower case).
OUTSIDE = re.compile(
    r"\.\./" + "shared" + r"\b"
    r"|/\s*[\"']" + "shared" + r"[\"']"
    r"|\b(?:RULES|DESIGN|STYLE|UI)\.md\b"
)
CITED_RULING = re.compile(r"\bR(\d+)\b")


def _generated(part: str) -> bool:
    """A folder or file that is not the repository's own text."""
    hidden = part.startswith(".") and part != ".ci"
    return hidden or part in SKIPPED_DIRS or part.endswith(".egg-info")


def repository_files() -> Iterator[Path]:
    """Every file of the repository's own (what a clone holds, plus work not yet committed)."""
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if not _generated(d))
        for name in sorted(files):
            path = Path(folder) / name
            if not _generated(name) and path.suffix not in BINARY_SUFFIXES:
                yield path


def text_of(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


def test_nothing_refers_to_documents_outside_the_repository() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{text_of(path)[: m.start()].count(chr(10)) + 1}: {m.group()}"
        for path in repository_files()
        for m in OUTSIDE.finditer(text_of(path))
    ]
    assert not found, "refer to docs/ instead:\n" + "\n".join(found)


def test_the_files_searched_include_the_usual_places() -> None:
    searched = {path.relative_to(ROOT).as_posix() for path in repository_files()}
    assert {"README.md", "Makefile", ".ci/run", "scripts/build_rules.py"} <= searched
    assert "src/magdagdon/engine/game.py" in searched and "tests/test_docs.py" in searched


def rulings() -> list[int]:
    """The rulings of docs/rules.md, by their headings ("### R5 When a turn is in MAGDAGDON")."""
    return [int(n) for n in re.findall(r"^### R(\d+) \S", RULES, flags=re.MULTILINE)]


def test_rulings_are_numbered_one_by_one() -> None:
    assert rulings() == list(range(1, 18))


def test_every_cited_ruling_is_in_the_rules() -> None:
    cited: dict[int, list[str]] = {}
    places = [ROOT / "src", ROOT / "tests", ROOT / "scripts", ROOT / "benchmarks"]
    files = [p for place in places for p in place.rglob("*") if p.suffix in CITING_SUFFIXES]
    files += [ROOT / "README.md", DOCS / "design.md"]
    for path in files:
        if any(_generated(part) for part in path.relative_to(ROOT).parts):
            continue
        for m in CITED_RULING.finditer(text_of(path)):
            cited.setdefault(int(m.group(1)), []).append(str(path.relative_to(ROOT)))
    assert len(cited) >= 10, "the search found the rulings the engine cites"
    missing = {n: where for n, where in cited.items() if n not in rulings()}
    assert not missing, f"rulings cited but not in docs/rules.md: {missing}"


def test_the_rules_point_to_existing_rulings() -> None:
    rules_part = RULES[RULES.index("## Goal") : RULES.index("## Rulings")]
    pointed = {int(n) for n in CITED_RULING.findall(rules_part)}
    assert pointed and pointed <= set(rulings())


@pytest.mark.parametrize("page", ["README.md", "rules.md", "design.md"])
def test_links_between_the_docs_resolve(page: str) -> None:
    path = DOCS / page
    if not path.exists():
        pytest.skip(f"no docs/{page}")
    for target in re.findall(r"\]\(([^)\s]+)\)", text_of(path)):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file) if file else path
        assert linked.exists(), f"docs/{page} links to {target}"
        if anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", text_of(linked), flags=re.MULTILINE)
            slugs = {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}
            assert anchor in slugs, f"docs/{page} links to {target}: no such heading"


def test_design_lists_every_endpoint(tmp_path: Path) -> None:
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'm.db'}"), migrate=False)
    served = {
        (method.upper(), path)
        for path, operations in app.openapi()["paths"].items()
        for method in operations
    }
    listed = {
        (method, path.split("?")[0])
        for method, path in re.findall(r"^\| `([A-Z]+) (/[^` ]*)`", DESIGN, flags=re.MULTILINE)
    }
    assert listed == served


def test_design_names_every_setting() -> None:
    missing = [name for name in Settings.model_fields if name.upper() not in DESIGN]
    assert not missing, f"docs/design.md does not name {missing}"


def test_design_names_every_error_code() -> None:
    codes = error_codes()
    assert len(codes) > 20, "the search found the codes"
    missing = sorted(code for code in codes if f"`{code}`" not in DESIGN)
    assert not missing, f"docs/design.md does not name {missing}"
