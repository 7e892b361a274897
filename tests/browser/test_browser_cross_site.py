"""A page on another site posts a form to the game's API in a real browser: the visitor's cookie,
name and game stay theirs (an outside probe saw the cookie replaced, and with it the player)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from magdagdon.web.deps import COOKIE


def _attack_page(target: str) -> bytes:
    return f"""<!doctype html><html><body>
<form id="f" method="POST" action="{target}/api/daily/peaceful"></form>
<script>document.getElementById('f').submit()</script>
</body></html>""".encode()


@pytest.fixture
def other_site(live_server: str) -> Iterator[str]:
    """A page on another site (``localhost`` is not the site of ``127.0.0.1``) whose form posts
    to the game's API as soon as it loads."""
    page = _attack_page(live_server)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def _cookie(context: Any) -> str:
    (value,) = [c["value"] for c in context.cookies() if c["name"] == COOKIE]
    return str(value)


def test_a_form_on_another_site_wipes_no_one(page: Any, live_server: str, other_site: str) -> None:
    page.goto(live_server)
    page.wait_for_selector("[data-intent='roll']")
    page.click("[data-intent='roll']")
    page.wait_for_selector("[data-intent='roll']", state="detached")
    status = page.evaluate(
        """async () => (await fetch('/api/players/me', {method: 'PUT',
            headers: {'content-type': 'application/json'}, body: '{"name": "Ada"}'})).status"""
    )
    assert status == 200
    before = _cookie(page.context)
    game = page.evaluate("async () => (await (await fetch('/api/games/current')).json()).id")

    with page.expect_response(lambda r: r.url.endswith("/api/daily/peaceful")) as posted:
        page.goto(other_site)
    answer = posted.value
    assert answer.status == 403 and answer.json()["error"]["code"] == "cross_site"
    assert _cookie(page.context) == before

    page.goto(live_server)
    page.wait_for_selector("#board")
    me = page.evaluate("async () => (await (await fetch('/api/players/me')).json()).name")
    current = page.evaluate("async () => (await (await fetch('/api/games/current')).json())")
    assert me == "Ada" and current["id"] == game and current["phase"] != "roll"
    daily = page.evaluate("async () => (await (await fetch('/api/daily')).json()).games")
    assert all(d["status"] == "new" for d in daily)  # the form started no daily either
