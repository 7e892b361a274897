"""Page weight: everything the first load of the game transfers, measured from Chromium.

Run: ``python -m benchmarks.client_weight`` from the repository root (needs Debian's Chromium
at /usr/bin/chromium). It starts ``magdagdon serve`` on a temporary SQLite file, opens the game
as a new player, waits until the network is idle, and prints every response with its
uncompressed size, the total, and the requests to other hosts. Prints figures; asserts nothing.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import Response, sync_playwright

from tests.utils.server import running_server

BUDGET = 100 * 1024


def main() -> None:
    """Load the page once and print what it transferred."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        running_server(f"sqlite:///{Path(tmp) / 'weight.db'}") as base,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        page = browser.new_page(viewport={"width": 390, "height": 844})
        responses: list[Response] = []
        page.on("response", lambda response: responses.append(response))
        page.goto(base, wait_until="networkidle")
        page.wait_for_selector("[data-intent='roll']")
        page.wait_for_load_state("networkidle")
        own = urlsplit(base).netloc
        total = 0
        print(f"{'bytes':>8}  status  url")
        for response in responses:
            size = len(response.body()) if response.status not in (301, 302, 304) else 0
            total += size
            print(f"{size:>8}  {response.status:>6}  {response.url.replace(base, '')}")
        foreign = [r.url for r in responses if urlsplit(r.url).netloc != own]
        print(
            f"total: {total} bytes ({total / 1024:.1f} KiB) in {len(responses)} requests; "
            f"budget {BUDGET // 1024} KiB: {'within' if total <= BUDGET else 'OVER'}"
        )
        print(f"requests to other hosts: {len(foreign)} {foreign}")
        browser.close()


if __name__ == "__main__":
    main()
