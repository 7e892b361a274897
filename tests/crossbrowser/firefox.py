"""Debian's Firefox ESR, driven by firefox.mjs (puppeteer-core over WebDriver BiDi) in a Node
process that lives as long as the tests' module: one command a line each way."""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import threading
from pathlib import Path
from typing import IO, Any

from .pages import Page

HERE = Path(__file__).resolve().parent
FIREFOX = Path("/usr/bin/firefox-esr")
PHONE = {"width": 390, "height": 844}


def missing() -> str | None:
    """What the Firefox tests lack here, if anything."""
    if not FIREFOX.exists():
        return f"Firefox ESR is not installed at {FIREFOX} (apt-get install firefox-esr)"
    if shutil.which("node") is None:
        return "Node is not installed"
    if not (HERE / "node_modules" / "puppeteer-core").is_dir():
        return f"puppeteer-core is not installed (npm ci in {HERE})"
    return None


class Firefox:
    """The browser: a Node process running firefox.mjs, which launched Firefox."""

    def __init__(self, log: Path) -> None:
        self._log = log.open("w")
        self.process = subprocess.Popen(
            ["node", str(HERE / "firefox.mjs")],
            cwd=HERE,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            encoding="utf-8",
        )
        self._lines: queue.Queue[str] = queue.Queue()
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()
        self.version: str = self._answer(timeout=60)

    def _read(self, stdout: IO[str]) -> None:
        for line in stdout:
            self._lines.put(line)
        self._lines.put("")  # the process ended

    def _answer(self, timeout: float) -> Any:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"firefox.mjs did not answer within {timeout} s") from None
        assert line, f"firefox.mjs ended (its log: {self._log.name})"
        answer = json.loads(line)
        if "error" in answer:
            raise AssertionError(f"Firefox: {answer['error']}")
        return answer["value"]

    def command(self, op: str, timeout: float = 60, **args: Any) -> Any:
        """Send one command; its value (an error in the browser raises AssertionError)."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"op": op, **args}) + "\n")
        self.process.stdin.flush()
        return self._answer(timeout)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()  # firefox.mjs closes the browser and ends
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._log.close()


class FirefoxPage(Page):
    """A new player's page (a fresh browsing context: no cookie, no storage), phone-sized."""

    def __init__(self, firefox: Firefox, base: str) -> None:
        super().__init__(base)
        self.firefox = firefox
        firefox.command("open", **PHONE)

    def goto(self, path: str) -> None:
        self.firefox.command("goto", url=self.base + path)

    def reload(self) -> None:
        self.firefox.command("reload")

    def click_now(self, selector: str) -> None:
        self.firefox.command("click", selector=selector)

    def press(self, key: str) -> None:
        self.firefox.command("press", key=key)

    def evaluate(self, function: str, *args: Any) -> Any:
        return self.firefox.command("evaluate", source=function, args=list(args))

    def set_offline(self, offline: bool) -> None:
        self.firefox.command("offline", on=offline)

    def clipboard(self) -> str:
        text: str = self.firefox.command("clipboard")
        return text

    def errors(self) -> list[str]:
        errors: list[str] = self.firefox.command("errors")
        return errors
