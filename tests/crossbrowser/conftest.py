"""The Firefox and WebKit tests' live server, as the Chromium tests have."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ..utils.server import SHARED_ADDRESS, running_server


@pytest.fixture(scope="package")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``magdagdon serve`` on a temporary SQLite file, test seeds allowed, no bound on one
    address's background work (:data:`~tests.utils.server.SHARED_ADDRESS`); its base URL."""
    db = tmp_path_factory.mktemp("live") / "magdagdon.db"
    with running_server(f"sqlite:///{db}", env=SHARED_ADDRESS) as base:
        yield base
