"""The layers: the import graph of ``src/magdagdon`` has no cycle, the engine imports nothing
but the standard library and itself (docs/design.md, "Layers"), and nothing outside the
server's modules needs the server's libraries (docs/design.md, "Packaging")."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"


def _modules() -> dict[str, Path]:
    found = {}
    for path in SRC.rglob("*.py"):
        if "migrations" in path.parts:  # Alembic loads these by path, not by import
            continue
        name = ".".join(path.relative_to(SRC).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def import_graph() -> dict[str, set[str]]:
    """Every project module's imports of project modules (at module level and inside
    functions alike); ``from package import module`` counts as importing the module."""
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = package.split(".")
                    base = parts[: len(parts) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in modules]
                targets = subs if len(subs) == len(node.names) else [target, *subs]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            graph[name] |= {t for t in targets if t in modules and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The cycles a depth-first walk meets (none in an acyclic graph)."""
    state: dict[str, int] = {}
    path: list[str] = []
    found: list[list[str]] = []

    def walk(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                found.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                walk(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            walk(node)
    return found


def test_the_import_graph_has_no_cycle() -> None:
    graph = import_graph()
    assert "magdagdon.ai.strong" in graph and graph["magdagdon.ai.registry"]
    assert cycles(graph) == []


def test_the_checker_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]


def test_the_engine_imports_only_the_standard_library_and_itself() -> None:
    for name, path in _modules().items():
        if not name.startswith("magdagdon.engine"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                assert node.level == 1, (name, node.module)  # within the engine
            elif isinstance(node, ast.ImportFrom | ast.Import):
                names = (
                    [node.module]
                    if isinstance(node, ast.ImportFrom)
                    else [a.name for a in node.names]
                )
                for module in names:
                    top = (module or "").split(".")[0]
                    assert top in sys.stdlib_module_names or top == "__future__", (name, module)


@pytest.mark.slow  # (make check leaves it out)
def test_the_engine_and_ai_tests_need_no_server_dependency() -> None:
    """Collecting the engine's and the AI's tests imports none of the server's libraries:
    they run where only the engine is installed (as a bot writer has it)."""
    import subprocess

    code = (
        "import sys, pytest\n"
        "code = pytest.main(['--collect-only', '-q', '-p', 'no:cacheprovider', "
        "'tests/engine', 'tests/ai'])\n"
        "heavy = [m for m in ('sqlalchemy', 'fastapi', 'pydantic', 'starlette', 'alembic', "
        "'playwright', 'uvicorn') if m in sys.modules]\n"
        "print('HEAVY', *heavy)\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=SRC.parent, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "HEAVY"


# The server's libraries (the ``server`` extra's and what they bring in), by their top-level
# module names: a research install has none of them.
SERVER_LIBRARIES = (
    "fastapi",
    "starlette",
    "anyio",
    "uvicorn",
    "h11",
    "httptools",
    "uvloop",
    "watchfiles",
    "websockets",
    "dotenv",
    "sqlalchemy",
    "alembic",
    "mako",
    "psycopg",
    "psycopg_binary",
    "pydantic",
    "pydantic_core",
    "pydantic_settings",
    "swagger_ui_bundle",
    "brotli",
    "webauthn",
    "cryptography",
    "cbor2",
    "OpenSSL",
    "segno",
    "redis",
)

# The server's own modules: everything else runs without the server's libraries.
SERVER_MODULES = ("magdagdon.web", "magdagdon.store", "magdagdon.settings", "magdagdon.startup")
COACH_PROCESS_MODULES = ("magdagdon.web.coach_work",)
"""The server's modules that its coach processes import (the functions they run and their
initializer): a process that brought in FastAPI and SQLAlchemy with them spent about a second
of CPU at its start (issue 43: the suite's servers start hundreds)."""

WITHOUT_THE_SERVER = """
import contextlib, importlib, io, json, sys

blocked, modules, commands = json.loads(sys.argv[1])
tried = []


class Absent:
    '''The server's libraries are not installed: importing one fails, and is noted.'''

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in blocked:
            tried.append(name)
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


loaded = sorted(m for m in sys.modules if m.partition(".")[0] in blocked)
sys.meta_path.insert(0, Absent())
for module in modules:
    importlib.import_module(module)
from magdagdon.cli import main

statuses = []
for argv in commands:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            status = main(argv)
        except SystemExit as exc:
            status = exc.code
    statuses.append([argv, status])
print(json.dumps({"loaded": loaded, "tried": tried, "statuses": statuses}))
"""


def test_the_engine_bots_commands_and_rl_need_none_of_the_servers_libraries(
    tmp_path: Path,
) -> None:
    """Every module outside the server's, and the commands of a research install (``score``,
    ``simulate``, ``train``, ``puzzles mine --self-play``...), run where the server's libraries
    are missing and never try to import one (docs/design.md, "Packaging")."""
    import json
    import subprocess

    pytest.importorskip("textual")
    pytest.importorskip("gymnasium")
    pytest.importorskip("pyspiel")
    modules = sorted(
        name
        for name in _modules()
        if (not name.startswith(SERVER_MODULES) or name in COACH_PROCESS_MODULES)
        and not name.endswith("__main__")
    )
    assert {"magdagdon.cli", "magdagdon.gym", "magdagdon.spiel", "magdagdon.tui.app"} <= set(
        modules
    )
    assert "magdagdon.mining" in modules and "magdagdon.ai.puzzles" in modules
    assert set(COACH_PROCESS_MODULES) <= set(modules)
    out = tmp_path / "out"
    weights, puzzles = str(out / "weights.json"), str(out / "puzzles.jsonl.gz")
    commands = [
        ["--version"],
        ["score", "3456/3456/3456/3456"],
        ["check", "12../.3X./..../....", "--dice", "1", "2", "5", "6"],
        ["simulate", "--games", "2", "--json"],
        ["simulate", "--bot", "strong", "--vs", "heuristic", "--games", "1"],
        ["train", "--games", "2", "--rounds", "1", "--search-games", "0", "--output", weights],
        ["puzzles", "mine", "--self-play", "1", "--difficulty", "peaceful", "--out", puzzles],
        ["--help"],
    ]
    out.mkdir()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            WITHOUT_THE_SERVER,
            json.dumps([SERVER_LIBRARIES, modules, commands]),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["loaded"] == [], "imported before the check began"
    assert result["tried"] == []
    assert result["statuses"] == [[argv, 0] for argv in commands]
    assert (out / "weights.json").is_file() and (out / "puzzles.jsonl.gz").is_file()


def test_the_server_starts_without_the_passkeys_libraries() -> None:
    """The server's app is made without importing webauthn and the cryptography under it
    (some 15% of a server process's imports): they are imported at the first passkey asked
    for (``web/routes/account.py``); a server that nobody asks for a passkey never loads them."""
    import json
    import subprocess

    pytest.importorskip("webauthn")
    script = (
        "import json, sys\n"
        "from magdagdon.web.app import create_app\n"
        "create_app()\n"
        "print(json.dumps(sorted({m.partition('.')[0] for m in sys.modules})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "fastapi" in loaded and "sqlalchemy" in loaded
    assert not loaded & {"webauthn", "cryptography", "cbor2", "OpenSSL"}
