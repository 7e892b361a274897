"""An upgrade under an open, installed page: one reload gives all of the new release and never a
mix of two (an outside probe saw a new index.html run with the old CSS and JS, and a new app.js
with an old replay.js); and only the game's own pages are navigations the worker answers (it
stored /openapi.json as the start page, and the next start showed JSON)."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from magdagdon.settings import Settings
from magdagdon.web.app import STATIC, create_app

from ..utils.server import free_port

MARK = """
document.documentElement.dataset.release = "{name}";
"""
STYLE = """
:root {{ --release: "{name}"; }}
"""


def release(folder: Path, name: str) -> Path:
    """A copy of the client whose script and style sheet say ``name``."""
    shutil.copytree(STATIC, folder)
    app = folder / "js" / "app.js"
    app.write_text(MARK.format(name=name) + app.read_text())  # before its awaits
    css = folder / "css" / "app.css"
    css.write_text(css.read_text() + STYLE.format(name=name))
    return folder


@contextmanager
def serving(settings: Settings, static: Path, port: int) -> Iterator[str]:
    """The app with the client in ``static`` on ``port`` (in a thread) until the block ends."""
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings, static=static), port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)


def loaded(page: Any) -> dict[str, Any]:
    """What the page runs: its script's and style sheet's marks, the release of every file it
    loaded, and the service worker's caches."""
    found: dict[str, Any] = page.evaluate(
        """async () => ({
            script: document.documentElement.dataset.release,
            style: getComputedStyle(document.documentElement)
                .getPropertyValue('--release').trim().replaceAll('"', ''),
            files: performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)
                .filter((p) => p.startsWith('/r/')).map((p) => p.split('/')[2]),
            caches: await caches.keys(),
        })"""
    )
    return found


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        database_url=f"sqlite:///{tmp_path / 'u.db'}", allow_test_seeds=True, rate_limits=False
    )


def test_one_reload_gives_all_of_the_new_release(
    browser: Any, settings: Settings, tmp_path: Path
) -> None:
    a, b = release(tmp_path / "a", "A"), release(tmp_path / "b", "B")
    port = free_port()
    context = browser.new_context(offline_ready=True, viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        with serving(settings, a, port) as base:
            page.goto(base)
            page.wait_for_selector("[data-intent='roll']")
            page.evaluate("navigator.serviceWorker.ready.then(() => true)")
            page.reload()  # under the worker's control, from its cache
            page.wait_for_selector("[data-intent='roll']")
            before = loaded(page)
            assert before["script"] == before["style"] == "A"
            (release_a,) = set(before["files"])
            assert before["caches"] == [f"magdagdon-{release_a}"]
        with serving(settings, b, port):
            page.reload()
            page.wait_for_selector("[data-intent='roll']")
            after = loaded(page)
            assert after["script"] == after["style"] == "B", after
            assert len(set(after["files"])) == 1 and release_a not in after["files"], after
            (release_b,) = set(after["files"])
            # the new worker takes over and keeps only the new release
            deadline = time.monotonic() + 15
            while loaded(page)["caches"] != [f"magdagdon-{release_b}"]:
                assert time.monotonic() < deadline, loaded(page)["caches"]
                time.sleep(0.2)
            context.set_offline(True)
            page.reload()  # offline: the new release from the new worker's cache
            page.wait_for_selector("#board")
            offline = loaded(page)
            assert offline["script"] == offline["style"] == "B"
            context.set_offline(False)
    finally:
        context.close()


def test_other_navigations_are_the_browsers(browser: Any, live_server: str) -> None:
    context = browser.new_context(offline_ready=True, viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(live_server)
        page.wait_for_selector("[data-intent='roll']")
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        page.reload()
        page.wait_for_selector("[data-intent='roll']")
        for path in ("/openapi.json", "/manifest.webmanifest", "/icons/icon.svg"):
            page.goto(live_server + path)
            assert "MAGDAGDON" not in page.title(), path
        page.goto(live_server + "/openapi.json")
        assert '"openapi"' in page.content()
        page.goto(live_server)  # the game, not what was navigated to before
        page.wait_for_selector("[data-intent='roll']")
        context.set_offline(True)
        page.reload()
        page.wait_for_selector("#board")
        assert page.title() == "MAGDAGDON"
    finally:
        context.close()
