"""The API tests' client: the app on the test's database, its lifespan run (migrations)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from magdagdon.settings import Settings
from magdagdon.web.app import create_app


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """A client of a new app on the test's database (SQLite, and PostgreSQL where set)."""
    with TestClient(create_app(settings)) as c:
        yield c
