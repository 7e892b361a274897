"""Lighthouse on the game's first page: performance, accessibility, best practices.

Run: ``python -m benchmarks.lighthouse [--lighthouse PATH]`` from the repository root. It starts
``magdagdon serve`` on a temporary SQLite file and runs Lighthouse (npm's ``lighthouse``, with
Debian's Chromium at /usr/bin/chromium, mobile form factor, a new player's first visit) against
it: by default through ``npx --yes lighthouse@12``, which fetches it from the npm registry the
first time. Prints the three category scores, the console errors and the layout shift; asserts
nothing (issue #14's target: each score at least 0.95, no console error).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path

from tests.utils.server import running_server


def run(lighthouse: list[str]) -> dict[str, object]:
    """Lighthouse's scores of a fresh server's first page."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        with running_server(f"sqlite:///{Path(tmp) / 'lh.db'}") as base:
            subprocess.run(
                [
                    *lighthouse,
                    f"{base}/",
                    "--quiet",
                    "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
                    "--only-categories=performance,accessibility,best-practices",
                    "--form-factor=mobile",
                    "--output=json",
                    f"--output-path={report}",
                ],
                check=True,
                env={**os.environ, "CHROME_PATH": "/usr/bin/chromium"},
                timeout=600,
            )
        data = json.loads(report.read_text())
    audits = data["audits"]
    return {
        **{name: category["score"] for name, category in data["categories"].items()},
        "console errors": len(audits["errors-in-console"].get("details", {}).get("items", [])),
        "layout shift": audits["cumulative-layout-shift"]["displayValue"],
        "largest contentful paint": audits["largest-contentful-paint"]["displayValue"],
    }


def main() -> None:
    """Parse the arguments, run, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lighthouse", help="a lighthouse executable (default: npx lighthouse@12)")
    args = parser.parse_args()
    command = [args.lighthouse] if args.lighthouse else ["npx", "--yes", "lighthouse@12"]
    for name, value in run(command).items():
        print(f"{name:<26}{value}")


if __name__ == "__main__":
    main()
