"""Schemathesis against the OpenAPI schema: no 5xx, every answer as the schema says."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import Case

from magdagdon.settings import Settings
from magdagdon.web.app import create_app

_DB = Path(tempfile.mkdtemp(prefix="magdagdon-schema-")) / "schema.db"
app = create_app(Settings(database_url=f"sqlite:///{_DB}", rate_limits=False))
schema = schemathesis.openapi.from_asgi("/openapi.json", app)


@pytest.fixture(scope="module", autouse=True)
def _migrated() -> None:
    app.state.store.db.migrate()


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms(case: Case[Any]) -> None:
    # Every default check but "schema-valid data is accepted": the game's rules reject many
    # schema-valid actions (a die on an occupied square, ...) with a documented 422.
    case.call_and_validate(excluded_checks=[schemathesis.checks.positive_data_acceptance])
