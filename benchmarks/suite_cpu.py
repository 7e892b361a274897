"""Where a run's CPU goes, by kind of process: the suite's workers, its servers, the coach's
processes, the browsers... (issue 43).

Run: ``python -m benchmarks.suite_cpu [--every 0.2] -- COMMAND...`` runs the command (e.g.
``make test``) and samples every process of the machine meanwhile (``/proc``), then prints the
CPU seconds each kind used (:data:`KINDS`, the first pattern of its command line that matches),
the number of processes of each kind, and the machine's own figures from ``/proc/stat``: busy
and idle, so that what the sampling missed (processes that lived less than a sample's
interval) shows as the difference. Without a command it samples until interrupted (Ctrl-C).

A process is known by its pid and its start time (pids are used again: ``pid_max`` is 32,768
here); its CPU is its last sample's user and system time. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")

KINDS: tuple[tuple[str, str], ...] = (
    ("coach (fork server and its processes)", r"multiprocessing\.forkserver"),
    ("spawned processes", r"multiprocessing\.spawn|--multiprocessing-fork"),
    ("test servers", r"magdagdon(\.cli)? serve|uvicorn"),
    ("pytest workers", r"xdist|execnet|pytest|py\.test|exec\(eval\(sys\.stdin"),
    ("Chromium", r"chrom|headless_shell"),
    ("Playwright's driver", r"playwright"),
    ("Firefox", r"firefox"),
    ("WebKit", r"WebKit|MiniBrowser"),
    ("Xvfb", r"Xvfb"),
    ("node (puppeteer)", r"\bnode\b"),
    ("PostgreSQL", r"postgres"),
    ("Redis", r"redis-server"),
    ("nginx", r"nginx"),
    ("install (pip, make, gcc)", r"\bpip\b|\bmake\b|gcc|cc1|\bld\b|setuptools|build_ext"),
    ("lint and types", r"ruff|mypy"),
    ("the starter set's mining", r"benchmarks\.starter"),
)
"""(kind, pattern of the command line), the first match counting."""


def kind_of(cmdline: str) -> str:
    """The kind of a process by its command line (:data:`KINDS`), or "other"."""
    for kind, pattern in KINDS:
        if re.search(pattern, cmdline):
            return kind
    return "other"


def machine() -> tuple[float, float]:
    """The machine's busy and idle CPU seconds since boot (``/proc/stat``)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    busy = sum(fields[:8]) - idle  # user nice system idle iowait irq softirq steal
    return busy / TICK, idle / TICK


def sample(seen: dict[tuple[int, int], tuple[str, float]]) -> None:
    """Every process's CPU now, into ``seen`` (keyed by pid and start time)."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
            key = (int(entry.name), 0)
            rest = stat[stat.rindex(")") + 2 :].split()
            cpu = (int(rest[11]) + int(rest[12])) / TICK  # utime, stime (fields 14, 15)
            key = (int(entry.name), int(rest[19]))  # starttime (field 22)
            if key in seen:
                seen[key] = (seen[key][0], cpu)
                continue
            raw = Path(entry.path, "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
        seen[key] = (kind_of(raw.replace(b"\0", b" ").decode(errors="replace")), cpu)


def report(
    seen: dict[tuple[int, int], tuple[str, float]],
    since: tuple[float, float],
    before: dict[tuple[int, int], tuple[str, float]],
    wall: float,
) -> str:
    """The CPU of each kind used since the first sample, and the machine's."""
    used: dict[str, float] = {}
    count: Counter[str] = Counter()
    for key, (kind, cpu) in seen.items():
        start = before.get(key, (kind, 0.0))[1]
        if cpu - start > 0:
            used[kind] = used.get(kind, 0.0) + cpu - start
            count[kind] += 1
    busy, idle = (now - then for now, then in zip(machine(), since, strict=True))
    lines = [f"{'kind':<40} {'CPU s':>8} {'processes':>9}"]
    lines += [
        f"{kind:<40} {cpu:8.1f} {count[kind]:9}"
        for kind, cpu in sorted(used.items(), key=lambda kv: -kv[1])
    ]
    lines.append(f"{'sampled, in all':<40} {sum(used.values()):8.1f}")
    lines.append(
        f"machine: busy {busy:.1f} s, idle {idle:.1f} s of {wall:.1f} s wall "
        f"({100 * idle / max(busy + idle, 1e-9):.0f}% idle); not sampled "
        f"{busy - sum(used.values()):.1f} s"
    )
    return "\n".join(lines)


def main() -> int:
    """The command line (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--every", type=float, default=0.2, help="seconds between samples")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND...")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    before: dict[tuple[int, int], tuple[str, float]] = {}
    sample(before)
    seen = dict(before)
    since, start = machine(), time.monotonic()
    process = subprocess.Popen(command) if command else None
    stopped = False

    def stop(*_: object) -> None:
        nonlocal stopped
        stopped = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    while not stopped and (process is None or process.poll() is None):
        time.sleep(args.every)
        sample(seen)
    sample(seen)
    print(report(seen, since, before, time.monotonic() - start), file=sys.stderr)
    return process.wait() if process else 0


if __name__ == "__main__":
    raise SystemExit(main())
