"""A first visit on a phone network: bytes over the wire and round trips before the board.

Run: ``python -m benchmarks.first_visit [--source OTHER_CHECKOUT/src ...] [--latency 150]``
from the repository root (needs Debian's Chromium at /usr/bin/chromium). For each source tree
(``--source`` adds another checkout's ``src``, e.g. an earlier release's, run with this Python;
this checkout last) it starts ``magdagdon serve`` on a temporary SQLite file behind a TCP relay
that counts every byte both ways (headers, compression and all), and opens the game in a new
Chromium profile as a new player, with the service worker allowed and ``latency`` ms added to
every request (Chromium's network emulation). It waits until the board can be played and the
service worker has filled its cache, then prints

- every request with its start and end (ms from the navigation) and its serial depth: 1 for
  the page, else one more than the deepest request that had ended when it started;
- the round trips before the board is usable: the depth of the request that brought the
  game (the last one the board waits for) and the time to the board;
- the bytes the relay carried, down and up, the service worker's own fetches included.

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from tests.utils.proxy import TcpProxy
from tests.utils.server import server_process


@dataclass
class Seen:
    """A request the browser made, with its timing (ms from the navigation's start)."""

    url: str
    method: str
    start: float
    end: float
    encoding: str
    depth: int = 0


def depths(requests: list[Seen]) -> None:
    """Each request's serial depth (see the module docstring)."""
    for r in sorted(requests, key=lambda r: r.start):
        before = [q.depth for q in requests if q is not r and q.depth and q.end <= r.start]
        r.depth = 1 + max(before, default=0)


def visit(base: str, proxy: TcpProxy, latency: float) -> None:
    """One first visit through the relay; prints the figures."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        context = browser.new_context(
            viewport={"width": 390, "height": 844}, locale="en-US", service_workers="allow"
        )
        context.add_init_script("localStorage.setItem('magdagdon.tourSeen', '1')")
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send(
            "Network.emulateNetworkConditions",
            {
                "offline": False,
                "latency": latency,
                "downloadThroughput": -1,
                "uploadThroughput": -1,
            },
        )
        seen: list[Seen] = []
        origin: list[float] = []

        def finished(request: Any) -> None:
            timing = request.timing
            if not origin:
                origin.append(timing["startTime"])
            start = timing["startTime"] - origin[0]
            end = start + max(timing["responseEnd"], 0)
            response = request.response()
            encoding = (response.headers.get("content-encoding") if response else None) or "-"
            seen.append(Seen(request.url.replace(base, ""), request.method, start, end, encoding))

        page.on("requestfinished", finished)
        page.goto(base)
        page.wait_for_selector("[data-intent='roll']")
        board = page.evaluate("performance.now()")
        for _ in range(300):  # the worker installed and in control (polled: the page's CSP
            # forbids the evaluated predicates of wait_for_function)
            if page.evaluate("navigator.serviceWorker.controller !== null"):
                break
            page.wait_for_timeout(100)
        else:
            print("  the service worker did not take control within 30 s")
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(1000)
        cached = page.evaluate(
            "async () => { let n = 0; for (const k of await caches.keys()) "
            "n += (await (await caches.open(k)).keys()).length; return n; }"
        )
        depths(seen)
        print(f"  {'start':>7} {'end':>7} depth  coding  request")
        for r in sorted(seen, key=lambda r: r.start):
            print(
                f"  {r.start:7.0f} {r.end:7.0f} {r.depth:>5}  {r.encoding:>6}  {r.method} {r.url}"
            )
        game = [r for r in seen if r.url.startswith("/api/games")]
        board_depth = max((r.depth for r in game), default=0)
        print(
            f"  round trips before the board: {board_depth} (the game's request at depth "
            f"{board_depth}); board usable at {board:.0f} ms with {latency:.0f} ms per request"
        )
        print(
            f"  over the wire: {proxy.sent_down / 1024:.1f} KiB down, "
            f"{proxy.sent_up / 1024:.1f} KiB up, {(proxy.sent_down + proxy.sent_up) / 1024:.1f} "
            f"KiB in all, in {len(seen)} requests seen by the page (the service worker's own "
            f"included in the bytes); {cached} responses in the worker's cache"
        )
        browser.close()


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark for each source tree."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", type=float, default=150)
    parser.add_argument(
        "--source", action="append", default=[], help="another checkout's src directory"
    )
    args = parser.parse_args(argv)
    sources: list[str | None] = [*args.source, None]
    for source in sources:
        env = {"PYTHONPATH": str(Path(source).resolve())} if source else {}
        with tempfile.TemporaryDirectory() as tmp:
            db = f"sqlite:///{Path(tmp) / 'visit.db'}"
            command = [sys.executable, "-m", "magdagdon.cli"]
            log = Path(tmp) / "server.log"
            with server_process(db, env=env, command=command, log=log, log_level="info") as server:
                port = int(server.url.rpartition(":")[2])
                proxy = TcpProxy(("127.0.0.1", port))
                proxy.start()
                try:
                    print(f"{source or 'this checkout'}:")
                    visit(f"http://127.0.0.1:{proxy.port}", proxy, args.latency)
                finally:
                    proxy.stop()
            asked = [
                line.split('"')[1] for line in log.read_text().splitlines() if "access:" in line
            ]
            print(f"  the server answered {len(asked)} requests: {', '.join(asked)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
