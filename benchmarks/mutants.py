"""Mutation testing of the rules' three copies: how many small changes to the engine (Python),
the C engine (``engine/_fastgame.c``) and the AI's accelerator (``ai/_fast.c``) a test
selection notices.

Run: ``python -m benchmarks.mutants`` (from the repository root; see ``--help``). Each mutant is
one small change to one source file (a comparison's operator, ``+`` for ``-``, ``and`` for
``or``, a ``not`` dropped, a whole number plus one), made in a copy of ``src/`` in a temporary
directory (a C file's module built anew there); the tests run on that copy through
``PYTHONPATH`` (the checkout's own files are never touched), stopping at the first failure. A
mutant is *killed* when a test fails or the run times out, *survives* when every test passes,
and is *stillborn* when it does not build or import (not counted). The mutants are a sample
drawn with a seed from every change the rules allow in the file, so two runs with the same
arguments try the same mutants: ``--suite`` runs another checkout's tests against the same
mutants (issue 43: the suite after a change kills at least what it killed before).

Prints one line a mutant and the counts; asserts nothing.
"""

from __future__ import annotations

import argparse
import ast
import os
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TARGETS: dict[str, tuple[str, ...]] = {
    "engine": (
        "src/magdagdon/engine/board.py",
        "src/magdagdon/engine/dice.py",
        "src/magdagdon/engine/game.py",
        "src/magdagdon/engine/placement.py",
        "src/magdagdon/engine/scoring.py",
        "src/magdagdon/engine/actions.py",
    ),
    "c-engine": ("src/magdagdon/engine/_fastgame.c",),
    "accelerator": ("src/magdagdon/ai/_fast.c",),
}
"""The files of each copy of the rules whose mutants are drawn."""

TESTS: dict[str, tuple[str, ...]] = {
    "engine": ("tests/engine",),
    "c-engine": ("tests/rl/test_fast_game.py", "tests/engine"),
    "accelerator": ("tests/ai/test_fast.py", "tests/ai/test_strong.py", "tests/ai/test_powers.py"),
}
"""The tests each copy's mutants are run against (those that check that copy's rules: the
engine's own, the C engine's comparisons with the Python engine, the accelerator's with the
strong player's Python); ``--tests`` names others."""


NATIVE = ("magdagdon.engine._fastgame", "magdagdon.ai._fast")


@dataclass(frozen=True)
class Mutant:
    """One change: in ``path`` (relative to the root), ``old`` at character ``start`` becomes
    ``new``; ``line`` for the report."""

    path: str
    start: int
    old: str
    new: str
    line: int

    def apply(self, text: str) -> str:
        """``text`` (the file's) with the change made."""
        assert text[self.start : self.start + len(self.old)] == self.old, self
        return text[: self.start] + self.new + text[self.start + len(self.old) :]

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.old!r} -> {self.new!r}"


_SWAPS = {
    "<": "<=",
    "<=": "<",
    ">": ">=",
    ">=": ">",
    "==": "!=",
    "!=": "==",
    "+": "-",
    "-": "+",
    "and": "or",
    "or": "and",
    "&&": "||",
    "||": "&&",
    "+=": "-=",
    "-=": "+=",
}


def _offsets(text: str) -> list[int]:
    """The character offset at which each line (1-based: index line - 1) starts."""
    starts, at = [], 0
    for line in text.splitlines(keepends=True):
        starts.append(at)
        at += len(line)
    return starts


def python_mutants(path: str, text: str) -> Iterator[Mutant]:
    """Every mutant of a Python file: the operators of comparisons, of ``+``/``-`` (as binary
    operators and augmented assignments), of ``and``/``or``, a ``not`` dropped, a whole
    number (not a boolean, not in a docstring or an annotation) plus one."""
    tree = ast.parse(text)
    starts = _offsets(text)

    def at(line: int, col: int) -> int:
        # ast's columns count UTF-8 bytes
        line_text = text[starts[line - 1] :].split("\n", 1)[0]
        return starts[line - 1] + len(line_text.encode()[:col].decode())

    def between(node_a: ast.AST, node_b: ast.AST, ops: tuple[str, ...], line: int) -> None:
        a = at(node_a.end_lineno, node_a.end_col_offset)  # type: ignore[attr-defined]
        b = at(node_b.lineno, node_b.col_offset)  # type: ignore[attr-defined]
        gap = text[a:b]
        for op in ops:
            found = re.search(rf"(?<![<>=!+\-*/]){re.escape(op)}(?![<>=*/])", gap)
            if found and (op not in ("and", "or") or re.search(rf"\b{op}\b", gap)):
                found_at = a + found.start()
                found_mutants.append(Mutant(path, found_at, op, _SWAPS[op], line))
                return

    found_mutants: list[Mutant] = []
    annotations: set[int] = set()
    for node in ast.walk(tree):
        for field in ("annotation", "returns"):
            sub = getattr(node, field, None)
            if sub is not None:
                annotations.update(id(n) for n in ast.walk(sub))
    for node in ast.walk(tree):
        if id(node) in annotations:
            continue
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            ops = {
                ast.Lt: ("<",),
                ast.LtE: ("<=",),
                ast.Gt: (">",),
                ast.GtE: (">=",),
                ast.Eq: ("==",),
                ast.NotEq: ("!=",),
            }.get(type(node.ops[0]))
            if ops:
                between(node.left, node.comparators[0], ops, node.lineno)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            between(
                node.left, node.right, ("+" if isinstance(node.op, ast.Add) else "-",), node.lineno
            )
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Add, ast.Sub)):
            between(
                node.target,
                node.value,
                ("+=" if isinstance(node.op, ast.Add) else "-=",),
                node.lineno,
            )
        elif isinstance(node, ast.BoolOp):
            op = "and" if isinstance(node.op, ast.And) else "or"
            between(node.values[0], node.values[1], (op,), node.lineno)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            start = at(node.lineno, node.col_offset)
            if text.startswith("not ", start):
                found_mutants.append(Mutant(path, start, "not ", "", node.lineno))
        elif (
            isinstance(node, ast.Constant)
            and type(node.value) is int
            and node.end_lineno == node.lineno
        ):
            start = at(node.lineno, node.col_offset)
            end = at(node.lineno, node.end_col_offset or node.col_offset)
            literal = text[start:end]
            if literal.isdigit():
                found_mutants.append(
                    Mutant(path, start, literal, str(int(literal) + 1), node.lineno)
                )
    yield from sorted(found_mutants, key=lambda m: m.start)


_C_TOKEN = re.compile(r"<=|>=|==|!=|&&|\|\||\+=|-=|(?<=\s)[<>+\-](?=\s)|\b\d+\b")


def c_mutants(path: str, text: str) -> Iterator[Mutant]:
    """Every mutant of a C file outside comments, strings, character constants and preprocessor
    lines: the operators of comparisons, of ``&&``/``||``, of ``+``/``-`` (binary: spaced, as
    the code is written; and ``+=``/``-=``), a decimal whole number plus one."""
    blanked = re.sub(
        r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|^[ \t]*#[^\n]*',
        lambda m: re.sub(r"[^\n]", " ", m.group()),
        text,
        flags=re.S | re.M,
    )
    starts = _offsets(text)
    line = 0
    for found in _C_TOKEN.finditer(blanked):
        while line + 1 < len(starts) and starts[line + 1] <= found.start():
            line += 1
        token = found.group()
        if token.isdigit():
            if "." in blanked[found.end() : found.end() + 1] or "." in blanked[found.start() - 1]:
                continue  # part of a floating-point number
            new = str(int(token) + 1)
        else:
            new = _SWAPS[token]
        yield Mutant(path, found.start(), token, new, line + 1)


def all_mutants(files: tuple[str, ...], root: Path) -> list[Mutant]:
    """Every mutant of the files, in a fixed order."""
    found: list[Mutant] = []
    for path in files:
        text = (root / path).read_text()
        found += c_mutants(path, text) if path.endswith(".c") else python_mutants(path, text)
    return found


def build_c(src: Path, c_file: Path) -> None:
    """Build the C module of ``c_file`` into its package beside it (as setup.py's flags)."""
    module = c_file.stem
    out = c_file.with_name(module + sysconfig.get_config_var("EXT_SUFFIX"))
    include = sysconfig.get_paths()["include"]
    subprocess.run(
        [
            "cc",
            "-O2",
            "-ffp-contract=off",
            "-shared",
            "-fPIC",
            f"-I{include}",
            str(c_file),
            "-o",
            str(out),
        ],
        check=True,
        capture_output=True,
        cwd=src,
    )


def run_tests(copy: Path, suite: Path, tests: tuple[str, ...], timeout: float) -> str:
    """``killed``, ``survived`` or ``timeout``: the tests of ``suite`` on the source ``copy``."""
    env = {
        **os.environ,
        "PYTHONPATH": str(copy / "src"),
        "MAGDAGDON_REQUIRE_NATIVE": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.pop("MAGDAGDON_PURE_PYTHON", None)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-x",
        "-q",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
    ]
    command += ["-n", "0", "--no-header", "-o", "addopts=--strict-markers", *tests]
    try:
        done = subprocess.run(command, cwd=suite, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    return "survived" if done.returncode == 0 else "killed"


def check_copy(copy: Path) -> None:
    """The copy's modules are the ones a test imports (not the checkout's)."""
    env = {**os.environ, "PYTHONPATH": str(copy / "src")}
    where = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import {', '.join(NATIVE)}; print({', '.join(n + '.__file__' for n in NATIVE)})",
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert all(p.startswith(str(copy)) for p in where.split()), where


def try_mutant(
    mutant: Mutant, copy: Path, suite: Path, tests: tuple[str, ...], timeout: float
) -> str:
    """Make the mutant in ``copy``, run the tests, and put the file back."""
    file = copy / mutant.path
    original = file.read_text()
    try:
        file.write_text(mutant.apply(original))
        if mutant.path.endswith(".c"):
            try:
                build_c(copy, file)
            except subprocess.CalledProcessError:
                return "stillborn"
        else:
            compiled = subprocess.run(
                [sys.executable, "-c", f"import ast; ast.parse(open({str(file)!r}).read())"]
            )
            if compiled.returncode:
                return "stillborn"
        return run_tests(copy, suite, tests, timeout)
    finally:
        file.write_text(original)
        if mutant.path.endswith(".c"):
            build_c(copy, file)


def run_target(target: str, args: argparse.Namespace) -> dict[str, int]:
    """Try the target's sample of mutants; the counts of each outcome."""
    mutants = all_mutants(TARGETS[target], ROOT)
    sample = sorted(
        random.Random(f"{args.seed}:{target}").sample(mutants, min(args.sample, len(mutants))),
        key=lambda m: (m.path, m.start),
    )
    tests = tuple(args.tests) if args.tests else TESTS[target]
    counts = {"killed": 0, "timeout": 0, "survived": 0, "stillborn": 0}
    with tempfile.TemporaryDirectory(prefix="mutants-") as tmp:
        copies = []
        for job in range(args.jobs):
            copy = Path(tmp) / f"copy{job}"
            ignore = shutil.ignore_patterns("__pycache__", "*.so")
            shutil.copytree(ROOT / "src", copy / "src", ignore=ignore)
            for c_file in (copy / "src").rglob("*.c"):
                build_c(copy, c_file)
            check_copy(copy)
            copies.append(copy)
        started = time.monotonic()
        baseline = run_tests(copies[0], args.suite, tests, timeout=3600)
        took = time.monotonic() - started
        print(
            f"{target}: {len(mutants)} mutants, {len(sample)} tried; tests {' '.join(tests)} "
            f"of {args.suite}: {baseline} unmutated in {took:.0f} s",
            flush=True,
        )
        if baseline != "survived":
            sys.exit(f"the tests fail on the unmutated copy of {target}")
        timeout = max(60.0, 3 * took)

        def one(mutant: Mutant) -> tuple[Mutant, str]:
            copy = copies.pop()
            try:
                return mutant, try_mutant(mutant, copy, args.suite, tests, timeout)
            finally:
                copies.append(copy)

        with ThreadPoolExecutor(args.jobs) as pool:
            for mutant, outcome in pool.map(one, sample):
                counts[outcome] += 1
                print(f"  {outcome:9} {mutant}", flush=True)
    return counts


def main() -> None:
    """Parse the arguments, try each target's mutants and print the counts."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--target", choices=list(TARGETS), action="append", help="(repeatable)")
    parser.add_argument("--sample", type=int, default=40, help="mutants a target (default 40)")
    parser.add_argument("--seed", type=int, default=43)
    parser.add_argument("--suite", type=Path, default=ROOT, help="the checkout whose tests run")
    parser.add_argument("--tests", nargs="*", help="the tests to run (default: each target's)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants tried at once (default 2)")
    parser.add_argument("--list", action="store_true", help="say how many mutants there are")
    args = parser.parse_args()
    targets = args.target or list(TARGETS)
    if args.list:
        for target in targets:
            print(f"{target}: {len(all_mutants(TARGETS[target], ROOT))} mutants")
        return
    totals = {target: run_target(target, args) for target in targets}
    for target, counts in totals.items():
        killed = counts["killed"] + counts["timeout"]
        tried = killed + counts["survived"]
        print(
            f"{target:12} killed {killed:3} of {tried:3} (timeouts {counts['timeout']}, "
            f"survived {counts['survived']}, stillborn {counts['stillborn']})"
        )


if __name__ == "__main__":
    main()
