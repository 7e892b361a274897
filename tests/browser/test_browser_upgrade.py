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
from playwright.sync_api import expect

from magdagdon.settings import Settings
from magdagdon.web.app import STATIC, create_app

from ..utils.server import free_port
from ..utils.ui import screenshot

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


def test_a_page_open_across_an_upgrade_goes_on_and_offers_the_reload(
    browser: Any, settings: Settings, tmp_path: Path
) -> None:
    """The new worker took over and deleted the old release's cache, and the server answers 404
    for the old release's files: in a tab opened before the upgrade ACCOUNT said "Something went
    wrong" and Svenska threw "Not found" is not valid JSON. The page goes on with its own
    release's files (its worker's cache, kept while it is open) and says a new version is ready,
    with RELOAD, which gives all of the new one."""
    a, b = release(tmp_path / "a", "A"), release(tmp_path / "b", "B")
    port = free_port()
    context = browser.new_context(offline_ready=True, viewport={"width": 375, "height": 667})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        with serving(settings, a, port) as base:
            page.goto(base)
            page.wait_for_selector("[data-intent='roll']")
            page.evaluate("navigator.serviceWorker.ready.then(() => true)")
            page.reload()  # under the worker's control
            page.wait_for_selector("[data-intent='roll']")
            page.wait_for_function("navigator.serviceWorker.controller !== null")
            # SETTINGS opened once: the other languages' catalogs are fetched ahead
            page.click("#menu-button")
            page.click("#sheet [data-intent='open'][data-screen='settings']")
            page.wait_for_function(
                """async () => (await caches.open((await caches.keys())[0]))
                    .match(location.origin + '/r/' + performance.getEntriesByType('resource')
                        .map((e) => new URL(e.name).pathname).find((p) => p.startsWith('/r/'))
                        .split('/')[2] + '/i18n/sv.json').then(Boolean)"""
            )
            page.keyboard.press("Escape")
            (release_a,) = set(loaded(page)["files"])
        with serving(settings, b, port):
            # the browser looks for a new worker (a page left open does when shown again)
            page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
            expect(page.locator("#update-note")).to_contain_text("A new version is ready.")
            screenshot(page, "upgrade-ready-en-375x667")
            assert loaded(page)["script"] == "A"
            # a module the page had not imported yet, and another language's catalog
            page.click("#menu-button")
            page.click("#sheet [data-intent='open'][data-screen='account']")
            expect(page.locator("#sheet [data-intent='transfer-code']")).to_be_visible()
            expect(page.locator("#sheet .error-text")).to_have_count(0)
            assert f"magdagdon-{release_a}" in loaded(page)["caches"]  # kept while it is open
            assert loaded(page)["script"] == "A"
            # another language: its catalog from this release's cache, the page in place
            page.keyboard.press("Escape")
            page.click("#menu-button")
            page.click("#sheet [data-intent='open'][data-screen='settings']")
            page.select_option("#language-select", "sv")
            expect(page.locator("#sheet-title")).to_have_text("Inställningar")
            assert loaded(page)["script"] == "A"
            expect(page.locator("#update-reload")).to_have_text("LADDA OM")  # (in the new words)
            page.keyboard.press("Escape")
            page.click("#update-reload")
            page.wait_for_selector("html[lang='sv'] [data-intent='roll']")
            after = loaded(page)
            assert after["script"] == after["style"] == "B", after
            assert release_a not in after["files"], after
            (release_b,) = set(after["files"])
            deadline = time.monotonic() + 20  # the old release's cache goes once no page uses it
            while loaded(page)["caches"] != [f"magdagdon-{release_b}"]:
                assert time.monotonic() < deadline, loaded(page)["caches"]
                time.sleep(0.2)
            expect(page.locator("#update-note")).to_have_count(0)
        assert not errors, errors
    finally:
        context.close()


@pytest.mark.parametrize("chosen", ["browser", "settings"])
def test_the_start_page_preloads_the_catalog_the_page_loads(
    browser: Any, live_server: str, chosen: str
) -> None:
    """The start page preloaded en.json in Estonian and Swedish ("preloaded but not used"): the
    worker's copy of the page was written for the worker's language, and SETTINGS may choose
    another than the browser's."""
    context = browser.new_context(
        offline_ready=True, viewport={"width": 375, "height": 667}, locale="et-EE"
    )
    page = context.new_page()
    try:
        page.goto(live_server)
        page.wait_for_selector("[data-intent='roll']")
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        language = "et"
        if chosen == "settings":
            page.click("#menu-button")
            page.click("#sheet [data-intent='open'][data-screen='settings']")
            page.select_option("#language-select", "sv")
            page.wait_for_selector("html[lang='sv']", state="attached")
            language = "sv"
        for _ in range(2):  # the worker's page, then its copy from the network again
            page.reload()
            page.wait_for_selector(f"html[lang='{language}'] [data-intent='roll']")
            preloaded = page.evaluate(
                "[...document.querySelectorAll('link[rel=preload][as=fetch]')].map((l) => l.href)"
            )
            # the catalog preloaded is the one the page loaded (else Chromium warns that it
            # was "preloaded but not used", and the page's own fetches it a second time)
            assert [href.rsplit("/", 1)[1] for href in preloaded] == [f"{language}.json"]
    finally:
        context.close()
