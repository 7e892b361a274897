"""The journeys of journeys.py in Debian's Firefox ESR (puppeteer-core over WebDriver BiDi)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from . import firefox, without
from .journeys import Journeys
from .pages import Page


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[firefox.Firefox]:
    without(firefox.missing())
    browser = firefox.Firefox(tmp_path_factory.mktemp("firefox") / "firefox.log")
    yield browser
    browser.close()


@pytest.fixture
def page(browser: firefox.Firefox, live_server: str) -> Iterator[Page]:
    """A new player's page; the test fails on any error the page met."""
    page = firefox.FirefoxPage(browser, live_server)
    yield page
    assert page.errors() == []


class TestFirefox(Journeys):
    pass
