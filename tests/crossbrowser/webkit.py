"""WebKitGTK's MiniBrowser, driven through W3C WebDriver (Debian's WebKitWebDriver) over HTTP,
in a window on a virtual X display (Xvfb).

Classic WebDriver has no events and no script to run before a page's own: errors are
collected by a listener put into each page once it has loaded (into sessionStorage, so that
those before a navigation are kept), and an error while a page first loads shows as the page
not becoming ready. It has no offline mode either: the page reaches the server through a
:class:`TcpProxy` that the test stops and starts again. The clipboard is the X display's,
read with xclip.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx2

from ..utils.proxy import TcpProxy
from ..utils.server import free_port
from .pages import Page

DRIVER = "WebKitWebDriver"
MINIBROWSERS = "/usr/lib/*/webkit2gtk-4.*/MiniBrowser"
TOOLS = {DRIVER: "webkit2gtk-driver", "Xvfb": "xvfb", "xclip": "xclip"}
# A browser's start is tried this many times: on two loaded cores one start in CI hung past
# the HTTP client's 60 s (a WebDriver command with no answer; the game was not involved yet).
START_TRIES = 3

# WebDriver's codes for the keys the tests press
KEYS = {
    "ArrowLeft": "\ue012",
    "ArrowRight": "\ue014",
    "Home": "\ue011",
    "End": "\ue010",
    "Escape": "\ue00c",
    "Enter": "\ue007",
}

COLLECT_ERRORS = """() => {
  if (window.__collecting) return;
  window.__collecting = true;
  const note = (text) => {
    const seen = JSON.parse(sessionStorage.getItem("test.errors") || "[]");
    seen.push(String(text));
    sessionStorage.setItem("test.errors", JSON.stringify(seen));
  };
  addEventListener("error", (e) => note(`pageerror: ${e.message}`));
  addEventListener("unhandledrejection", (e) => note(`unhandled rejection: ${e.reason}`));
  const error = console.error.bind(console);
  console.error = (...args) => { note(`console.error: ${args.join(" ")}`); error(...args); };
}"""

TAKE_ERRORS = """() => {
  const seen = JSON.parse(sessionStorage.getItem("test.errors") || "[]");
  sessionStorage.removeItem("test.errors");
  return seen;
}"""

# Calls the function (its source and arguments spliced in) and reports through WebDriver's
# callback, the last argument: {value} or {error}.
ASYNC_CALL = """const done = arguments[arguments.length - 1];
Promise.resolve().then(() => (%s)(...arguments[0])).then(
  (value) => done({ value: value === undefined ? null : value }),
  (error) => done({ error: String(error && error.stack ? error.stack : error) }));"""


def minibrowser() -> str | None:
    """The MiniBrowser of the installed libwebkit2gtk, if any."""
    found = sorted(glob.glob(MINIBROWSERS))
    return found[-1] if found else None


def missing() -> str | None:
    """What the WebKit tests lack here, if anything."""
    for tool, package in TOOLS.items():
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt-get install {package})"
    if minibrowser() is None:
        return f"no MiniBrowser at {MINIBROWSERS} (it comes with webkit2gtk-driver's library)"
    return None


class WebDriverError(AssertionError):
    pass


class WebKit:
    """A virtual X display and WebKitWebDriver on it, as long as the tests' module."""

    def __init__(self, log: Path) -> None:
        self._log = log.open("w")
        read, write = os.pipe()
        self.xvfb = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
            pass_fds=(write,),
            stdout=self._log,
            stderr=self._log,
        )
        os.close(write)
        with os.fdopen(read) as displayfd:
            number = displayfd.readline().strip()  # once the display is up
        assert number, "Xvfb did not start"
        self.display = f":{number}"
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        env = {
            **os.environ,
            "DISPLAY": self.display,
            "LANGUAGE": "en_US",
            "LANG": "C.UTF-8",
            # no accessibility bus to look for (there is no session bus here to ask)
            "NO_AT_BRIDGE": "1",
            "GTK_A11Y": "none",
        }
        self.driver = subprocess.Popen(
            [DRIVER, f"--port={port}"], env=env, stdout=self._log, stderr=self._log
        )
        self.http = httpx2.Client(base_url=self.url, timeout=60)
        deadline = time.monotonic() + 20
        while True:
            try:
                if self.http.get("/status").json()["value"]["ready"]:
                    break
            except httpx2.HTTPError:
                pass
            assert time.monotonic() < deadline, "WebKitWebDriver did not start"
            time.sleep(0.1)

    def call(self, method: str, path: str, body: Any = None) -> Any:
        """One WebDriver command; its value (an error raises WebDriverError)."""
        try:
            r = self.http.request(method, path, json=body)
        except httpx2.TimeoutException as exc:
            raise WebDriverError(
                f"{method} {path} {body}: no answer within {self.http.timeout.read} s; "
                f"the driver's and browser's log ends:\n{self.log_tail()}"
            ) from exc
        value = r.json()["value"]
        if r.status_code >= 400:
            raise WebDriverError(f"{method} {path}: {value['error']}: {value['message']}")
        return value

    def log_tail(self, lines: int = 20) -> str:
        """The last lines the driver, the browsers and the display wrote."""
        self._log.flush()
        text = Path(self._log.name).read_text(errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def clipboard(self) -> str:
        """The X display's clipboard (what a paste elsewhere would get); "" when empty."""
        return subprocess.run(
            ["xclip", "-o", "-selection", "clipboard"],
            env={**os.environ, "DISPLAY": self.display},
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout

    def close(self) -> None:
        self.http.close()
        for process in (self.driver, self.xvfb):
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._log.close()


class WebKitPage(Page):
    """A new player's page: a MiniBrowser of its own (a WebDriver session), which reaches the
    server at ``upstream`` through a proxy of its own."""

    def __init__(self, webkit: WebKit, upstream: str) -> None:
        host, port = upstream.removeprefix("http://").rsplit(":", 1)
        self.proxy = TcpProxy((host, int(port)))
        self.proxy.start()
        super().__init__(f"http://127.0.0.1:{self.proxy.port}")
        self.webkit = webkit
        self.session = ""
        failures = []
        for _ in range(START_TRIES):
            try:
                self._start()
                break
            except WebDriverError as failure:
                failures.append(str(failure))
                self._end_session()
        else:
            raise WebDriverError("MiniBrowser did not start:\n" + "\n".join(failures))

    def _start(self) -> None:
        """A new MiniBrowser (a WebDriver session) on the server's health answer."""
        capabilities = {
            "browserName": "MiniBrowser",
            "webkitgtk:browserOptions": {"binary": minibrowser(), "args": ["--automation"]},
            # WebDriver answers with an error before the HTTP client gives up
            "timeouts": {"script": 30_000, "pageLoad": 30_000, "implicit": 0},
        }
        body = {"capabilities": {"alwaysMatch": capabilities}}
        self.session = f"/session/{self.webkit.call('POST', '/session', body)['sessionId']}"
        # a returning visitor: the guided tour would cover the board
        self.goto("/api/health")
        self.evaluate(
            "() => { localStorage.setItem('magdagdon.tourSeen', '1');"
            " localStorage.setItem('magdagdon.nameAsked', '1'); }"
        )

    def _end_session(self) -> None:
        if self.session:
            with contextlib.suppress(WebDriverError):
                self._call("DELETE")
            self.session = ""

    def _call(self, method: str, path: str = "", body: Any = None) -> Any:
        return self.webkit.call(method, self.session + path, body)

    def _loaded(self) -> None:
        self.evaluate(COLLECT_ERRORS)

    def goto(self, path: str) -> None:
        self._call("POST", "/url", {"url": self.base + path})
        self._loaded()

    def reload(self) -> None:
        self._call("POST", "/refresh", {})
        self._loaded()

    def click_now(self, selector: str) -> None:
        found = self._call("POST", "/element", {"using": "css selector", "value": selector})
        (element,) = found.values()
        self._call("POST", f"/element/{element}/click", {})
        self._loaded()  # in case the click opened another page

    def press(self, key: str) -> None:
        code = KEYS.get(key, key)
        keys = [{"type": "keyDown", "value": code}, {"type": "keyUp", "value": code}]
        self._call("POST", "/actions", {"actions": [{"type": "key", "id": "k", "actions": keys}]})

    def evaluate(self, function: str, *args: Any) -> Any:
        answer = self._call(
            "POST", "/execute/async", {"script": ASYNC_CALL % function, "args": [list(args)]}
        )
        if "error" in answer:
            raise AssertionError(f"WebKit: {answer['error']}")
        return answer["value"]

    def set_offline(self, offline: bool) -> None:
        if offline:
            self.proxy.stop()
        else:
            self.proxy.start()

    def clipboard(self) -> str:
        return self.webkit.clipboard()

    def errors(self) -> list[str]:
        errors: list[str] = self.evaluate(TAKE_ERRORS)
        return errors

    def close(self) -> None:
        try:
            self._call("DELETE")
        finally:
            self.proxy.stop()
