"""The journeys of journeys.py in WebKitGTK's MiniBrowser (WebKitWebDriver, under Xvfb)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from . import webkit, without
from .journeys import Journeys
from .pages import Page


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[webkit.WebKit]:
    without(webkit.missing())
    browser = webkit.WebKit(tmp_path_factory.mktemp("webkit") / "webkit.log")
    yield browser
    browser.close()


@pytest.fixture
def page(browser: webkit.WebKit, live_server: str) -> Iterator[Page]:
    """A new player's page (a MiniBrowser of its own); the test fails on any error it met."""
    page = webkit.WebKitPage(browser, live_server)
    try:
        yield page
        assert page.errors() == []
    finally:
        page.close()


class TestWebKit(Journeys):
    """Every journey in WebKit (SHARE from the daily list included: it copies within the tap)."""
